import TicTacDaemonCore
import TicTacNet
import TicTacTime
import TicTacWire

/// Dialling: a peer's addresses tried in order, a named peer tried again with backoff, and a
/// failure told to the core (a peer it dialled) or to the player.
extension Daemon {
    /// Dials a peer; `connectFailed` is reported if that does not work.
    public func connect(to address: SocketAddress) { connect(to: [address]) }

    /// Dials a peer known by several addresses (a host name's getaddrinfo results), one at a
    /// time in order until one connects; `connectFailed` is reported once, when all have failed.
    public func connect(to addresses: [SocketAddress]) { connect(to: addresses, dialling: nil) }

    /// Dials a peer named by the user (`--connect`) until it answers: the first failure is
    /// reported, then it is tried again quietly after 1 s, 2 s, 4 s ... at most every 30 s, so a
    /// peer started later is still reached. Stops once a connection is made, or on `leave()`.
    /// `onConnected`: the link and address a connection was made on (`linkProgress` says what
    /// it comes to).
    public func keepConnecting(to addresses: [SocketAddress], delay: Duration = .seconds(1),
                               onConnected: ((LinkID, SocketAddress) -> Void)? = nil) {
        guard !leaving else { return }
        connect(to: addresses, dialling: nil, onConnected: onConnected) { [weak self] address, reason in
            guard let self, !self.leaving else { return }
            if delay == .seconds(1) {
                self.onEvent(.connectFailed(address, reason: reason + "; trying again in the background"))
            }
            self.reactor.schedule(after: delay) { [weak self] in
                self?.keepConnecting(to: addresses, delay: min(delay * 2, .seconds(30)), onConnected: onConnected)
            }
        }
    }

    /// `dialling`: the peer the core asked for; its failure goes back to the core. `onFailure`:
    /// the caller handles the failure instead (retries).
    func connect(to addresses: [SocketAddress], dialling peer: ID128?, since: Instant? = nil,
                         onConnected: ((LinkID, SocketAddress) -> Void)? = nil,
                         onFailure: ((String, String) -> Void)? = nil) {
        let since = since ?? reactor.now // when the dial began: a signed ANNOUNCE after it outweighs a refusal
        guard let address = addresses.first else {
            if let peer { core.handle(.dialFailed(peer, reason: "no usable address"), now: reactor.now) }
            return
        }
        let fallback = addresses.dropFirst()
        let id = nextLink
        nextLink += 1
        let conn: FrameConnection
        do {
            conn = try FrameConnection(reactor: reactor, connectingTo: address, decoder: FrameInbound())
        } catch {
            if !fallback.isEmpty { return connect(to: Array(fallback), dialling: peer, since: since, onConnected: onConnected, onFailure: onFailure) }
            failed(address.description, peer: peer, reason: .ioError(error), since: since, onFailure: onFailure)
            return
        }
        conn.onConnected = { [weak self] in
            guard let self else { return }
            tap?(id, reactor.now, .opened(outgoing: true, remote: address))
            core.handle(.linkOpened(id, outgoing: true, address: address.ip, port: address.port), now: reactor.now)
            apply()
            onConnected?(id, address)
        }
        wire(conn, id: id, fallback: Array(fallback), dialling: peer, since: since, onConnected: onConnected, onFailure: onFailure)
    }

    func failed(_ address: String, peer: ID128?, reason: CloseReason, since: Instant, onFailure: ((String, String) -> Void)?) {
        if let onFailure { return onFailure(address, reason.description) }
        if let peer {
            // Nothing listens where it was seen: it left (the table says so once, by name), unless it announced since.
            if reason.isRefused { presence?.handle(.refused(peer, since: since)) }
            core.handle(.dialFailed(peer, reason: reason.description), now: reactor.now)
            apply()
        } else {
            onEvent(.connectFailed(address, reason: reason.description))
        }
    }
}
