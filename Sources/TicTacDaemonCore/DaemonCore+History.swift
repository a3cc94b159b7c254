import TicTacWire

extension DaemonCore {
    /// The peer a link is to (proven, or claimed in its HELLO), if it has said.
    public func peer(of link: LinkID) -> ID128? { links[link]?.peerID }

    /// The history could not store a turn's facts for these peers' games, and the shell sent
    /// none of that turn's frames to them: each such game stops here, its link closed with
    /// nothing more sent and the game not kept in memory (it holds a move no store has). The
    /// peer keeps it interrupted (told "busy" when it asks); a restart with room takes it up from
    /// what was stored, which is all the peer ever read (Protocol.md §13).
    func historyFailed(_ peers: Set<ID128>) {
        for link in links.values where link.match != nil && !link.closing {
            guard let peer = link.peer, peers.contains(peer.id) else { continue }
            // The game in play, or the one whose end was in that turn (a rematch may have begun).
            let game = link.match?.game
            for key in [game?.resumeKey, game?.lastKey].compactMap({ $0 }) { suspensions.unstored.insert(key) }
            link.closeReason = "the history could not be written"
            bot?.stopEngine(link)
            links.setActivity(link, .idle)
            outbox.close(link.id, flush: false)
            outbox.emit(.gameAdjourned(peer))
            outbox.log("the game with \(peer.name) stops unsent: its moves could not be stored; "
                       + "it goes on when tictac restarts with room for its history")
        }
    }
}
