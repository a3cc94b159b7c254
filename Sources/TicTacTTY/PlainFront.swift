#if canImport(Glibc)
import TicTacTerminal
import TicTacAPI
import Glibc
#endif
import TicTacJSON
import TicTacNet
import TicTacWire

/// What a front does: show events, and hand the player's commands to `onCommand`.
/// Plain mode and the full-screen terminal are two implementations of the same seat.
public protocol Front: AnyObject {
    var onCommand: ((Command) -> Void)? { get set }
    /// Starts reading input on the reactor.
    func start(reactor: Reactor) throws(NetError)
    func show(_ event: DaemonEvent)
    /// Stops reading input and gives the terminal back as it was.
    func stop()
}

/// Plain mode: one command per line in, one event per line out (docs/plain-mode.md).
public final class PlainFront: Front {
    public var onCommand: ((Command) -> Void)?
    /// When set, sees each line first and keeps those it returns true for (the field's commands
    /// while the field is open).
    public var interceptLine: ((String) -> Bool)?
    private var formatter: OutputFormatter
    private var rematch = RematchAnnouncer()
    private var echoes: PeerEchoes
    private var clock = MoveClockAnnouncer()
    private var clockTimer: Reactor.TimerID?
    private var reactor: Reactor?
    private var input: StdinLines?
    /// Standard output, never blocking the daemon (docs/plain-mode.md: output-dropped). The
    /// field's plain front writes through it too, so the two stay in order.
    public let output: LineWriter

    private let inputFD: Int32?

    /// - Parameters:
    ///   - inputFD: where the commands come from (standard input); nil: they come to `take`.
    ///   - outputFD: where the lines go (standard output; tests give a pipe).
    public init(json: Bool, inputFD: Int32? = STDIN_FILENO, outputFD: Int32 = STDOUT_FILENO) {
        self.inputFD = inputFD
        let formatter = OutputFormatter(style: json ? .json : .text)
        self.formatter = formatter
        echoes = PeerEchoes(style: formatter.style)
        output = LineWriter(fd: outputFD, gapLine: formatter.gapLine)
    }

    public func start(reactor: Reactor) throws(NetError) {
        output.attach(to: reactor)
        self.reactor = reactor
        guard let inputFD else { return }
        input = try StdinLines(reactor: reactor, fd: inputFD, onItem: { [unowned self] item in take(item) },
                               onEnd: { [unowned self] in onCommand?(.quit) })
    }

    /// One line of input (what `start` reads, or what a control socket's client sent).
    public func take(_ item: LineReader.Item) {
        switch item {
        case .tooLong:
            show(.error(code: "bad-command", message: "line too long (at most \(Command.maxLineBytes) bytes)"))
        case let .line(text):
            guard !text.allSatisfy(\.isWhitespace) else { return }
            if let interceptLine, interceptLine(text) { return }
            let command: Command
            do throws(Command.ParseError) { command = try Command.parse(text) } catch {
                return show(.error(code: "bad-command", message: error.description))
            }
            // `new` and `lobby` end a running game with no wait for a rematch to announce.
            rematch.endingOnCommand = command == .new || command == .lobby
            defer { rematch.endingOnCommand = false }
            onCommand?(command)
        }
    }

    /// Errors shown so far (a control socket's `sync` counts them).
    public private(set) var errorsShown = 0

    public func show(_ event: DaemonEvent) {
        if case .error = event { errorsShown += 1 }
        guard echoes.admit(event) else { return } // a peer-updated that would show nothing new
        formatter.note(event)
        var lines = formatter.lines(for: event)
        if case let .peerFound(p) = event, let note = echoes.earlierNote(for: p) {
            // An earlier instance of this peer is still listed (PeerEchoes): say which.
            switch formatter.style {
            case .text: lines = lines.map { $0 + OutputFormatter.escaped(" (\(note))") }
            case .json:
                let ids = echoes.earlierInstances(of: p).map { JSON.string($0.id.description) }
                lines = [JSON.object([("event", .string("peer-found"))] + OutputFormatter.peer(p) + [("earlier", .array(ids))]).serialized]
            }
        }
        for line in lines { output.write(line) }
        if let next = rematch.after(event) {
            for line in formatter.lines(for: next) { output.write(line) }
        }
        let warning = clock.deadline
        clock.after(event, now: reactor?.now ?? Reactor.now())
        if clock.deadline != warning { scheduleClock() }
    }

    /// Says "10 s left to move" when the turn's clock gets there (MoveClockAnnouncer).
    private func scheduleClock() {
        if let clockTimer { reactor?.cancel(clockTimer) }
        clockTimer = nil
        guard let reactor, let deadline = clock.deadline else { return }
        clockTimer = reactor.schedule(at: deadline) { [weak self] in
            guard let self else { return }
            clockTimer = nil
            if let warning = clock.due(now: reactor.now) { show(warning) }
        }
    }

    /// Seconds between games, for the `rematch` event (the daemon's rematch delay).
    public var rematchSeconds: Int {
        get { rematch.seconds }
        set { rematch.seconds = newValue }
    }

    /// Stops reading input; what is left of the output gets at most a second to go.
    public func stop() { stop(drainWithin: .seconds(1)) }

    /// Stops; what is left of the output gets at most `limit` (a control socket's client that
    /// left gets none).
    public func stop(drainWithin limit: Duration) {
        if let clockTimer { reactor?.cancel(clockTimer) }
        clockTimer = nil
        input?.stop()
        output.drain(within: limit)
    }
}
