#if canImport(Glibc)
import Glibc
#endif
import TicTacNet
import TicTacTime
import TicTacWire
import TicTacDiscoveryCore

/// The presence table's I/O shell: the one place a daemon's peers are kept (DiscoveryCore's
/// table), fed by broadcast discovery's socket when broadcast is on and by every DNS-SD agent
/// attached to it (each through `DNSSDSightings`, the one adapter); a timer on the reactor.
/// Without broadcast (`--no-broadcast`) the service still exists: no socket, the same table.
public final class PresenceService {
    /// Protocol.md §7's default port.
    public static let defaultPort: UInt16 = 51515

    public let reactor: Reactor
    public private(set) var core: DiscoveryCore
    /// Presence changes, for the daemon.
    public var onEvent: (DiscoveryEvent) -> Void = { _ in }
    /// Lines for a debug log: a DNS-SD instance that is not a peer, and why.
    public var onDebug: (String) -> Void = { _ in }
    /// What we announce changed (`update`): a DNS-SD TXT record follows it from here.
    public var onLocalChange: (LocalPresence) -> Void = { _ in }
    /// Called when broadcast discovery starts or stops having a LAN interface to send on
    /// (loopback aside): the player is told when the network comes and goes, not at every send.
    public var onNetworkChange: (_ available: Bool, _ interfaces: [String]) -> Void = { _, _ in } {
        didSet { broadcast?.onNetworkChange = onNetworkChange }
    }

    private var broadcast: BroadcastSocket?
    private let timer: DeadlineTimer
    private var stopped = false
    /// The attached DNS-SD agents' adapters, by agent.
    private var sightings: [ObjectIdentifier: DNSSDSightings] = [:]

    /// A table for `local`. With `broadcast`, binds the discovery `port` (shared with other
    /// daemons on this host); `interfaces` restricts sending to those names (empty: every
    /// suitable one, and loopback). With `broadcast` false no socket is opened, nothing is
    /// announced, and the table is fed by DNS-SD (and any other source) alone. `key` (the
    /// identity's, its id `local.id`) signs our ANNOUNCE and GOODBYE (Protocol.md §7).
    public init(reactor: Reactor, local: LocalPresence, port: UInt16 = PresenceService.defaultPort,
                interfaces: [String] = [], config: DiscoveryConfig = DiscoveryConfig(), broadcast: Bool = true,
                key: PresenceKey? = nil, random: any RandomNumberGenerator) throws(NetError) {
        self.reactor = reactor
        timer = DeadlineTimer(reactor: reactor)
        var config = config
        if !broadcast { config.announces = false }
        core = DiscoveryCore(local: local, config: config, key: key, wallClockMillis: Self.wallClockMillis(), random: random)
        timer.onFire = { [weak self] in
            guard let self else { return }
            core.handleTimeout(now: reactor.now)
            apply()
        }
        reactor.whenStalled { [weak self] length in self?.handle(.stalled(length)) } // not the peers' silence
        guard broadcast else { return }
        self.broadcast = try BroadcastSocket(reactor: reactor, port: port, interfaces: interfaces) { [weak self] datagram in
            self?.handle(.datagram(datagram.bytes, from: datagram.source.ip))
        }
    }

    /// Milliseconds since the Unix epoch: where our signed timestamps start (Protocol.md §7).
    private static func wallClockMillis() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return UInt64(max(0, t.tv_sec)) * 1000 + UInt64(max(0, t.tv_nsec)) / 1_000_000
    }

    /// Every peer present, sorted by name then id.
    public var peers: [PresencePeer] { core.peers }

    /// What this daemon announces about itself.
    public var local: LocalPresence { core.local }

    /// True when broadcast discovery has its socket (not `--no-broadcast`, not stopped).
    public var broadcasts: Bool { broadcast != nil }

    /// Announces and queries (Protocol.md §7); without broadcast, nothing goes out.
    public func start() { handle(.start) }

    /// The daemon's state, name or ports changed.
    public func update(_ local: LocalPresence) {
        let changed = local != core.local
        handle(.update(local))
        if changed, !stopped { onLocalChange(local) }
    }

    /// Feeds one input to the table (a sighting from a source the service does not hold itself).
    /// Nothing is taken after `stop`.
    public func handle(_ input: DiscoveryInput) {
        guard !stopped else { return }
        core.handle(input, now: reactor.now)
        apply()
    }

    /// Feeds what `agent` sees of `service` into the table, through the one DNS-SD adapter;
    /// `onNotice` gets its other events (`.registered`, `.unavailable`). The agent's start, TXT
    /// updates and stop stay with the caller.
    public func attach(_ agent: DNSSDAgent, service: DNSSDService, onNotice: @escaping (DNSSDEvent) -> Void = { _ in }) {
        let key = ObjectIdentifier(agent)
        sightings[key] = DNSSDSightings(service: service)
        agent.onEvent = { [weak self] event in
            guard let self, !stopped else { return }
            switch event {
            case .up, .down:
                for input in sightings[key]?.inputs(for: event) ?? [] { core.handle(input, now: reactor.now) }
                apply()
            case .registered, .unavailable:
                onNotice(event)
            case let .dropped(name, reason):
                onDebug("DNS-SD \(service.type) instance \"\(name)\" is not a peer: \(reason)")
            }
        }
    }

    /// Takes every peer `agent` reported out of the table (its views: another source's stay),
    /// each with "name: `reason`": an agent says nothing after it stops.
    public func forgetSightings(of agent: DNSSDAgent, reason: String) {
        let inputs = sightings[ObjectIdentifier(agent)]?.forgetAll(reason: reason) ?? []
        for input in inputs { handle(input) }
    }

    /// Says GOODBYE, closes the socket, and takes nothing more. Idempotent.
    public func stop() {
        guard !stopped else { return }
        handle(.stop)
        stopped = true
        timer.cancel()
        broadcast?.close()
        broadcast = nil
    }

    deinit { stop() }

    // MARK: - Private

    private func apply() {
        for action in core.pollActions() {
            switch action {
            case let .broadcast(bytes): broadcast?.send(bytes)
            case let .event(e): onEvent(e)
            }
        }
        timer.follow(stopped ? nil : core.pollTimeout())
    }
}
