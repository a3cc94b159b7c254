#if canImport(Glibc)
import Glibc
#endif
import TicTacNet

/// How every runner (player, bot, field, local game) ends: SIGINT, SIGTERM and SIGHUP arrive on
/// the reactor (a signalfd); a signal or the player's quit starts leaving once; the runner's
/// departure (LEAVE to peers, the terminal given back) has `deadline`, then the loop stops.
/// Ctrl-C, as SIGINT or as the key a raw-mode screen reads, exits 130 (README "Usage"); every
/// other way out exits 0.
public final class RunnerLifecycle {
    /// What the runner does on its way out; it calls `done` when finished (the loop stops
    /// anyway once `deadline` and a margin have passed).
    public typealias Departure = (_ deadline: Duration, _ done: @escaping () -> Void) -> Void

    /// 128 + SIGINT, as shells report an interrupted command.
    public static let interruptedStatus: Int32 = 128 + SIGINT

    public let reactor: Reactor
    /// How long the departure may take (a peer that stopped reading must not hold up the exit).
    public let deadline: Duration
    /// Leaving was asked with Ctrl-C or SIGINT.
    public private(set) var interrupted = false
    /// Leaving has started: later quits and signals change nothing.
    public private(set) var leaving = false
    private var departure: Departure = { _, done in done() }
    private var signals: SignalSource?
    private var fallback: Reactor.TimerID?

    public init(reactor: Reactor, deadline: Duration = .seconds(1)) {
        self.reactor = reactor
        self.deadline = deadline
    }

    /// The process's exit status once `run` returns.
    public var exitStatus: Int32 { interrupted ? Self.interruptedStatus : 0 }

    /// Takes SIGINT, SIGTERM and SIGHUP on the reactor (and SIGPIPE off); `departure` runs once
    /// when leaving starts.
    public func start(departure: @escaping Departure) throws(NetError) {
        self.departure = departure
        SignalSource.ignoreBrokenPipe()
        signals = try SignalSource(reactor: reactor, signals: [SIGINT, SIGTERM, SIGHUP]) { [unowned self] signal in
            leave(interrupted: signal == SIGINT)
        }
    }

    /// Runs the loop until the departure is done.
    public func run() throws(NetError) {
        defer { signals = nil }
        try reactor.run()
    }

    /// Leaves as `q`, `quit`, end of input or SIGTERM do: exit status 0.
    public func quit() { leave(interrupted: false) }

    /// Leaves as Ctrl-C does: exit status 130.
    public func interrupt() { leave(interrupted: true) }

    private func leave(interrupted: Bool) {
        guard !leaving else { return }
        leaving = true
        self.interrupted = interrupted
        fallback = reactor.schedule(after: deadline + .milliseconds(500)) { [reactor] in reactor.stop() }
        departure(deadline) { [weak self] in self?.finish() }
    }

    private func finish() {
        if let fallback { reactor.cancel(fallback) }
        fallback = nil
        reactor.stop()
    }
}
