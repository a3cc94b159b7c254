import TicTacAPI
import TicTacTime
import TicTacWire

// What a ready link carries, and what its end leaves behind.
extension DaemonCore {
    /// A message on a ready link.
    func receive(_ message: Message, on link: Link, now: Instant) {
        switch message {
        case .hello: outbox.fail(link, .unexpectedMessage, "second HELLO")
        case .proof: outbox.fail(link, .unexpectedMessage, "PROOF after the handshake")
        case let .error(code, text): outbox.peerError(link, code, text, blame: stallBlame(now))
        case let .ping(nonce):
            var limit = config.maxPingsPerSecond
            // Queued while we were stopped, read at once: each link's backlog is allowed, and
            // the per-address budget (links from one host add up) waits out the window.
            let backlog = stall.map { now <= $0.blameUntil } ?? false
            if limit > 0, backlog, let s = stall { limit += s.backlog }
            guard limit == 0 || link.floods.pings.count(now: now, limit: limit) else {
                return outbox.fail(link, .unexpectedMessage, "PING flood: more than \(limit) in one second (Protocol.md §6)")
            }
            let perAddress = config.maxPingsPerAddressPerSecond
            guard perAddress == 0 || backlog || pingsBy.count(link.address, now: now, limit: perAddress) else {
                return outbox.fail(link, .unexpectedMessage,
                                   "PING flood: more than \(perAddress) in one second from \(link.address) (Protocol.md §6)")
            }
            outbox.send(link, .pong(nonce: nonce))
        case .pong: break // any frame counts as life; lastHeard is already updated
        case .leave:
            link.peerLeft = true
            link.closeReason = DaemonEvent.leftReason(link.peer?.name ?? "the peer")
            outbox.close(link.id, flush: false)
        case let .invite(invite):
            // A watcher's link only watches (Protocol.md §14).
            if spectators.isWatcher(link) { return outbox.send(link, .decline(gameID: invite.gameID, reason: .busy)) }
            invitations.received(invite, on: link, now: now)
        case let .accept(gameID): invitations.accepted(gameID, on: link, now: now)
        case let .decline(gameID, reason): invitations.declined(gameID, reason: reason, on: link)
        case let .cancel(gameID): invitations.cancelled(gameID, on: link, now: now)
        case let .resume(r): suspensions.received(r, on: link, now: now)
        case .reset, .rollCommit, .roll, .rollAck, .move, .resign, .timeUp: matches.received(message, on: link, now: now)
        case .announce, .query, .goodbye, .sphere, .fieldLeave:
            outbox.fail(link, .unexpectedMessage, "\(message.kind) belongs in a UDP datagram")
        default:
            guard let part = messageParts.part(for: message.kind) else {
                return outbox.fail(link, .unexpectedMessage, "\(message.kind) is not taken on a stream")
            }
            part.received(message, on: link, now: now)
        }
    }

    func linkClosed(_ id: LinkID, reason: String, now: Instant) {
        suspensions.linkGone(id, now: now)
        for part in messageParts.all { part.linkGone(id) }
        guard let link = links[id] else { return }
        // A handshake that was taking over an announced link counts as that link.
        guard let peer = link.peer ?? link.heir else { links.remove(id); return }
        let announced = link.announced || link.heir != nil
        let why = link.closeReason ?? stallBlame(now).map { "\($0); \(reason)" } ?? reason
        // Another link to the peer carries on (Protocol.md §4, duplicate links): a ready one, else
        // one whose HELLO names the peer and whose PROOF is on its way.
        let others = links.links(to: peer.id).filter { $0 !== link }
        let successor = others.first { $0.provenID == peer.id && !$0.closing }
            ?? others.first { $0.claimedID == peer.id && !$0.closing }
        let peerStays = !announced || successor != nil
        // What the link carried ends with it, except our own invitation, which moves.
        if link.incomingInvite != nil || link.heldInvite != nil, peerStays { outbox.emit(.inviteCancelled(by: peer)) }
        bot?.stopEngine(link) // a game kept to resume gets a new engine, told the position with BOARD
        if link.match != nil, !suspensions.keep(link, peer: peer, reason: why, now: now) {
            // First: a game the close ends is then recorded as it ended. One a resuming peer
            // keeps but we could not is void here (never claimed later; §13).
            matches.stopped(link, as: peer.capabilities.contains(.resume) && config.capabilities.contains(.resume) ? .void : .interrupted)
            matches.linkClosed(link, deliberate: link.faulted || link.peerLeft, now: now)
            spectators.sync(game: link) // a forfeit's end is told before the link goes
            outbox.emit(.disconnected(peer, reason: why))
        }
        if let successor { invitations.move(from: link, to: successor) }
        if let game = link.game, !others.isEmpty || config.keepsHistory { lobby.scores[peer.id] = game.score }
        links.remove(id)
        if others.isEmpty { // without a history the score is kept while some link to the peer remains
            if !config.keepsHistory { lobby.scores[peer.id] = nil }
            bot?.wants.remove(peer.id)
        }
        guard announced else { return }
        if let successor {
            if successor.ready {
                successor.announce()
                invitations.botInviteIfWanted(peer.id, now: now)
            } else {
                successor.inherit(peer)
            }
            return
        }
        // Another of its links is closing too: the last one to close reports the peer's end.
        if let other = others.first(where: { $0.provenID == peer.id }) { return other.announce() }
        lobby.linkGone(peer, reason: why)
    }
}
