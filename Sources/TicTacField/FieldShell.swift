#if canImport(Glibc)
import Glibc
#endif
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacNet
import TicTacTime
import TicTacWire
import TicTacFieldCore

/// The field's I/O shell: one UDP socket (it sends and receives, Protocol.md §11), a timer on the
/// reactor, and the presence table's events turned into participants. FieldCore decides the rest.
public final class FieldShell {
    public let reactor: Reactor
    public private(set) var core: FieldCore
    /// What the front shows.
    public var onEvent: (FieldEvent) -> Void = { _ in }
    /// The UDP port the field listens on (the one to announce), on IPv4 and IPv6 alike.
    public let port: UInt16

    private var socket: UDPSocket?
    /// IPv6 on the same port, for participants heard at IPv6 (link-local, scoped) addresses
    /// (Protocol.md §11); nil where IPv6 is off or the address bound is a specific one.
    private var socket6: UDPSocket?
    private let timer: DeadlineTimer
    /// Participants' endpoints parsed once, not at every send (the text form is the core's).
    private var resolved: [FieldEndpoint: SocketAddress] = [:]

    /// Binds a UDP socket on `address` (IPv4 wildcard by default) and a kernel-chosen port; with
    /// the IPv4 wildcard, also `[::]` on the same port (IPV6_V6ONLY), tried on a few ports until
    /// both are free. Neither socket shares its port (no SO_REUSEPORT): a participant's datagrams
    /// must reach this field and no other.
    public init(reactor: Reactor, core: FieldCore, address: String = "0.0.0.0", port: UInt16 = 0) throws(NetError) {
        self.reactor = reactor
        timer = DeadlineTimer(reactor: reactor)
        self.core = core
        guard let bind = SocketAddress(ip: address, port: port) else { throw NetError("field address \(address)", errno: EINVAL) }
        var received: (UDPSocket.Datagram) -> Void = { _ in }
        var s = try UDPSocket(reactor: reactor, bind: bind, maxDatagram: 2048, shared: false) { received($0) }
        var s6: UDPSocket?
        if address == "0.0.0.0" {
            for attempt in 0..<8 {
                guard let any6 = SocketAddress(ip: "::", port: s.port) else { break }
                do {
                    s6 = try UDPSocket(reactor: reactor, bind: any6, maxDatagram: 2048, shared: false) { received($0) }
                    break
                } catch {
                    // IPv6 off (EAFNOSUPPORT, EADDRNOTAVAIL): IPv4 alone. The port taken on IPv6,
                    // and ours to choose: another pair.
                    guard error.errno == EADDRINUSE, port == 0, attempt < 7 else { break }
                    s.close()
                    s = try UDPSocket(reactor: reactor, bind: bind, maxDatagram: 2048, shared: false) { received($0) }
                }
            }
        }
        socket = s
        socket6 = s6
        self.port = s.port
        received = { [weak self] datagram in self?.received(datagram) }
        timer.onFire = { [weak self] in
            guard let self else { return }
            self.core.handleTimeout(now: self.reactor.now)
            self.apply()
        }
    }

    /// True when the field also listens on IPv6.
    public var hasIPv6: Bool { socket6 != nil }

    /// True for a presence peer that takes part in the field (Protocol.md §11).
    public static func isParticipant(_ peer: PresencePeer) -> Bool {
        peer.capabilities.contains(.field) && peer.fieldPort != 0 && !peer.addresses.isEmpty
    }

    /// Starts sending (to the participants among `peers`, and those presence reports later).
    public func start(peers: [PresencePeer] = []) {
        for p in peers { presence(.found(p)) }
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        core.countFrom(wallClockMillis: UInt64(max(0, t.tv_sec)) * 1000 + UInt64(max(0, t.tv_nsec)) / 1_000_000)
        core.handle(.start, now: reactor.now)
        apply()
    }

    /// Feeds a presence-table change: participants are added, updated and removed.
    public func presence(_ event: DiscoveryEvent) {
        switch event {
        case let .found(p), let .updated(p):
            if Self.isParticipant(p) {
                core.handle(.participant(p.id, addresses: p.addresses, port: p.fieldPort), now: reactor.now)
            } else {
                core.handle(.participantGone(p.id), now: reactor.now)
            }
        case let .lost(p, _):
            core.handle(.participantGone(p.id), now: reactor.now)
        }
        apply()
    }

    public func move(dx: Int32, dy: Int32) {
        core.perform(.move(dx: dx, dy: dy), now: reactor.now)
        apply()
    }

    public func moveTo(x: Int32, y: Int32) {
        core.perform(.moveTo(x: x, y: y), now: reactor.now)
        apply()
    }

    public func setColor(_ color: RGB) {
        core.perform(.setColor(color), now: reactor.now)
        apply()
    }

    /// Says FIELD_LEAVE to every participant and closes the socket. Idempotent.
    public func leave() {
        guard socket != nil else { return }
        core.handle(.leave, now: reactor.now)
        apply()
        timer.cancel()
        closeSockets()
    }

    /// Says FIELD_LEAVE to every participant and stops sending; the socket stays, and `start`
    /// joins again with the sequence carried on (so receivers that remember the FIELD_LEAVE,
    /// Protocol.md §11, accept what follows).
    public func stopSending() {
        core.handle(.leave, now: reactor.now)
        apply()
    }

    /// Closes the socket without a word, as a crash would (for tests of expiry).
    public func vanish() {
        timer.cancel()
        closeSockets()
    }

    private func closeSockets() {
        socket?.close()
        socket = nil
        socket6?.close()
        socket6 = nil
    }

    deinit { vanish() }

    // MARK: - Private

    private func received(_ d: UDPSocket.Datagram) {
        core.handle(.datagram(d.bytes, from: FieldEndpoint(address: d.source.ip, port: d.source.port)), now: reactor.now)
        apply()
    }

    private func apply() {
        for action in core.pollActions() {
            switch action {
            case let .send(bytes, to):
                // An address of another family, or one that cannot be reached now: the next
                // heartbeat tries again (Protocol.md §11: no acks, no retries).
                guard let address = socketAddress(to) else { break }
                (address.family == .v6 ? socket6 : socket)?.send(bytes, to: address)
            case let .event(e):
                onEvent(e)
            }
        }
        rearm()
    }

    private func socketAddress(_ e: FieldEndpoint) -> SocketAddress? {
        if let a = resolved[e] { return a }
        guard let a = SocketAddress(ip: e.address, port: e.port) else { return nil }
        if resolved.count >= 1024 { resolved = [:] } // bounded: participants come and go
        resolved[e] = a
        return a
    }

    private func rearm() {
        timer.follow(socket == nil ? nil : core.pollTimeout())
    }
}
