import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// The core with a history (`keepsHistory`): what it hands the shell to store, in what order,
/// and scores that outlive a link.
@Suite struct HistoryCoreTests {
    func keeping(_ name: String, seed: UInt64, scores: [ID128: Score] = [:]) -> DaemonConfig {
        var c = config(name, seed: seed)
        c.keepsHistory = true
        c.scores = scores
        return c
    }

    func inMatch(_ a: DaemonConfig, _ b: DaemonConfig) throws -> CoreNet {
        var n = CoreNet(a, b)
        _ = n.connect(dialler: 0)
        n.settle()
        try n.command(0, .invite(b.name.value))
        n.settle()
        try n.command(1, .accept)
        n.settle()
        return n
    }

    @Test func aPlayedGameIsRecordedOnBothSidesUnderOneKey() throws {
        var n = try inMatch(keeping("ann", seed: 41), keeping("ben", seed: 42))
        while let g0 = n.game(0), let g1 = n.game(1), g0.state == .myTurn || g1.state == .myTurn {
            let side = g0.state == .myTurn ? 0 : 1
            try n.command(side, .move(try #require(n.game(side)?.board.emptyCells.first)))
            n.settle()
        }
        let keys = n.records.map { $0.compactMap { if case let .decided(_, k, _) = $0.fact { k } else { nil } } }
        #expect(keys[0].count == 1 && keys[0] == keys[1])
        #expect(n.records[0].allSatisfy { $0.peer == n.cores[1].config.instanceID && $0.peerName == "ben" })
        #expect(n.records[1].allSatisfy { $0.peer == n.cores[0].config.instanceID && $0.number == 1 })
        let moves0 = n.records[0].filter { if case .moved = $0.fact { true } else { false } }
        #expect(moves0.count == n.game(0)?.moves.count && moves0.count >= 5)
        #expect(n.records[0].contains { if case .ended = $0.fact { true } else { false } })
    }

    @Test func theMoveIsHandedToTheShellBeforeItsFrame() throws {
        var n = try inMatch(keeping("ann", seed: 43), keeping("ben", seed: 44))
        let side = n.game(0)?.state == .myTurn ? 0 : 1
        _ = n.cores[side].pollActions() // what settling left
        try n.cores[side].perform(.move(4), now: n.now)
        let actions = n.cores[side].pollActions()
        let recordAt = try #require(actions.firstIndex { if case .record(let r) = $0, case .moved(_, 4, true) = r.fact { true } else { false } })
        let sendAt = try #require(actions.firstIndex { if case .send = $0 { true } else { false } })
        #expect(recordAt < sendAt)
    }

    @Test func aGameCutMidwayIsRecordedInterrupted() throws {
        var n = try inMatch(keeping("ann", seed: 45), keeping("ben", seed: 46))
        let link = try #require(n.wires.keys.first)
        n.close(link)
        for i in 0...1 { #expect(n.records[i].last?.fact == .interrupted) }
    }

    @Test func withoutAHistoryNothingIsHandedOver() throws {
        var n = try inMatch(config("ann", seed: 47), config("ben", seed: 48))
        try n.command(0, .resign)
        n.settle()
        #expect(n.records[0].isEmpty && n.records[1].isEmpty)
    }

    @Test func scoresFromTheHistoryCarryIntoTheFirstMatchAndOutliveTheLink() throws {
        let benID = config("ben", seed: 50).instanceID
        var n = try inMatch(keeping("ann", seed: 49, scores: [benID: Score(won: 3, lost: 1, drawn: 2)]),
                            keeping("ben", seed: 50))
        #expect(n.game(0)?.score == Score(won: 3, lost: 1, drawn: 2))
        try n.command(0, .resign)
        n.settle()
        #expect(n.game(0)?.score == Score(won: 3, lost: 2, drawn: 2))
        n.close(try #require(n.wires.keys.first))
        try n.startMatch()
        #expect(n.game(0)?.score == Score(won: 3, lost: 2, drawn: 2))
    }
}
