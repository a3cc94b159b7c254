import Testing
import TicTacAPI
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

@Suite struct CoreRaceTests {
    private func net() -> CoreNet {
        var n = CoreNet(config("ann", seed: 31), config("ben", seed: 32))
        _ = n.connect(dialler: 0)
        n.settle()
        return n
    }

    /// ann invited ben and ben accepted: a match between them.
    private func netInMatch() throws -> CoreNet {
        var n = net()
        try n.command(0, .invite("ben"))
        n.settle()
        try n.command(1, .accept)
        n.settle()
        return n
    }

    private func isPlaying(_ g: GameSession?) -> Bool { g?.state == .myTurn || g?.state == .opponentTurn }

    /// Both in the lobby again, then a fresh match starts and reaches its first move.
    private func expectCleanLobbyAndNewMatch(_ n: inout CoreNet, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(n.errors.isEmpty, "\(n.errors)", sourceLocation: sourceLocation)
        #expect(n.cores[0].gameCount == 0 && n.cores[1].gameCount == 0, sourceLocation: sourceLocation)
        #expect(throws: Never.self, sourceLocation: sourceLocation) { try n.command(1, .invite("ann")) }
        n.settle()
        #expect(throws: Never.self, sourceLocation: sourceLocation) { try n.command(0, .accept) }
        n.settle()
        #expect(isPlaying(n.game(0)) && isPlaying(n.game(1)), sourceLocation: sourceLocation)
        #expect(n.errors.isEmpty, "\(n.errors)", sourceLocation: sourceLocation)
    }

    @Test func cancelCrossingAcceptLeavesBothInTheLobby() throws {
        var n = net()
        try n.command(0, .invite("ben"))
        n.settle()
        try n.command(1, .accept) // ben starts the game...
        try n.command(0, .cancel) // ...while ann withdraws: both before either hears the other
        n.settle()
        #expect(n.count(1) { if case .matchEnded(_, byUs: false) = $0 { true } else { false } } == 1)
        expectCleanLobbyAndNewMatch(&n)
    }

    @Test func inviteTimeoutCrossingAcceptLeavesBothInTheLobby() throws {
        var n = net()
        try n.command(0, .invite("ben"))
        n.settle()
        for _ in 0..<29 { // the link stays alive (PING / PONG) while nobody answers
            n.advance(by: .seconds(1))
            n.settle()
        }
        n.advance(by: .seconds(1)) // ann gives up and sends CANCEL...
        try n.command(1, .accept) // ...as ben accepts
        n.settle()
        #expect(n.count(0) { if case .declined(_, .noAnswer) = $0 { true } else { false } } == 1)
        expectCleanLobbyAndNewMatch(&n)
    }

    @Test func leavingAMatchFreesBothPlayers() throws {
        var n = try netInMatch()
        #expect(isPlaying(n.game(0)) && isPlaying(n.game(1)))
        // Whoever is to move plays while the other leaves: the MOVE crosses the CANCEL.
        let mover = n.game(0)?.state == .myTurn ? 0 : 1
        try n.command(mover, .move(4))
        try n.command(1 - mover, .leaveMatch)
        n.settle()
        #expect(n.count(1 - mover) { if case .matchEnded(_, byUs: true) = $0 { true } else { false } } == 1)
        #expect(n.count(mover) { if case .matchEnded(_, byUs: false) = $0 { true } else { false } } == 1)
        #expect(throws: CommandError.notInGame) { try n.command(0, .leaveMatch) }
        expectCleanLobbyAndNewMatch(&n)
    }

    @Test func theScoreCarriesOnIntoTheNextMatchWithTheSamePeer() throws {
        var n = try netInMatch()
        try n.command(0, .resign)
        n.settle()
        #expect(n.game(0)?.score == Score(lost: 1) && n.game(1)?.score == Score(won: 1))
        try n.command(1, .leaveMatch)
        n.settle()
        expectCleanLobbyAndNewMatch(&n)
        #expect(n.game(0)?.score == Score(lost: 1) && n.game(1)?.score == Score(won: 1))
        try n.command(1, .resign)
        n.settle()
        #expect(n.game(0)?.score == Score(won: 1, lost: 1) && n.game(1)?.score == Score(won: 1, lost: 1))
        // A peer that goes away takes its score along: if it comes back, it starts at 0-0-0.
        n.close(1)
        #expect(n.cores[0].linkCount == 0 && n.game(0) == nil)
        _ = n.connect(dialler: 0)
        n.settle()
        expectCleanLobbyAndNewMatch(&n)
        #expect(n.game(0)?.score == Score() && n.game(1)?.score == Score())
    }

    /// ben's second connection: core 0 has its HELLO and PROOF (a spare there: ann's id is the
    /// higher, so ann keeps it until ben closes one, Protocol.md §4), ben has not yet core 0's
    /// PROOF, so it keeps the link open.
    private func netWithSpare(annIsBot: Bool) -> (CoreNet, spare: LinkID) {
        let ben = config("ben", seed: 32)
        let annSeed = (31...).first { config("ann", seed: $0).instanceID > ben.instanceID } ?? 31
        var n = CoreNet(config("ann", seed: annSeed, bot: annIsBot ? .random : nil), ben)
        _ = n.connect(dialler: 1)
        n.settle()
        let spare = n.connect(dialler: 1)
        n.completeHandshake(spare, on: 0)
        return (n, spare)
    }

