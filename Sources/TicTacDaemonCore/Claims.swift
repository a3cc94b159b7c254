import TicTacAPI
import TicTacEngine
import TicTacTime
import TicTacWire

extension Resume.Status {
    /// A claim, or an answer to one (Protocol.md §13).
    var isClaim: Bool { self == .claimed || self == .claimAccepted || self == .claimRefused }
}

// Claims (Protocol.md §13): a game whose peer stays away past the adjourn limit while our
// player is free is claimed, recorded won at once and offered as a claim on every link. The peer
// decides: a player in another game past its own limit loses it (status 5); one who is back and
// free, or who claimed too (both waited), refuses (status 6) and the game goes on.
extension Suspensions {
    /// When the game held in `s` is claimed if its peer is still away; nil when it cannot be:
    /// no limit, claimed already, not paused mid-game (a roll undecided, resigned apart), or a
    /// peer not known to take claims.
    func claimDue(_ s: Suspended) -> Instant? {
        guard config.adjournLimit > .zero, !s.claimed, s.match.game.pausedWithOurTurn != nil, takesClaims(s.peer) else { return nil }
        return max(s.claimAt ?? .zero, s.claimRetry ?? .zero)
    }

    /// The peer's capabilities as its old link, its announcement or a link now tell them.
    private func takesClaims(_ peer: PeerInfo) -> Bool {
        peer.capabilities.contains(.claims) || lobby.present[peer.id]?.capabilities.contains(.claims) == true
            || links.links(to: peer.id).contains { $0.peer?.capabilities.contains(.claims) == true }
    }

    /// The limit passed (a restored game starts its clock now): claimed when our player is free
    /// and no offer of ours awaits its answer, else looked at again shortly.
    func claim(_ s: Suspended, now: Instant) {
        guard let at = s.claimAt else { s.claimAt = now + config.adjournLimit; return }
        guard now >= at else { return }
        let elsewhere = busy(apartFrom: s.peer.id)
        guard !elsewhere, s.offeredOn == nil else { s.claimRetry = now + Self.redial; return }
        s.claimed = true
        s.until = nil
        links.suspensionEnded(s.peer.id)
        outbox.append(.record(GameFactRecord(.ended(.won, how: .claimed), of: s.match, peer: s.peer.id, peerName: s.peer.name)))
        outbox.emit(.gameClaimed(s.peer, won: true, reason: "\(s.peer.name) stayed away past the adjourn limit (\(config.adjournLimit.wholeSecondsRoundedUp) s)"))
        if let link = links.links(to: s.peer.id).first(where: { $0.ready && !$0.closing && $0.match == nil }) {
            linkReady(link, now: now)
        }
    }

    /// A RESUME about a claim: the answer to ours, or the peer's own claim (or its answer to one
    /// we no longer make, which changes nothing).
    func claimAnswered(_ s: Suspended, _ r: Resume, on link: Link, now: Instant) {
        let peer = s.peer
        if s.claimed {
            switch r.status {
            case .ready, .busy:
                return // the peer's offer crossed our claim: its answer follows
            case .claimAccepted, .resigned, .unknown:
                // It took the loss (or had resigned apart, or disowned the game): the win stands.
                if r.status != .unknown { recordMissing(s, r) }
                s.match.game.claimSettled(now: now)
                flushFacts(s)
                return settled(s, on: link)
            case .claimRefused, .claimed:
                // Back and free, or it waited and claimed too: nobody was left alone; it goes on.
                s.claimed = false
                s.claimAt = now + config.adjournLimit
                outbox.append(.record(GameFactRecord(.adjourned, of: s.match, peer: peer.id, peerName: peer.name)))
                outbox.emit(.claimWithdrawn(peer, reason: r.status == .claimed ? "\(peer.name) waited and claimed it too"
                                                                                 : "\(peer.name) is back and refuses the claim"))
                if r.status == .claimed { outbox.send(link, .resume(answer(s, .claimRefused))) }
                return linkReady(link, now: now)
            }
        }
        guard r.status == .claimed else { return }
        guard s.match.game.isPaused else {
            // We resigned apart: our offer (status 1) settles it on both sides.
            if s.offeredOn != link.id { linkReady(link, now: now) }
            recordMissing(s, r)
            return settled(s, on: link)
        }
        // Taken only by a player in another game whose own limit passed too: a claim made early
        // (a cut, then a claim at once) never takes a game from a side that stepped away briefly.
        let elsewhere = busy(apartFrom: peer.id)
        let due = s.claimAt.map { now >= $0 } ?? false
        guard elsewhere, due, s.match.game.pausedWithOurTurn != nil else {
            // Free, not yet past our own limit, or a roll waiting to decide: refused; our offer follows.
            outbox.send(link, .resume(answer(s, .claimRefused)))
            return linkReady(link, now: now)
        }
        let accepted = answer(s, .claimAccepted)
        recordMissing(s, r)
        s.match.game.lostByClaim(now: now)
        outbox.emit(.gameClaimed(peer, won: false, reason: "\(peer.name) waited past its adjourn limit while you were in another game"))
        flushFacts(s)
        outbox.send(link, .resume(accepted))
        settled(s, on: link)
    }

    /// Our RESUME with `status`: our list, as the offer tells it.
    private func answer(_ s: Suspended, _ status: Resume.Status) -> Resume {
        var r = offer(s)
        r.status = status
        return r
    }
}
