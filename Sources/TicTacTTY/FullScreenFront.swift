// The full-screen terminal front.
//
// Design: three layers, only the outer one touches the terminal.
// - `KeyParser` (FullScreenKeys.swift) turns raw tty bytes into `Key`s, keeping an escape
//   sequence split between reads until it is complete.
// - `FullScreenModel` (FullScreenModel.swift, FullScreenRender.swift) is a plain value: daemon
//   events update it (`apply`), keys update it and may yield a `Command` (`key`), and
//   `lines(width:height:)` draws the whole screen as strings. Pure, so tests drive it directly.
// - `FullScreenFront` (this file) owns the terminal through `RawTerminal` (raw mode with termios,
//   the alternate screen, a hidden cursor, stdin and SIGWINCH on the reactor). After events or keys it redraws the whole
//   screen (at most once per turn of the loop), never blocking on a terminal nobody reads. `stop()` puts everything back.
// Hand-written VT100/ANSI sequences, no curses.

#if canImport(Glibc)
import TicTacTerminal
import TicTacAPI
import Glibc
#endif
import TicTacNet

/// A full-screen terminal front: the lobby (peers, invitations) and the game board, driven by
/// the arrow keys. Use it when standard input and output are both terminals.
public final class FullScreenFront: Front {
    /// Receives the player's commands.
    public var onCommand: ((Command) -> Void)?

    private var model: FullScreenModel
    private let terminal: RawTerminal
    private let output: Int32
    private var reactor: Reactor?
    private var renderPending = false
    /// Ticks the rematch countdown once a second while one runs.
    private var countdownTimer: Reactor.TimerID?
    private var started: Bool { terminal.started }

    /// A front of `tictac daemon`: `q` leaves at once, the game going on without it.
    public var attached: Bool {
        get { model.attached }
        set { model.attached = newValue }
    }

    /// The attached front's daemon stopped: the last line says so.
    public func daemonStopped() { model.daemonStopped = true }

    /// Offer the collaborative field in the lobby (`f`).
    public var offersField: Bool {
        get { model.offersField }
        set { model.offersField = newValue }
    }

    /// - Parameter color: ANSI colours; pass false when NO_COLOR is set or --no-color is given.
    ///   Box-drawing characters are used when the locale is UTF-8, ASCII otherwise.
    /// - Parameter hotSeat: two people at one keyboard (`play --local --hotseat`).
    /// - Parameter playerOne: the first hot-seat player's name ("Player 1" when nil).
    /// - Parameters input, output: the terminal's descriptors.
    public init(color: Bool, hotSeat: Bool = false, playerOne: String? = nil, input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        terminal = RawTerminal(input: input, output: output)
        self.output = output
        model = FullScreenModel(color: color, unicode: RawTerminal.localeIsUTF8())
        model.hotSeat = hotSeat
        if let playerOne { model.playerOne = playerOne }
    }

    deinit { stop() }

    /// Raw mode, the alternate screen, a hidden cursor (RawTerminal); reads keys from stdin and
    /// redraws on SIGWINCH. If a step fails, whatever was done is undone before the error is thrown.
    public func start(reactor: Reactor) throws(NetError) {
        guard !started else { return }
        terminal.onKeys = { [unowned self] keys in handle(keys) }
        terminal.onResize = { [unowned self] in render(clear: true) }
        terminal.onEnd = { [unowned self] in onCommand?(.quit) }
        model.addresses = Self.hostAddresses()
        try terminal.start(reactor: reactor)
        self.reactor = reactor
        render()
    }

    /// Updates the screen with one event.
    public func show(_ event: DaemonEvent) {
        model.apply(event)
        setNeedsRender()
        if case .game(.yourTurn, _) = event { restartTicks() } // a move clock starts now
        if case .game(.opponentTurn, _) = event { restartTicks() }
        scheduleCountdown()
    }

    /// Ticks from now on: a move clock counts whole seconds from its turn's start.
    private func restartTicks() {
        if let countdownTimer { reactor?.cancel(countdownTimer) }
        countdownTimer = nil
    }

    /// Gives the terminal back as it was: termios, cursor, main screen, colours. Idempotent.
    public func stop() {
        if let countdownTimer { reactor?.cancel(countdownTimer) }
        countdownTimer = nil
        let wasStarted = started
        terminal.stop()
        reactor = nil
        // On the main screen again: what the alternate one said about an unfinished game stays.
        if wasStarted, let line = model.farewell {
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
        }
    }

    /// One tick a second while the model counts down: to the next game, or a move clock.
    private func scheduleCountdown() {
        guard countdownTimer == nil, let reactor, model.ticking else { return }
        countdownTimer = reactor.schedule(after: .seconds(1)) { [weak self] in
            guard let self else { return }
            countdownTimer = nil
            model.tick()
            setNeedsRender()
            scheduleCountdown()
        }
    }

    // MARK: - Input

    private func handle(_ keys: [Key]) {
        for key in keys {
            guard started else { return }
            let command = model.key(key.unshifted)
            setNeedsRender()
            if let command { onCommand?(command) }
        }
    }

    // MARK: - Output

    /// Redraws once per turn of the loop, however many events came in.
    private func setNeedsRender() {
        guard started, !renderPending, let reactor else { return }
        renderPending = true
        reactor.schedule(after: .zero) { [weak self] in
            guard let self else { return }
            renderPending = false
            render()
        }
    }

    /// Draws the whole screen: each line at its row, cleared to its end.
    private func render(clear: Bool = false) {
        guard started else { return }
        let (width, height) = terminal.size()
        var out = clear ? "\u{1B}[2J" : ""
        for (row, line) in model.lines(width: width, height: height).enumerated() {
            out += "\u{1B}[\(row + 1);1H\u{1B}[0m" + line + "\u{1B}[0m\u{1B}[K"
        }
        out += "\u{1B}[J"
        terminal.draw(out, whole: true)
    }

    // MARK: - Environment

    /// This host's IPv4 addresses and global IPv6 addresses, loopback left out (for the title).
    public static func hostAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var result: [String] = []
        var next = list
        while let entry = next {
            next = entry.pointee.ifa_next
            guard let addr = entry.pointee.ifa_addr,
                  entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0 else { continue }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch Int32(addr.pointee.sa_family) {
            case AF_INET:
                var a = addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                guard inet_ntop(AF_INET, &a, &text, socklen_t(text.count)) != nil else { continue }
            case AF_INET6:
                var a = addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                let first = withUnsafeBytes(of: &a) { $0.first ?? 0 }
                guard first & 0xE0 == 0x20, // global unicast (2000::/3) only
                      inet_ntop(AF_INET6, &a, &text, socklen_t(text.count)) != nil else { continue }
            default:
                continue
            }
            let s = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !result.contains(s) { result.append(s) }
        }
        return Array(result.prefix(3))
    }
}
