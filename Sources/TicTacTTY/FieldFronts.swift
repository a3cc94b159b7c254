#if canImport(Glibc)
import Glibc
#endif
import TicTacTerminal
import TicTacFieldCore
import TicTacNet
import TicTacTime

/// What a field front does: show updates, and hand the player's commands to `onCommand`.
public protocol FieldFront: AnyObject {
    var onCommand: ((FieldCommand) -> Void)? { get set }
    func start(reactor: Reactor) throws(NetError)
    func show(_ update: FieldUpdate)
    func stop()
}

/// Plain mode for the field: commands in (unless `readsInput` is false, as for the bot), one
/// event per line out, each sphere's lines coalesced to at most 10 per second.
public final class PlainFieldFront: FieldFront {
    public var onCommand: ((FieldCommand) -> Void)?
    private let formatter: FieldFormatter
    private let readsInput: Bool
    private var input: StdinLines?
    private var reactor: Reactor?
    private var throttle = SphereLineThrottle()
    private var timer: Reactor.TimerID?

    private let readyEvent: String
    /// Where lines go when set (tictac play's plain front, so the daemon never blocks on an
    /// unread standard output); else print.
    public var output: LineWriter?

    /// `readyEvent`: the name of the first line (`ready`; `field` when opened from tictac play,
    /// whose own first line is its `ready`).
    public init(json: Bool, readsInput: Bool = true, readyEvent: String = "ready") {
        formatter = FieldFormatter(json: json)
        self.readsInput = readsInput
        self.readyEvent = readyEvent
    }

    public func start(reactor: Reactor) throws(NetError) {
        self.reactor = reactor
        guard readsInput else { return }
        input = try StdinLines(reactor: reactor, onItem: { [unowned self] item in
            switch item {
            case .tooLong:
                show(.error(code: "bad-command", message: "line too long (at most \(Command.maxLineBytes) bytes)"))
            case let .line(text):
                guard !text.allSatisfy(\.isWhitespace) else { return }
                do throws(Command.ParseError) {
                    onCommand?(try FieldCommand.parse(text))
                } catch {
                    show(.error(code: "bad-command", message: error.description))
                }
            }
        }, onEnd: { [unowned self] in onCommand?(.quit) })
    }

    public func show(_ update: FieldUpdate) {
        switch update {
        case let .ready(s, port): emit(formatter.ready(s, port: port, event: readyEvent))
        case let .local(s), let .event(.joined(s)), let .event(.changed(s)): sphere(s)
        case let .event(.left(key, name, reason)):
            throttle.forget(key)
            emit(formatter.left(key, name: name, reason: reason))
        case let .error(code, message): emit(formatter.message("error", code: code, message))
        case let .notice(text): emit(formatter.message("notice", text))
        case let .help(text): emit(formatter.message("help", text))
        case let .stats(c): emit(formatter.stats(c))
        }
    }

    public func stop() {
        flushPending(all: true)
        input?.stop()
        if let timer { reactor?.cancel(timer) }
        timer = nil
    }

    private func sphere(_ s: FieldSphere) {
        guard let reactor else { return emit(formatter.sphere(s)) }
        if let now = throttle.offer(s, now: reactor.now) { emit(formatter.sphere(now)) }
        rearm()
    }

    private func flushPending(all: Bool = false) {
        guard let reactor else { return }
        let now = all ? reactor.now + throttle.gap : reactor.now
        for s in throttle.due(now: now) { emit(formatter.sphere(s)) }
    }

    private func rearm() {
        guard timer == nil, let reactor, let next = throttle.nextDeadline() else { return }
        timer = reactor.schedule(at: next) { [weak self] in
            guard let self else { return }
            timer = nil
            flushPending()
            rearm()
        }
    }

    private func emit(_ line: String) {
        if let output { return output.write(line) }
        print(line)
        fflush(nil)
    }
}

/// The field in a full-screen terminal: the 1000 x 1000 field mapped onto the window, arrows or
/// hjkl to move (shift / HJKL: five cells), `c` for the next colour, `s` for the datagram
/// counters in the status line, `q` to quit. Redraws at most
/// 30 times a second, and only the rows that changed.
public final class FullScreenFieldFront: FieldFront {
    public var onCommand: ((FieldCommand) -> Void)?
    private var screen: FieldScreen
    private let terminal: RawTerminal
    private var reactor: Reactor?
    private var shown: [String] = []
    private var lastRender: Instant?
    private var renderTimer: Reactor.TimerID?

