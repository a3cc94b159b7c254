import Testing
import TicTacEngine
import TicTacDiscoveryCore
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// Games that outlive their link (Protocol.md §13), on cores joined by in-memory links whose
/// delivery the test controls: the link is cut at every point of a game, with the frames in
/// flight lost, and the same game must go on to the same end on both sides.
@Suite struct ResumeCoreTests {
    /// ann and ben (both able to resume) in a game, its first move decided.
    func inGame(ann: DaemonConfig? = nil, ben: DaemonConfig? = nil) throws -> CoreNet {
        var n = CoreNet(ann ?? resuming("ann", seed: 61), ben ?? resuming("ben", seed: 62))
        try n.startMatch()
        return n
    }

    /// The side to move, or nil.

    func lastLink(_ n: CoreNet) throws -> LinkID { try #require(n.wires.keys.filter { !n.closed.contains($0) }.max()) }

    func reconnect(_ n: inout CoreNet) {
        _ = n.connect(dialler: 1)
        n.settle()
    }

    func interrupted(_ n: CoreNet, _ i: Int) -> Int {
        n.count(i) { if case .gameInterrupted = $0 { true } else { false } }
    }

    func resumed(_ n: CoreNet, _ i: Int) -> Int {
        n.count(i) { if case .gameResumed(_, false, _) = $0 { true } else { false } }
    }

    /// A player busy elsewhere when the peer comes back answers "busy"; once it is free it
    /// offers the game again on the same link, and the game goes on (no new link needed).
    @Test func aBusyAnswerIsFollowedByAnOfferOnceThePlayerIsFree() throws {
        var n = try inGame()
        try n.play(moves: 2)
        n.close(try lastLink(n))
        // ann adjourns it and goes to invite someone else: her seat is taken.
        try n.command(0, .leaveMatch)
        let zed = PresencePeer(id: ID128(high: 9, low: 9), name: "zed", addresses: ["198.18.0.9"], port: 50_000,
                               capabilities: [.tictactoe], versions: 1...1, state: .idle, via: .broadcast)
        n.presence(0, .found(zed))
        try n.command(0, .invite("zed"))
        reconnect(&n)
        let busy = n.sent(0).compactMap { m -> Resume? in if case let .resume(r) = m { r } else { nil } }
        #expect(busy.last?.status == .busy, "\(busy)")
        #expect(resumed(n, 0) == 0 && resumed(n, 1) == 0)
        // ann gives up on zed: free again, she offers the game on the link that is there.
        try n.command(0, .cancel)
        n.advance(by: .milliseconds(1))
        n.settle()
        #expect(resumed(n, 0) == 1 && resumed(n, 1) == 1)
        try n.play(moves: 9)
        #expect(n.errors.isEmpty, "\(n.errors)")
    }

    @Test func aCutGameIsKeptOnBothSidesAndGoesOnWhenTheLinkIsBack() throws {
        var n = try inGame()
        try n.play(moves: 3)
        let before = try #require(n.game(0)?.moves)
        n.close(try lastLink(n))
        #expect(interrupted(n, 0) == 1 && interrupted(n, 1) == 1)
        #expect(n.count(0) { if case .disconnected = $0 { true } else { false } } == 0)
        #expect(n.cores[0].presenceState == .playing && n.cores[0].seatFault == nil)
        reconnect(&n)
        #expect(resumed(n, 0) == 1 && resumed(n, 1) == 1)
        #expect(n.game(0)?.moves == before && n.game(1)?.moves == before)
        try n.play(moves: 9)
        let a = try #require(n.game(0)), b = try #require(n.game(1))
        #expect(a.state == .done && b.state == .done && a.moves == b.moves)
        #expect(n.errors.isEmpty, "\(n.errors)")
        #expect(n.cores[0].seatFault == nil && n.cores[1].seatFault == nil)
    }

    /// Cut after every move of a game, the frames in flight lost or delivered, with either side
    /// to redial: the game always goes on and both sides end with the same moves and result.
    @Test(arguments: 0...7, [false, true])
    func everyCutPointResumesToTheSameEnd(after moves: Int, lostInFlight: Bool) throws {
        var n = try inGame()
        try n.play(moves: moves)
        if let side = n.mover, let board = n.game(side)?.board {
            // One more move is made; its MOVE is lost with the link, or reaches the peer first.
            let cell = try #require(CoreNet.script.first { board.emptyCells.contains($0) })
            try n.command(side, .move(cell))
            if !lostInFlight { n.settle() }
        }
        n.close(try lastLink(n))
        reconnect(&n)
        #expect(n.errors.isEmpty, "\(n.errors)")
        try n.play(moves: 9)
        // What each side recorded: every move once, in order, the same cells, mirrored results.
        let moved = n.records.map { $0.compactMap { if case let .moved(k, c, _) = $0.fact { (k, c) } else { nil } } }
        let ended = n.records.map { $0.compactMap { if case let .ended(r, _) = $0.fact { r } else { nil } } }
        #expect(moved[0].map(\.0) == Array(1...moved[0].count))
        #expect(moved[0].map(\.1) == moved[1].map(\.1) && moved[0].map(\.0) == moved[1].map(\.0))
        #expect(ended[0].count == 1 && ended[1].count == 1, "\(ended)")
        let mirror: [GameResult: GameResult] = [.won: .lost, .lost: .won, .draw: .draw]
        #expect(ended[0].first.flatMap { mirror[$0] } == ended[1].first)
        let abandoned = n.records.flatMap { $0 }.filter { $0.fact == .ended(.won, how: .abandoned) }
        #expect(abandoned.isEmpty, "\(abandoned)")
    }

    /// A peer that answers a forged digest, or "unknown", for a game both played has disowned
    /// it: the game is ours by abandonment, told as such, and no move is rewritten (§13).
    @Test(arguments: [false, true], [false, true])
    func aForgedDigestOrUnknownIsAbandonmentNotARewrite(unknown: Bool, olderRules: Bool) throws {
        var ann = resuming("ann", seed: 61), ben = resuming("ben", seed: 62)
        if !olderRules {
            ann.capabilities.insert(.rollResume)
            ben.capabilities.insert(.rollResume)
        }
        var n = try inGame(ann: ann, ben: ben)
        try n.play(moves: 2)
        let key = try #require(n.game(0)?.key)
        n.close(try lastLink(n))
        n.drop = { _, m in if case .resume = m { true } else { false } } // only the forged one arrives
        let link = n.connect(dialler: 1)
        n.settle()
        n.drop = nil
        let forged = unknown ? Resume(key: key, moves: 0, digest: Array(repeating: 0, count: 32), last: nil, status: .unknown)
                             : Resume(key: key, moves: 2, digest: Array(repeating: 7, count: 32), last: 0, status: .ready)
        n.inject(.resume(forged), to: 0, link: link)
        if olderRules {
            // A peer without `rollResume` could answer "unknown" honestly (a roll cut it counted
            // as a forfeit): void, as before.
            #expect(n.count(0) { if case .gameVoid = $0 { true } else { false } } == 1)
            #expect(n.records[0].last?.fact == .void)
        } else {
            #expect(n.count(0) { if case .gameAbandoned = $0 { true } else { false } } == 1)
            #expect(n.count(0) { if case .game(.gameOver(.won, _, _), _) = $0 { true } else { false } } == 1)
            #expect(n.records[0].last?.fact == .ended(.won, how: .abandoned))
        }
        #expect(n.records[0].filter { if case .moved = $0.fact { true } else { false } }.count == 2) // none rewritten
        #expect(n.cores[0].presenceState == .idle && n.cores[0].waitingGames == 0)
    }

    @Test func aReplayedResumeAfterTheGameWentOnIsAnErrorAndChangesNothing() throws {
        var n = try inGame()
        try n.play(moves: 2)
        let key = try #require(n.game(0)?.key), moves = try #require(n.game(0)?.moves)
        n.close(try lastLink(n))
        reconnect(&n)
        #expect(resumed(n, 0) == 1)
        let link = try lastLink(n)
        n.inject(.resume(Resume(key: key, moves: 2, digest: GameKey.digest(key: key, moves: moves), last: UInt16(moves[1]),
                                status: .ready)), to: 0, link: link)
        #expect(n.errors.contains { if case .protocolError(_, .unexpectedMessage, let m, true) = $0 { m.contains("RESUME") } else { false } })
        #expect(n.records[0].filter { if case .moved = $0.fact { true } else { false } }.count == 2)
    }

    @Test func aFloodOfResumesForUnknownGamesIsCutOff() throws {
        var n = CoreNet(resuming("ann", seed: 61), resuming("ben", seed: 62))
        let link = n.connect(dialler: 1)
        n.settle()
        for i in 0..<(Suspensions.maxPerLink + 2) {
            n.inject(.resume(Resume(key: ID128(high: 9, low: UInt64(i)), moves: 0, digest: Array(repeating: 0, count: 32), last: nil,
                                    status: .ready)), to: 0, link: link)
        }
        n.settle()
        // The first `maxPerLink` are answered `unknown`; the next closes the link.
        let answers = n.sent(0).filter { if case .resume(let r) = $0 { r.status == .unknown } else { false } }
        #expect(answers.count == Suspensions.maxPerLink)
        #expect(n.closed.contains(link))
    }

    @Test func aThirdDaemonThatKnowsTheKeyCannotTakeTheGame() throws {
        var n = CoreNet(resuming("ann", seed: 61), resuming("ben", seed: 62), resuming("eve", seed: 63))
        try n.startMatch()
        try n.play(moves: 2)
        let moves = try #require(n.game(0)?.moves)
        let key = try #require(n.game(0)?.key)
        n.close(try lastLink(n))
        let eve = n.connect(dialler: 2, to: 0)
        n.settle()
        n.inject(.resume(Resume(key: key, moves: 2, digest: GameKey.digest(key: key, moves: moves), last: UInt16(moves[1]), status: .ready)),
                 to: 0, link: eve)
        #expect(resumed(n, 0) == 0)
        #expect(n.cores[0].presenceState == .playing) // still waiting for ben
        // ben, back, takes it up.
        _ = n.connect(dialler: 1, to: 0)
        n.settle()
        #expect(resumed(n, 0) == 1 && n.game(0)?.moves == moves)
    }

    @Test func theWindowPassesTheGameIsAdjournedAndOfferedAgainLater() throws {
        var n = try inGame(ann: resuming("ann", seed: 61, window: .seconds(30)))
        try n.play(moves: 1)
        n.close(try lastLink(n))
        n.advance(by: .seconds(31))
        #expect(n.count(0) { if case .gameAdjourned = $0 { true } else { false } } == 1)
        #expect(n.cores[0].presenceState == .idle)
        #expect(n.records[0].last?.fact == .adjourned)
        reconnect(&n)
        #expect(resumed(n, 0) == 1 && resumed(n, 1) == 1)
    }

    @Test func thePlayerAdjournsWithLobbyAndIsFreeToPlayOthers() throws {
        var n = try inGame()
        try n.play(moves: 1)
        n.close(try lastLink(n))
        try n.command(0, .leaveMatch)
        #expect(n.cores[0].presenceState == .idle && n.cores[0].seatFault == nil)
        #expect(n.count(0) { if case .gameAdjourned = $0 { true } else { false } } == 1)
    }

    @Test func resigningApartIsALossAndThePeerLearnsItWhenBack() throws {
        var n = try inGame()
        try n.play(moves: 2)
        n.close(try lastLink(n))
        try n.command(0, .resign)
        #expect(n.records[0].last?.fact == .ended(.lost, how: .resigned))
        #expect(n.cores[0].presenceState == .idle)
        reconnect(&n)
        #expect(n.count(1) { if case .gameResumed(_, true, _) = $0 { true } else { false } } == 1)
        #expect(n.records[1].last?.fact == .ended(.won, how: .resigned))
    }

    @Test func quittingAdjournsTheGameAndThePeerWaits() throws {
        var n = try inGame()
        try n.play(moves: 2)
        n.leaveAll(0)
        #expect(n.records[0].last?.fact == .adjourned)
        #expect(interrupted(n, 1) == 1)
        #expect(!n.records[1].contains { if case .ended = $0.fact { true } else { false } })
    }

    @Test func quittingAgainstAPeerWithoutResumeGivesTheGameUpOnBothSides() throws {
        var old = config("ben", seed: 62)
        old.keepsHistory = true
        var n = try inGame(ben: old)
        try n.play(moves: 2)
        n.leaveAll(0)
        #expect(n.records[0].contains { if case .ended(.lost, _) = $0.fact { true } else { false } })
        #expect(n.records[1].contains { if case .ended(.won, _) = $0.fact { true } else { false } })
    }

    @Test func pastItsBoundALostGameEndsAsInVersionOne() throws {
        var ann = resuming("ann", seed: 61)
        ann.maxKeptGames = 1
        var n = CoreNet(ann, resuming("ben", seed: 62), resuming("cy", seed: 63))
        for other in [1, 2] {
            _ = n.connect(dialler: 0, to: other)
            n.settle()
            try n.command(0, .invite(other == 1 ? "ben" : "cy"))
            n.settle()
            try n.command(other, .accept)
            n.settle()
            try n.play(moves: 1)
            n.close(try lastLink(n))
            if other == 1 { try n.command(0, .leaveMatch) } // adjourned: ann is free to play cy
        }
        #expect(interrupted(n, 0) == 1, "the first game is kept, the second is not: the bound is 1")
        #expect(n.count(0) { if case .disconnected = $0 { true } else { false } } == 1)
    }

    @Test func aProtocolFaultEndsTheGameAsBefore() throws {
        var n = try inGame()
        try n.play(moves: 1)
        n.inject(.hello(Hello(instanceID: n.cores[1].config.instanceID, name: try DisplayName("ben"), capabilities: [],
                              publicKey: Array(repeating: 0, count: 32), nonce: ID128(high: 0, low: 1))), to: 0, link: try lastLink(n))
        n.settle()
        #expect(interrupted(n, 0) == 0)
        #expect(n.count(0) { if case .disconnected = $0 { true } else { false } } == 1)
    }

    @Test func aPeerThatCannotResumeLosesTheGameWithTheLinkAsInVersionOne() throws {
        var old = config("ben", seed: 62)
        old.keepsHistory = true
        var n = try inGame(ben: old)
        try n.play(moves: 1)
        n.close(try lastLink(n))
        #expect(interrupted(n, 0) == 0 && interrupted(n, 1) == 0)
        #expect(n.count(0) { if case .disconnected = $0 { true } else { false } } == 1)
    }
}
