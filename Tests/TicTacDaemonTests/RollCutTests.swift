import Testing
import TicTacEngine
import TicTacStore
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// Claims outlive a restart (Protocol.md §13): a claim not yet answered is rebuilt from the
/// history and offered on the next link; refused there, it is withdrawn in the history too, and
/// the game is played out to one result on both sides.
@Suite struct ClaimRestartTests {
    @Test(arguments: [false, true])
    func aClaimKeptAcrossARestartIsWithdrawnWhenThePeerComesBackFree(restartBoth: Bool) throws {
        var sim = try ResultSimulation(seed: 21, limits: [.seconds(5), .seconds(3600)])
        try sim.playOneGameToItsEnd()
        sim.n.advance(by: .seconds(3)) // the rematch
        sim.n.settle()
        sim.cutEveryLink()
        sim.partition(seconds: 7)
        #expect(sim.n.count(0) { if case .gameClaimed(_, true, _) = $0 { true } else { false } } == 1)
        sim.restart(0)
        if restartBoth { sim.restart(1) }
        #expect(sim.n.cores[0].waitingGames == 1, "the claim is held again after the restart")
        let problem = sim.run(steps: 0)
        #expect(problem == nil, "\(problem ?? "")")
        #expect(sim.n.count(0) { if case .claimWithdrawn = $0 { true } else { false } } == 1)
        let claimedRows = try sim.stores[0].history(limit: 100).filter { $0.ending == GameEnding.claimed.rawValue }
        #expect(claimedRows.isEmpty, "\(claimedRows)")
    }
}

/// Cuts at each point of a rematch's roll, the frames in flight lost: one side may decide (it
/// read the peer's ROLL_ACK, or with quick rolls its ROLL) while the other never does (its own
/// ROLL_ACK, or the peer's ROLL, was lost). Both stores must still agree on every keyed game.
@Suite struct RollCutTests {
    /// Deliveries, one side at a time, before the cut; `quick`: rolls without RESET and ROLL_ACK.
    @Test(arguments: 0...6, [false, true])
    func aCutDuringTheRematchRollLeavesBothHistoriesAgreeing(deliveries: Int, quick: Bool) throws {
        var sim = try ResultSimulation(seed: 7, quick: quick)
        try sim.playOneGameToItsEnd()
        sim.n.advance(by: .seconds(3)) // both rematches start: RESET and ROLL_COMMIT in flight
        for d in 0..<deliveries { sim.n.deliver(to: d % 2) }
        sim.cutEveryLink()
        let problem = sim.run(steps: 0)
        // After two deliveries ben holds both reveals and acknowledged ann's, so it decides when
        // the link is lost; ann never read ben's ROLL: it keeps the roll and decides from the
        // secret in ben's RESUME (Protocol.md §13). Before, ann counted a forfeit and ben a void.
        #expect(problem == nil, "\(problem ?? "")")
    }

    /// The same cuts, then one side is killed and starts again from its store before the link
    /// comes back: a roll kept undecided is stored as its ROLL goes out, and rebuilt. `how`: the
    /// side killed (how % 2), with quick rolls from 2 on.
    @Test(arguments: 0...6, 0...3)
    func aCutDuringTheRollThenARestartLeavesBothHistoriesAgreeing(deliveries: Int, how: Int) throws {
        var sim = try ResultSimulation(seed: 11, quick: how >= 2)
        try sim.playOneGameToItsEnd()
        sim.n.advance(by: .seconds(3))
        for d in 0..<deliveries { sim.n.deliver(to: d % 2) }
        sim.cutEveryLink()
        sim.restart(how % 2)
        let problem = sim.run(steps: 0)
        #expect(problem == nil, "\(problem ?? "")")
        let kept = try sim.stores.map { try $0.history(limit: 100).filter { $0.secret != nil && $0.weMovedFirst == nil } }
        #expect(kept.allSatisfy { $0.isEmpty }, "a roll left undecided in a history: \(kept)")
    }

    /// A peer whose RESUME gives a secret that does not open its commitment is refused with
    /// `commitment-mismatch`, and the roll is forgotten: nothing recorded, nothing waiting.
    @Test func aSecretThatDoesNotOpenTheCommitmentIsRefused() throws {
        var sim = try ResultSimulation(seed: 7, quick: false)
        try sim.playOneGameToItsEnd()
        sim.n.advance(by: .seconds(3))
        for d in 0..<2 { sim.n.deliver(to: d % 2) } // ann holds both commitments, ben decided too
        sim.cutEveryLink()
        #expect(sim.n.cores[0].waitingGames == 1)
        sim.n.drop = { side, message in side == 0 && { if case .resume = message { true } else { false } }() }
        let link = sim.n.connect(dialler: 1)
        sim.n.settle()
        let honest = try #require(sim.n.sent(1).compactMap { m -> Resume? in if case let .resume(r) = m { r } else { nil } }.last)
        var forged = honest
        forged.secret?[19] ^= 1
        sim.n.drop = nil
        sim.n.inject(.resume(forged), to: 0, link: link)
        #expect(sim.n.sent(0).contains { if case let .error(code, _) = $0 { code == ErrorCode.commitmentMismatch.rawValue } else { false } })
        #expect(sim.n.cores[0].waitingGames == 0)
        _ = sim.run(steps: 0) // stores what each side recorded
        let rolls = try sim.stores[0].history(limit: 100).filter { $0.key == honest.key }
        #expect(rolls.isEmpty, "\(rolls)")
    }
}
