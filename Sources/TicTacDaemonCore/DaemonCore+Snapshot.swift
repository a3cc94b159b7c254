import TicTacAPI
import TicTacTime

extension DaemonCore {
    /// What a front that attaches to a running daemon needs to show where our player is, as the
    /// events it would have seen (docs/control.md): the lobby, then the seat (an invitation out
    /// or waiting, the game in play with its board and clock, or the game waiting for its peer).
    public func snapshot(now: Instant) -> [DaemonEvent] {
        var events = peers.map { DaemonEvent.peerFound($0) }
        switch links.seat {
        case .idle:
            break
        case let .dialling(id, _):
            if let peer = peers.first(where: { $0.id == id }) { events.append(.inviteSent(to: peer)) }
        case let .inviting(id):
            if let peer = links[id]?.peer { events.append(.inviteSent(to: peer)) }
        case let .invited(id):
            if let link = links[id], let peer = link.peer, let invite = link.incomingInvite {
                events.append(.invited(by: peer, size: invite.size))
            }
        case let .playing(id):
            if let link = links[id], let peer = link.peer, let game = link.game {
                events += game.snapshot(now: now).map { .game($0, opponent: peer) }
            }
        case let .suspended(id):
            if let kept = suspensions.games[id] {
                events += kept.match.game.snapshot(now: now).map { .game($0, opponent: kept.peer) }
                if let until = kept.until {
                    events.append(.gameInterrupted(kept.peer, window: max(.zero, until - now), reason: "the link is down"))
                } else {
                    events.append(.gameAdjourned(kept.peer))
                }
            }
        }
        return events
    }
}
