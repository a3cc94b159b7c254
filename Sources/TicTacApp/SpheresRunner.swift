import TicTacDaemon
import TicTacDaemonCore
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacField
import TicTacFieldCore
import TicTacNet
import TicTacTTY
import TicTacTerminal
import TicTacTime

/// `tictac spheres`: a daemon that takes part in the collaborative field. Wires the daemon's
/// presence table to the field (participants), the field's events to the front, the front's
/// commands to the field. Tic-tac-toe invitations are declined (this daemon announces the field
/// only). Leaves through `RunnerLifecycle`: FIELD_LEAVE, LEAVE, GOODBYE.
public final class SpheresRunner {
    private let reactor: Reactor
    private let daemon: Daemon
    private let field: FieldShell
    private let front: FieldFront
    private let lifecycle: RunnerLifecycle
    private var wanderer: Wanderer?
    /// Whether our colour gives way to a sphere that shows it (set `chosen` for `--color`).
    public var colors = ColorYield(chosen: false)
    /// Publishes and browses the field by DNS-SD (`_spherenet._udp`, Protocol.md §11) while the
    /// runner runs; nil without DNS-SD.
    public var dnssd: FieldDNSSD?

    /// `wander`: a headless participant (`--bot`) that drifts around the field by itself.
    public init(reactor: Reactor, daemon: Daemon, field: FieldShell, front: FieldFront, wander: Bool) {
        self.reactor = reactor
        self.daemon = daemon
        self.field = field
        self.front = front
        if wander { wanderer = Wanderer(random: SystemRandomNumberGenerator()) }
        lifecycle = RunnerLifecycle(reactor: reactor)
    }

    /// The exit status once `run` returns: 130 after Ctrl-C, else 0.
    public var exitStatus: Int32 { lifecycle.exitStatus }

    /// Runs until the player quits or a signal arrives.
    public func run(notices: [String] = []) throws(NetError) {
        defer { front.stop() }
        try lifecycle.start { [unowned self] deadline, done in depart(deadline: deadline, then: done) }
        daemon.onPresence = { [unowned self] event in field.presence(event) }
        daemon.onEvent = { [unowned self] event in
            // One daemon, one game here: the field. Say no at once rather than let it lapse.
            if case .invited = event { try? daemon.command(.decline) }
        }
        field.onEvent = { [unowned self] event in field.show(event, on: front, colors: colors) }
        front.onCommand = { [unowned self] command in handle(command) }
        front.show(.ready(field.core.local, port: field.port))
        for n in notices { front.show(.notice(n)) }
        try front.start(reactor: reactor)
        field.start(peers: daemon.presencePeers)
        dnssd?.onNotice = { [unowned self] in front.show(.notice($0)) }
        dnssd?.start(name: daemon.config.name.value, id: daemon.config.instanceID, fieldPort: field.port)
        if wanderer != nil { wander() }
        try lifecycle.run()
    }

    private func handle(_ command: FieldCommand) {
        guard !field.carryOut(command, on: front, colors: &colors) else { return }
        switch command {
        case .quit: lifecycle.quit()
        case .interrupt: lifecycle.interrupt()
        case .help: front.show(.help(FieldCommand.helpText))
        case .stats: front.show(.stats(field.core.counters))
        case .lobby: front.show(.error(code: "bad-command", message: "no lobby here: tictac play has one (f opens the field there)"))
        case .move, .goto, .color: break // carried out above
        }
    }

    /// Ten steps a second along a drifting heading, bouncing off the edges.
    private func wander() {
        guard !lifecycle.leaving, var w = wanderer else { return }
        let (dx, dy) = w.step(x: field.core.local.x, y: field.core.local.y)
        wanderer = w
        handle(.move(dx: dx, dy: dy))
        reactor.schedule(after: .milliseconds(100)) { [weak self] in self?.wander() }
    }

    /// FIELD_LEAVE to every participant, LEAVE and GOODBYE, a moment to flush.
    private func depart(deadline: Duration, then done: @escaping () -> Void) {
        field.leave()
        dnssd?.stop()
        // The counters once at the end, for scripts and tests (the full screen only puts them
        // in its status line, which stop() clears).
        front.show(.stats(field.core.counters))
        front.stop()
        daemon.leave(within: deadline, then: done)
    }
}

/// The bot's walk: a velocity that turns a little at random each step and bounces off the edges.
struct Wanderer {
    var random: any RandomNumberGenerator
    var vx: Int32 = 12
    var vy: Int32 = 7

    /// -3...3, uniformly enough for a walk.
    private mutating func turn() -> Int32 { Int32(random.next() % 7) - 3 }

    mutating func step(x: Int32, y: Int32) -> (Int32, Int32) {
        vx = min(20, max(-20, vx + turn()))
        vy = min(20, max(-20, vy + turn()))
        if x + vx < 0 || x + vx > 999 { vx = -vx }
        if y + vy < 0 || y + vy > 999 { vy = -vy }
        return (vx, vy)
    }
}
