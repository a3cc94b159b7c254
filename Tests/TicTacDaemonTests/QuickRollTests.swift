import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// Quick rolls (Protocol.md §8, capability bit 7): between two daemons that both set the bit a
/// game opens with ROLL_COMMIT (no RESET) and each side decides on the peer's ROLL (no ROLL_ACK).
@Suite struct QuickRollTests {
    private func quick(_ name: String, seed: UInt64, _ on: Bool = true) -> DaemonConfig {
        var c = config(name, seed: seed)
        if on { c.capabilities.insert(.quickRoll) }
        return c
    }

    /// ann invites ben and ben accepts; nothing else is delivered when `settled` is false.
    private func invited(_ n: inout CoreNet, settled: Bool = true) throws -> LinkID {
        let link = n.connect(dialler: 0)
        n.settle()
        try n.command(0, .invite("ben"))
        n.settle()
        try n.command(1, .accept)
        if settled { n.settle() }
        return link
    }

    private static func isReset(_ m: Message) -> Bool { if case .reset = m { true } else { false } }
    private static func isAck(_ m: Message) -> Bool { if case .rollAck = m { true } else { false } }
    private static func isRoll(_ m: Message) -> Bool { if case .roll = m { true } else { false } }

    /// Both set the bit: each side sends ROLL_COMMIT and ROLL only, and both reach the same
    /// decision (one moves first with O, the other waits with X), game after game.
    @Test func bothQuickRollWithoutResetOrAck() throws {
        var n = CoreNet(quick("ann", seed: 81), quick("ben", seed: 82))
        _ = try invited(&n)
        for game in 1...3 {
            let a = try #require(n.game(0)), b = try #require(n.game(1))
            #expect(a.round == game && b.round == game)
            #expect(Set([a.state, b.state]) == [.myTurn, .opponentTurn], "game \(game): \(a.state) \(b.state)")
            #expect(a.piece == b.piece.opponent && a.piece != .empty)
            #expect(a.rolls.map { [$0.yours, $0.theirs] } == b.rolls.map { [$0.theirs, $0.yours] })
            try n.command(a.state == .myTurn ? 0 : 1, .resign)
            n.settle()
            n.advance(by: .seconds(3)) // both rematches start; each side's commitment opens its game
            n.settle()
        }
        for i in 0...1 {
            #expect(!n.sent(i).contains(where: Self.isReset) && !n.sent(i).contains(where: Self.isAck))
            #expect(n.sent(i).count(where: Self.isRoll) == 4) // three games and the fourth's roll
        }
        #expect(n.events.joined().allSatisfy { if case .protocolError = $0 { false } else { true } })
    }

