import Testing
import TicTacDiscoveryCore
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore

/// On a new link, RESUME goes before anything else (Protocol.md §13, "at once"): an invitation
/// waiting for its dial went out first, the peer accepted it, and the RESUME that followed
/// arrived in a roll: "RESUME during a game", the link closed, and the inviter counted a win by
/// forfeit (found by tools/lan/test-discovery: a player and a bot that had played before).
@Suite struct ResumeOrderTests {
    @Test func anInvitationWaitingForItsDialGoesAfterTheRESUME() throws {
        var ann = resuming("ann", seed: 71)
        let ben = resuming("ben", seed: 72, bot: .perfect) // accepts at once
        // ann restarted with a finished game against ben whose end ben may not have read: it is
        // offered (RESUME) on the next link to ben (Protocol.md §13).
        let end = EndedGame(key: ID128(high: 5, low: 5), moves: [4, 0, 8, 2, 6], weMovedFirst: true, resignedByUs: false,
                            match: ID128(high: 6, low: 6), size: .classic, number: 1)
        ann.restoredEnds = [RestoredEnd(peer: ben.instanceID, game: end)]
        var n = CoreNet(ann, ben)
        n.presence(0, .found(PresencePeer(id: ben.instanceID, name: "ben", addresses: ["198.18.0.2"], port: 50_000,
                                          capabilities: ben.capabilities, versions: 1...1, state: .idle, via: .broadcast)))
        try n.command(0, .invite("ben"))
        #expect(n.dials[0].count == 1)
        let link = n.connect(dialler: 0, to: 1) // the dial: RESUME, then the waiting INVITE
        n.settle()
        #expect(!n.closed.contains(link), "no fault closed the link")
        for i in 0..<2 {
            #expect(n.count(i) { if case .protocolError = $0 { true } else { false } } == 0, "core \(i): no ERROR")
            #expect(n.count(i) { if case .game(.gameOver, _) = $0 { true } else { false } } == 0, "core \(i): no game over")
        }
        #expect(n.game(0) != nil && n.count(0) { if case .game(.gameStarted, _) = $0 { true } else { false } } == 1,
                "the new game is on")
    }
}