    @Test func linksClosingTogetherLeaveNoScoreBehind() throws {
        var (n, spare) = netWithSpare(annIsBot: true)
        #expect(n.cores[0].linkCount == 2)
        n.inject(.invite(Invite(gameID: ID128(high: 9, low: 9))), to: 0, link: spare)
        #expect(n.cores[0].gameCount == 1, "the bot plays on the spare")
        n.advance(by: .seconds(6)) // both links silent: one timeout closes both
        #expect(n.cores[0].linkCount == 0)
        #expect(n.cores[0].rememberedScores == 0, "nobody left to keep a score for")
        let ends = n.events[0].compactMap { e -> String? in
            switch e {
            case .peerLost: "peer-lost"
            case .disconnected: "disconnected"
            default: nil
            }
        }
        #expect(ends == ["disconnected", "peer-lost"], "the game's end, then the peer's, once each")
    }

    @Test func anInvitationEndsWithItsLinkAndPeerLostSaysWhy() throws {
        var (n, spare) = netWithSpare(annIsBot: false)
        n.inject(.invite(Invite(gameID: ID128(high: 9, low: 9))), to: 0, link: spare)
        #expect(n.count(0) { if case .invited = $0 { true } else { false } } == 1)
        n.close(spare) // the peer stays (its first link): the invitation is withdrawn
        #expect(n.count(0) { if case .inviteCancelled = $0 { true } else { false } } == 1)
        try n.command(1, .invite("ann"))
        n.settle()
        n.close(1) // the peer goes: peer-lost alone, not a "withdrew" before it
        #expect(n.count(0) { if case .inviteCancelled = $0 { true } else { false } } == 1)
        #expect(n.count(0) { if case .peerLost = $0 { true } else { false } } == 1)
    }

    /// An invitation nobody answers lapses on the invitee's side too, if the inviter's CANCEL
    /// never comes (Protocol.md §6, INVITE): declined `no-answer`, the player told, free again.
    @Test func anUnansweredIncomingInvitationLapses() throws {
        var n = net()
        n.inject(.invite(Invite(gameID: ID128(high: 7, low: 7))), to: 1, link: 1) // ann's, CANCEL lost
        #expect(n.count(1) { if case .invited = $0 { true } else { false } } == 1)
        for _ in 0..<31 {
            n.advance(by: .seconds(1))
            n.settle()
        }
        #expect(n.count(1) { if case .inviteExpired = $0 { true } else { false } } == 0, "not before 32 s")
        n.advance(by: .seconds(1))
        #expect(n.count(1) { if case .inviteExpired = $0 { true } else { false } } == 1)
        #expect(throws: CommandError.noInvitation) { try n.command(1, .accept) }
        #expect(n.cores[1].presenceState == .idle)
        expectCleanLobbyAndNewMatch(&n)
    }

    @Test func bothLeavingAtOnceIsQuiet() throws {
        var n = try netInMatch()
        try n.command(0, .leaveMatch)
        try n.command(1, .leaveMatch)
        n.settle()
        expectCleanLobbyAndNewMatch(&n)
    }

    /// Dialling each other at once: one side completes one handshake and (maybe) invites on that
    /// link before the other link's handshake completes; every order of that. One link stays,
    /// the peer is found once on each side, and the invitation survives.
    @Test(arguments: [(0, 1), (0, 2), (1, 1), (1, 2)], [false, true])
    func dialingEachOtherAtOnceKeepsOneLinkAndTheInvitation(first: (side: Int, link: LinkID), invite: Bool) throws {
        var n = CoreNet(config("ann", seed: 31), config("ben", seed: 32))
        _ = n.connect(dialler: 0)
        _ = n.connect(dialler: 1)
        n.completeHandshake(first.link, on: first.side) // one handshake completes (on one side)
        if invite, let peer = n.cores[first.side].peers.first { try n.command(first.side, .invite(peer.name)) }
        n.deliver(to: first.side) // then the other, on the same side
        n.settle()
        let first = first.side
        #expect(n.errors.isEmpty, "\(n.errors)")
        #expect(n.cores[0].linkCount == 1 && n.cores[1].linkCount == 1)
        #expect(n.closed.count == 1)
        for i in 0..<2 {
            #expect(n.count(i) { if case .peerFound = $0 { true } else { false } } == 1)
            #expect(n.count(i) { if case .peerLost = $0 { true } else { false } } == 0)
        }
        if invite {
            #expect(n.count(1 - first) { if case .invited = $0 { true } else { false } } == 1)
            try n.command(1 - first, .accept)
            n.settle()
            #expect(isPlaying(n.game(0)) && isPlaying(n.game(1)))
            #expect(n.errors.isEmpty, "\(n.errors)")
        }
    }

    @Test func aPeerThatDialsTwiceKeepsOneLinkAndIsNeverLost() throws {
        var n = CoreNet(config("ann", seed: 31), config("ben", seed: 32))
        _ = n.connect(dialler: 0)
        _ = n.connect(dialler: 0)
        n.settle()
        #expect(n.errors.isEmpty, "\(n.errors)")
        #expect(n.cores[0].linkCount == 1 && n.cores[1].linkCount == 1)
        for i in 0..<2 {
            #expect(n.count(i) { if case .peerFound = $0 { true } else { false } } == 1)
            #expect(n.count(i) { if case .peerLost = $0 { true } else { false } } == 0)
        }
        expectCleanLobbyAndNewMatch(&n)
    }
}
