#if canImport(Glibc)
import Glibc
#endif
import TicTacDiscovery
import TicTacNet
import TicTacTime
import TicTacWire

/// The field's I/O shell: one UDP socket (it sends and receives, Protocol.md §11), a timer on the
/// reactor, and the presence table's events turned into participants. FieldCore decides the rest.
public final class FieldShell {
    public let reactor: Reactor
    public private(set) var core: FieldCore
    /// What the front shows.
    public var onEvent: (FieldEvent) -> Void = { _ in }
    /// The UDP port the field listens on (the one to announce).
    public let port: UInt16

    private var socket: UDPSocket?
    private var timer: (id: Reactor.TimerID, at: Instant)?

    /// Binds a UDP socket on `address` (IPv4 wildcard by default) and a kernel-chosen port.
    public init(reactor: Reactor, core: FieldCore, address: String = "0.0.0.0", port: UInt16 = 0) throws(NetError) {
        self.reactor = reactor
        self.core = core
        guard let bind = SocketAddress(ip: address, port: port) else { throw NetError("field address \(address)", errno: EINVAL) }
        var received: (UDPSocket.Datagram) -> Void = { _ in }
        let s = try UDPSocket(reactor: reactor, bind: bind, maxDatagram: 2048) { received($0) }
        socket = s
        self.port = s.port
        received = { [weak self] datagram in self?.received(datagram) }
    }

    /// True for a presence peer that takes part in the field (Protocol.md §11).
    public static func isParticipant(_ peer: PresencePeer) -> Bool {
        peer.capabilities.contains(.field) && peer.fieldPort != 0 && !peer.addresses.isEmpty
    }

    /// Starts sending (to the participants among `peers`, and those presence reports later).
    public func start(peers: [PresencePeer] = []) {
        for p in peers { presence(.found(p)) }
        core.start(now: reactor.now)
        apply()
    }

    /// Feeds a presence-table change: participants are added, updated and removed.
    public func presence(_ event: DiscoveryEvent) {
        switch event {
        case let .found(p), let .updated(p):
            if Self.isParticipant(p) {
                core.participant(p.id, addresses: p.addresses, port: p.fieldPort, now: reactor.now)
            } else {
                core.participantGone(p.id)
            }
        case let .lost(p, _):
            core.participantGone(p.id)
        }
        apply()
    }

    public func move(dx: Int32, dy: Int32) {
        core.move(dx: dx, dy: dy, now: reactor.now)
        apply()
    }

    public func moveTo(x: Int32, y: Int32) {
        core.moveTo(x: x, y: y, now: reactor.now)
        apply()
    }

    public func setColor(_ color: RGB) {
        core.setColor(color, now: reactor.now)
        apply()
    }

    /// Says FIELD_LEAVE to every participant and closes the socket. Idempotent.
    public func leave() {
        guard socket != nil else { return }
        core.leave()
        apply()
        if let timer { reactor.cancel(timer.id) }
        timer = nil
        socket?.close()
        socket = nil
    }

    /// Says FIELD_LEAVE to every participant and stops sending; the socket stays, and `start`
    /// joins again with the sequence carried on (so receivers that remember the FIELD_LEAVE,
    /// Protocol.md §11, accept what follows).
    public func stopSending() {
        core.leave()
        apply()
    }

    /// Closes the socket without a word, as a crash would (for tests of expiry).
    public func vanish() {
        if let timer { reactor.cancel(timer.id) }
        timer = nil
        socket?.close()
        socket = nil
    }

    deinit { vanish() }

    // MARK: - Private

    private func received(_ d: UDPSocket.Datagram) {
        core.received(d.bytes, from: FieldEndpoint(address: d.source.ip, port: d.source.port), now: reactor.now)
        apply()
    }

    private func apply() {
        for action in core.pollActions() {
            switch action {
            case let .send(bytes, to):
                // An address of another family, or one that cannot be reached now: the next
                // heartbeat tries again (Protocol.md §11: no acks, no retries).
                if let socket, let address = SocketAddress(ip: to.address, port: to.port) { socket.send(bytes, to: address) }
            case let .event(e):
                onEvent(e)
            }
        }
        rearm()
    }

    private func rearm() {
        let next = core.nextDeadline()
        if let timer, let next, timer.at <= next { return }
        if let timer { reactor.cancel(timer.id) }
        timer = nil
        guard let next, socket != nil else { return }
        let id = reactor.schedule(at: next) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.core.handleTimeout(now: self.reactor.now)
            self.apply()
        }
        timer = (id, next)
    }
}
