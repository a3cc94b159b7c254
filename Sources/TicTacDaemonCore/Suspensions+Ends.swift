import TicTacEngine
import TicTacTime
import TicTacWire

// How a held game ends on a RESUME: a final move applied apart, abandonment, settled, forgotten.
extension Suspensions {
    /// The peer's move we never read ended the game: applied and recorded with no seat taken.
    func endApart(_ s: Suspended, peerMove cell: Int, on link: Link, now: Instant) {
        do { try s.match.game.resume(peerMove: cell, now: now) } catch { return outbox.fail(link, error.code, error.text) }
        flushFacts(s)
        settled(s, on: link)
    }

    /// The peer disowned a game we hold: an honest peer holds every game it played (its store
    /// keeps it, §13), so it gave this one up. Ours, told as such; forgotten, nothing rewritten.
    /// A peer without capability `rollResume` plays by the older rules, under which an honest
    /// side could answer "unknown" (a roll cut it counted as a forfeit): the game is void there.
    func abandoned(_ s: Suspended, _ why: String, on link: Link, now: Instant) {
        guard link.peer?.capabilities.contains(.rollResume) == true else {
            s.match.game.interrupt()
            outbox.append(.record(GameFactRecord(.void, of: s.match, peer: s.peer.id, peerName: s.peer.name)))
            outbox.emit(.gameVoid(s.peer, reason: why))
            return forget(s.peer.id)
        }
        outbox.emit(.gameAbandoned(s.peer, reason: why))
        s.match.game.peerAbandoned(now: now)
        flushFacts(s)
        forget(s.peer.id)
    }

    /// The game ended on the peer's RESUME: kept among the ended games, so a peer that lost our
    /// answer with the link and asks again is told our side, never "unknown".
    func settled(_ s: Suspended, on link: Link) {
        s.match.noteEnd()
        if let last = s.match.lastEnded { ended.keep(last, peer: s.peer.id, address: link.address, settled: true, offeredOn: link.id) }
        forget(s.peer.id)
    }

    func forget(_ peer: ID128) {
        games[peer] = nil
        links.suspensionEnded(peer)
    }

    /// Facts the paused game queued (a resignation apart) go to the history.
    func flushFacts(_ s: Suspended) {
        var actions: [GameAction] = []
        s.match.game.pollActions(into: &actions)
        for case let .record(fact, key) in actions {
            var r = GameFactRecord(fact, of: s.match, peer: s.peer.id, peerName: s.peer.name)
            r.key = key
            outbox.append(.record(r))
        }
        for case let .show(event) in actions where config.gameEvents.contains(event.kind) {
            outbox.emit(.game(event, opponent: s.peer))
        }
    }
}