    /// Colours `c` steps through.
    public static let palette: [RGB] = [RGB(230, 60, 60), RGB(60, 180, 75), RGB(255, 200, 40), RGB(70, 130, 240),
                                 RGB(245, 130, 50), RGB(145, 60, 200), RGB(70, 220, 220), RGB(240, 50, 230)]

    private let fromLobby: Bool

    /// `fromLobby`: opened from tictac play's lobby, so `q` goes back there (Ctrl-C still quits).
    /// `input`, `output`: the terminal's descriptors.
    public init(depth: ColorDepth, fromLobby: Bool = false, input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        terminal = RawTerminal(input: input, output: output)
        screen = FieldScreen(depth: depth, unicode: RawTerminal.localeIsUTF8())
        screen.quitLabel = fromLobby ? "lobby" : "quit"
        self.fromLobby = fromLobby
    }

    deinit { stop() }

    public func start(reactor: Reactor) throws(NetError) {
        terminal.onKeys = { [unowned self] keys in for k in keys { key(k) } }
        terminal.onResize = { [unowned self] in
            shown = [] // everything again, from a cleared screen
            terminal.write("\u{1B}[2J")
            setNeedsRender()
        }
        terminal.onEnd = { [unowned self] in onCommand?(.quit) }
        try terminal.start(reactor: reactor)
        self.reactor = reactor
        setNeedsRender()
    }

    public func show(_ update: FieldUpdate) {
        screen.apply(update)
        setNeedsRender()
    }

    public func stop() {
        if let renderTimer { reactor?.cancel(renderTimer) }
        renderTimer = nil
        terminal.stop()
        reactor = nil
        shown = [] // a later start draws everything again
    }

    private func key(_ key: Key) {
        let (w, h) = terminal.size()
        let (sx, sy) = screen.steps(width: w, height: h)
        let big: Int32 = 5
        let command: FieldCommand?
        switch key {
        case .up, .char("k"): command = .move(dx: 0, dy: -sy)
        case .down, .char("j"): command = .move(dx: 0, dy: sy)
        case .left, .char("h"): command = .move(dx: -sx, dy: 0)
        case .right, .char("l"): command = .move(dx: sx, dy: 0)
        case .shiftUp, .char("K"): command = .move(dx: 0, dy: -sy * big)
        case .shiftDown, .char("J"): command = .move(dx: 0, dy: sy * big)
        case .shiftLeft, .char("H"): command = .move(dx: -sx * big, dy: 0)
        case .shiftRight, .char("L"): command = .move(dx: sx * big, dy: 0)
        case .char("c"), .char("C"):
            command = .color(Self.nextColor(after: screen.local?.color, avoiding: Set(screen.others.values.map(\.color))))
        case .char("s"), .char("S"): command = .stats
        case .char("q"), .char("Q"): command = fromLobby ? .lobby : .quit
        case .interrupt: command = .interrupt
        default: command = nil
        }
        if let command { onCommand?(command) }
    }

    /// The palette's next colour after `current` that no other sphere shows (two spheres of one
    /// colour cannot be told apart); the plain next one when every colour is taken.
    public static func nextColor(after current: RGB?, avoiding taken: Set<RGB>) -> RGB {
        let start = current.flatMap { palette.firstIndex(of: $0) } ?? palette.count - 1
        let order = (1...palette.count).map { palette[(start + $0) % palette.count] }
        return order.first { !taken.contains($0) && $0 != current } ?? order[0]
    }

    /// At most one redraw per 1/30 s, however many updates came in.
    private func setNeedsRender() {
        guard terminal.started, renderTimer == nil, let reactor else { return }
        let at = lastRender.map { max(reactor.now, $0 + .nanoseconds(33_333_334)) } ?? reactor.now
        renderTimer = reactor.schedule(at: at) { [weak self] in
            guard let self else { return }
            renderTimer = nil
            render()
        }
    }

    /// Writes the rows that differ from what is on screen; all of them while the terminal has
    /// not taken the last ones (those not started then go: only the newest screen waits).
    private func render() {
        guard terminal.started, let reactor else { return }
        lastRender = reactor.now
        let whole = terminal.backedUp
        if whole { shown = [] }
        let (w, h) = terminal.size()
        let lines = screen.lines(width: w, height: h)
        var out = ""
        for (row, line) in lines.enumerated() where row >= shown.count || shown[row] != line {
            out += "\u{1B}[\(row + 1);1H\u{1B}[0m" + line + "\u{1B}[0m\u{1B}[K"
        }
        if lines.count < shown.count { out += "\u{1B}[\(lines.count + 1);1H\u{1B}[J" }
        shown = lines
        if !out.isEmpty { terminal.draw(out, whole: whole) }
    }
}