    /// One side without the bit: both roll the long way (RESET, ROLL_ACK), and decide alike.
    @Test(arguments: [0, 1])
    func withoutTheBitOnBothSidesTheRollKeepsResetAndAck(without: Int) throws {
        var n = CoreNet(quick("ann", seed: 83, without != 0), quick("ben", seed: 84, without != 1))
        _ = try invited(&n)
        let a = try #require(n.game(0)), b = try #require(n.game(1))
        #expect(Set([a.state, b.state]) == [.myTurn, .opponentTurn])
        for i in 0...1 { #expect(n.sent(i).contains(where: Self.isReset) && n.sent(i).contains(where: Self.isAck)) }
    }

    /// A RESET or a ROLL_ACK on a quick link is `unexpected-message`; after our ROLL went out
    /// it is the peer's forfeit, as any fault then (§8).
    @Test(arguments: [Message.reset, .rollAck(value: 7)])
    func aResetOrAnAckOnAQuickLinkIsRefused(message: Message) throws {
        var n = CoreNet(quick("ann", seed: 85), quick("ben", seed: 86))
        let link = try invited(&n, settled: false)
        n.deliver(to: 0) // ann reads ACCEPT and ben's commitment: it commits and reveals
        #expect(n.game(0)?.state == .rollingDice)
        #expect(n.sent(0).contains(where: Self.isRoll))
        n.inject(message, to: 0, link: link)
        #expect(n.sent(0).contains { if case let .error(code, _) = $0 { code == ErrorCode.unexpectedMessage.rawValue } else { false } })
        #expect(n.events[0].contains { if case .game(.left(yours: false, inRoll: true), _) = $0 { true } else { false } })
        #expect(n.events[0].contains { if case .game(.gameOver(.won, nil, false), _) = $0 { true } else { false } })
    }

    /// A RESET in a game in play is a fault on either kind of link, and the peer's forfeit
    /// (Protocol.md §8: any message the state does not allow, once our ROLL is out).
    @Test(arguments: [false, true])
    func aResetInPlayIsTheSendersForfeit(quick: Bool) throws {
        var n = CoreNet(self.quick("ann", seed: 89, quick), self.quick("ben", seed: 90, quick))
        let link = try invited(&n)
        #expect(n.game(0)?.state == .myTurn || n.game(0)?.state == .opponentTurn)
        n.inject(.reset, to: 0, link: link)
        #expect(n.sent(0).contains { if case let .error(code, _) = $0 { code == ErrorCode.unexpectedMessage.rawValue } else { false } })
        #expect(n.events[0].contains { if case .game(.gameOver(.won, nil, false), _) = $0 { true } else { false } })
    }

    /// A second ROLL_COMMIT in one game opens no second round: `unexpected-message`.
    @Test func aSecondCommitmentInOneGameIsRefused() throws {
        var n = CoreNet(quick("ann", seed: 87), quick("ben", seed: 88))
        let link = try invited(&n, settled: false)
        n.deliver(to: 0)
        n.inject(.rollCommit(commitment: Array(repeating: 9, count: 32), moveTime: 0), to: 0, link: link)
        #expect(n.sent(0).contains { if case let .error(code, _) = $0 { code == ErrorCode.unexpectedMessage.rawValue } else { false } })
    }

    /// The cut quick rolls add (§13): the side that read the peer's ROLL decided and moved first,
    /// while the peer never read that side's ROLL. Its RESUME gives its secret beside the one
    /// move; the peer decides from it and takes the move: one game, both histories agree.
    @Test func aCutAfterTheFirstMoverDecidedAndMovedIsDecidedOnTheOtherSideToo() throws {
        var found = false
        for seed in stride(from: UInt64(1), through: 41, by: 2) where !found { // odd: two players, no bot
            var sim = try ResultSimulation(seed: seed, quick: true)
            try sim.playOneGameToItsEnd()
            sim.n.advance(by: .seconds(3)) // both rematches start: the two ROLL_COMMITs in flight
            sim.n.deliver(to: 0) // ann holds both commitments: its ROLL leaves
            sim.n.deliver(to: 1) // ben reads ann's commitment and ROLL: it reveals and decides
            guard sim.n.game(1)?.state == .myTurn, sim.n.game(0)?.state == .rollingDice else { continue }
            found = true
            try sim.n.command(1, .move(4))
            sim.cutEveryLink() // ben's ROLL and MOVE are lost
            #expect(sim.n.cores[0].waitingGames == 1, "ann keeps the roll undecided")
            let before = sim.n.records[0].count
            let problem = sim.run(steps: 0)
            #expect(problem == nil, "\(problem ?? "")")
            let annMoves = sim.n.records[0][before...].compactMap { if case let .moved(k, c, byUs) = $0.fact { [k, c, byUs ? 1 : 0] } else { nil } }
            #expect(annMoves.contains([1, 4, 0]), "ann took ben's first move from RESUME: \(annMoves)")
        }
        #expect(found, "no seed in 1...41 gave ben the first move")
    }

    /// The same cut after ben decided, and then ended the game itself (it resigned, at once or
    /// after its first move), before the link was lost; `restart`: ben is killed and started
    /// again from its history before the link comes back. Ben's RESUME for the ended game gives
    /// its secret too, so ann decides and takes the resignation: one result on both sides.
    @Test(arguments: [false, true], [false, true])
    func aCutAfterTheDeciderEndedTheGameIsSettledOnBothSides(moveFirst: Bool, restart: Bool) throws {
        var found = false
        for seed in stride(from: UInt64(1), through: 61, by: 2) where !found {
            var sim = try ResultSimulation(seed: seed, quick: true)
            try sim.playOneGameToItsEnd()
            sim.n.advance(by: .seconds(3))
            sim.n.deliver(to: 0)
            sim.n.deliver(to: 1)
            let state = sim.n.game(1)?.state
            guard sim.n.game(0)?.state == .rollingDice, moveFirst ? state == .myTurn : state == .opponentTurn else { continue }
            found = true
            if moveFirst { try sim.n.command(1, .move(4)) }
            try sim.n.command(1, .resign)
            sim.cutEveryLink() // ben's ROLL, and all after it, lost
            if restart { sim.restart(1) }
            let before = sim.n.records[0].count
            let problem = sim.run(steps: 0)
            #expect(problem == nil, "\(problem ?? "")")
            let annEnds = sim.n.records[0][before...].compactMap { if case let .ended(r, _) = $0.fact { r } else { nil } }
            #expect(annEnds.first == .won, "ann took ben's resignation: \(annEnds)")
        }
        #expect(found, "no seed in 1...61 gave that decision")
    }
}
