#if canImport(Glibc)
import Glibc
#endif
import TicTacNet
import TicTacTime
import TicTacWire
import TicTacDiscoveryCore

/// Broadcast discovery's I/O shell: one UDP socket on the discovery port, the interfaces read
/// afresh before every send, and a timer on the reactor; DiscoveryCore decides everything.
/// DNS-SD sightings are fed to the same core (`core`), so the daemon sees one presence table.
public final class BroadcastDiscovery {
    /// Protocol.md §7's default port.
    public static let defaultPort: UInt16 = 51515

    public let reactor: Reactor
    public private(set) var core: DiscoveryCore
    /// Presence changes, for the daemon.
    public var onEvent: (DiscoveryEvent) -> Void = { _ in }
    /// Called when broadcast discovery starts or stops having a LAN interface to send on
    /// (loopback aside): the player is told when the network comes and goes, not at every send.
    public var onNetworkChange: (_ available: Bool, _ interfaces: [String]) -> Void = { _, _ in }

    private let port: UInt16
    private let only: Set<String>
    private var socket: UDPSocket?
    /// IPv6: the same datagrams to ff02::1 (all nodes) on each interface; nil where IPv6 is off.
    private var socket6: UDPSocket?
    private let timer: DeadlineTimer
    private var lanInterfaces: [String]?

    /// Binds the discovery port (shared with other daemons on this host). `interfaces` restricts
    /// sending to those interface names (empty: every suitable one, and loopback). With
    /// `broadcast` false no socket is opened: the presence table is fed by other sources only.
    public init(reactor: Reactor, local: LocalPresence, port: UInt16 = BroadcastDiscovery.defaultPort,
                interfaces: [String] = [], config: DiscoveryConfig = DiscoveryConfig(), broadcast: Bool = true,
                random: any RandomNumberGenerator) throws(NetError) {
        self.reactor = reactor
        timer = DeadlineTimer(reactor: reactor)
        self.port = port
        self.only = Set(interfaces)
        var config = config
        if !broadcast { config.announces = false }
        self.core = DiscoveryCore(local: local, config: config, random: random)
        timer.onFire = { [weak self] in
            guard let self else { return }
            core.handleTimeout(now: reactor.now)
            apply()
        }
        guard broadcast else { return }
        guard let any = SocketAddress(ip: "0.0.0.0", port: port) else { throw NetError("discovery address", errno: EINVAL) }
        socket = try UDPSocket(reactor: reactor, bind: any, maxDatagram: 2048) { [weak self] datagram in
            self?.received(datagram)
        }
        // Linux delivers ff02::1 to every socket bound to the port (IPV6_MULTICAST_ALL is on by
        // default), so no group is joined. No IPv6 on this host: IPv4 alone.
        if let any6 = SocketAddress(ip: "::", port: port) {
            socket6 = try? UDPSocket(reactor: reactor, bind: any6, maxDatagram: 2048) { [weak self] datagram in
                self?.received(datagram)
            }
        }
    }

    /// Announces and queries (Protocol.md §7).
    public func start() {
        core.handle(.start, now: reactor.now)
        apply()
    }

    /// The daemon's state, name or ports changed.
    public func update(_ local: LocalPresence) {
        core.handle(.update(local), now: reactor.now)
        apply()
    }

    /// Feeds a sighting from another source (DNS-SD) into the presence table.
    public func sighted(_ sighting: Sighting) {
        core.handle(.sighted(sighting), now: reactor.now)
        apply()
    }

    /// That source no longer sees the peer.
    public func unsighted(_ id: ID128, via source: PeerSources, reason: String) {
        core.handle(.unsighted(id, via: source, reason: reason), now: reactor.now)
        apply()
    }

    /// Says GOODBYE and closes the socket. Idempotent.
    public func stop() {
        guard let socket else { return }
        core.handle(.stop, now: reactor.now)
        apply()
        timer.cancel()
        socket.close()
        self.socket = nil
        socket6?.close()
        socket6 = nil
    }

    deinit { stop() }

    // MARK: - Private

    private func received(_ datagram: UDPSocket.Datagram) {
        core.handle(.datagram(datagram.bytes, from: datagram.source.ip), now: reactor.now)
        apply()
    }

    private func apply() {
        for action in core.pollActions() {
            switch action {
            case let .broadcast(bytes): send(bytes)
            case let .event(e): onEvent(e)
            }
        }
        rearm()
    }

    /// Sends to each suitable interface's directed broadcast address and to loopback's
    /// (Protocol.md §7). A failed send (an interface going down) waits for the next one.
    private func send(_ bytes: [UInt8]) {
        guard let socket else { return }
        let all = NetworkInterfaces.current()
        let lan = all.filter { $0.carriesBroadcast && !$0.isLoopback && (only.isEmpty || only.contains($0.name)) }
        var targets: [String] = []
        for i in lan { if let b = i.broadcast, !targets.contains(b) { targets.append(b) } }
        if only.isEmpty || only.contains("lo") { targets.append("127.255.255.255") }
        for t in targets {
            if let address = SocketAddress(ip: t, port: port) { socket.send(bytes, to: address) }
        }
        if let socket6 {
            // ff02::1 on each interface that is up, multicast-capable and has an IPv6 address.
            var names: [String] = []
            for i in all where i.family == .v6 && i.isUp && i.isMulticast && !i.isLoopback && !i.isPointToPoint
                && (only.isEmpty || only.contains(i.name)) && !names.contains(i.name) {
                names.append(i.name)
                if let address = SocketAddress(ip: "ff02::1%\(i.name)", port: port) { socket6.send(bytes, to: address) }
            }
        }
        let names = lan.map(\.name)
        if names != lanInterfaces { // the first send, and every change after it
            lanInterfaces = names
            onNetworkChange(!names.isEmpty, names)
        }
    }

    private func rearm() {
        timer.follow(socket == nil ? nil : core.pollTimeout())
    }
}
