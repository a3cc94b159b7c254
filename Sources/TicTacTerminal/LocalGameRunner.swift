#if canImport(Glibc)
import Glibc
#endif
import TicTacEngine
import TicTacNet

/// Runs a `LocalMatch` on the reactor behind a front (full screen or plain lines): commands in,
/// events out, rematch timers. Ends on `quit` or end of input.
public final class LocalGameRunner {
    private let reactor: Reactor
    private var match: LocalMatch
    private let front: Front
    private var timer: Reactor.TimerID?
    private var signals: SignalSource?
    /// The player left with Ctrl-C or SIGINT: the command exits 130 (128 + SIGINT).
    public private(set) var interrupted = false

    public init(match: LocalMatch, front: Front) throws(NetError) {
        reactor = try Reactor()
        self.match = match
        self.front = front
    }

    public func run() throws(NetError) {
        defer { front.stop() } // gives the terminal back on every way out
        signals = try SignalSource(reactor: reactor, signals: [SIGINT, SIGTERM, SIGHUP]) { [unowned self] signal in
            if signal == SIGINT { interrupted = true }
            reactor.stop()
        }
        front.onCommand = { [unowned self] command in
            if command == .interrupt { interrupted = true }
            if command == .quit || command == .interrupt { return reactor.stop() }
            show(match.command(command, now: reactor.now))
        }
        try front.start(reactor: reactor)
        show(match.start(now: reactor.now))
        try reactor.run()
    }

    private func show(_ events: [OutputEvent]) {
        for event in events { front.show(event) }
        if let timer { reactor.cancel(timer) }
        timer = nil
        guard let deadline = match.nextDeadline else { return }
        timer = reactor.schedule(at: deadline) { [unowned self] in
            timer = nil
            show(match.timeout(now: reactor.now))
        }
    }
}
