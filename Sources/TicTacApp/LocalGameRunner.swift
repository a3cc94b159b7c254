import TicTacAPI
import TicTacEngine
import TicTacNet
import TicTacTTY
import TicTacTerminal

/// Runs a `LocalMatch` on the reactor behind a front (full screen or plain lines): commands in,
/// events out, rematch timers. Ends through `RunnerLifecycle` on `quit`, end of input or a signal.
public final class LocalGameRunner {
    private let reactor: Reactor
    private var match: LocalMatch
    private let front: Front
    private let lifecycle: RunnerLifecycle
    private var timer: Reactor.TimerID?

    public init(reactor: Reactor, match: LocalMatch, front: Front) {
        self.reactor = reactor
        self.match = match
        self.front = front
        lifecycle = RunnerLifecycle(reactor: reactor)
    }

    /// The exit status once `run` returns: 130 after Ctrl-C, else 0.
    public var exitStatus: Int32 { lifecycle.exitStatus }

    public func run() throws(NetError) {
        defer { front.stop() } // gives the terminal back on every way out
        try lifecycle.start { [front] _, done in
            front.stop()
            done()
        }
        front.onCommand = { [unowned self] command in
            switch command {
            case .quit: lifecycle.quit()
            case .interrupt: lifecycle.interrupt()
            default: show(match.command(command, now: reactor.now))
            }
        }
        try front.start(reactor: reactor)
        show(match.start(now: reactor.now))
        try lifecycle.run()
    }

    private func show(_ events: [DaemonEvent]) {
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
