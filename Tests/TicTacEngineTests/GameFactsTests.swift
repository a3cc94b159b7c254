import Testing
import TicTacEngine
import TicTacTime
import TicTacWire

/// The history's facts (`recordsFacts`): what a game queues for the store, and in what order.
@Suite struct GameFactsTests {
    func recordingPair(seedA: UInt64 = 1, seedB: UInt64 = 2) -> Pair {
        var pair = Pair(seedA: seedA, seedB: seedB)
        pair.a.recordsFacts = true
        pair.b.recordsFacts = true
        return pair
    }

    func moves(_ facts: [GameFact]) -> [(Int, Int, Bool)] {
        facts.compactMap { if case let .moved(n, c, us) = $0 { (n, c, us) } else { nil } }
    }

    @Test func bothSidesRecordTheSameKeyMovesAndMirroredResult() throws {
        var p = recordingPair()
        p.start()
        while let side = p.sideToMove {
            try p.move(try #require((side ? p.a.board : p.b.board).emptyCells.first))
        }
        let keysA = p.factsA.compactMap { if case let .decided(_, k, _) = $0 { k } else { nil } }
        let keysB = p.factsB.compactMap { if case let .decided(_, k, _) = $0 { k } else { nil } }
        #expect(keysA.count == 1 && keysA == keysB)
        #expect(p.a.key == keysA.first)
        let firstA = p.factsA.compactMap { if case let .decided(f, _, _) = $0 { f } else { nil } }
        let firstB = p.factsB.compactMap { if case let .decided(f, _, _) = $0 { f } else { nil } }
        #expect(firstA.count == 1 && firstA.map { !$0 } == firstB)
        // The same cells in the same order, each side's own moves marked ours.
        let ma = moves(p.factsA), mb = moves(p.factsB)
        #expect(ma.count == p.a.moves.count && ma.count >= 5)
        #expect(ma.map(\.0) == Array(1...ma.count))
        #expect(ma.map(\.1) == mb.map(\.1) && ma.map(\.1) == p.a.moves)
        #expect(zip(ma, mb).allSatisfy { $0.2 != $1.2 })
        let endA = p.factsA.compactMap { if case let .ended(r, h) = $0 { (r, h) } else { nil } }
        let endB = p.factsB.compactMap { if case let .ended(r, h) = $0 { (r, h) } else { nil } }
        #expect(endA.count == 1 && endB.count == 1)
        let mirror: [GameResult: GameResult] = [.won: .lost, .lost: .won, .draw: .draw]
        #expect(endA.first.map { mirror[$0.0] } == endB.first.map(\.0))
        #expect(p.factsA.first == .started(number: 1))
    }

    @Test func ourMoveIsRecordedBeforeItsFrame() throws {
        var p = recordingPair()
        p.start()
        let side = try #require(p.sideToMove as Bool?)
        var s = side ? p.a : p.b
        _ = s.pollActions()
        try s.perform(.move(4), now: p.now)
        let actions = s.pollActions()
        let recordAt = try #require(actions.firstIndex { if case .record(.moved(_, 4, true), _) = $0 { true } else { false } })
        let sendAt = try #require(actions.firstIndex { if case .send(.move(4)) = $0 { true } else { false } })
        #expect(recordAt < sendAt)
    }

    @Test func aResignationIsRecordedBeforeItsFrameAndTheOtherSideRecordsTheWin() throws {
        var p = recordingPair()
        p.start()
        let side = try #require(p.sideToMove as Bool?)
        var s = side ? p.a : p.b
        _ = s.pollActions()
        try s.perform(.resign, now: p.now)
        let actions = s.pollActions()
        let recordAt = try #require(actions.firstIndex { if case .record(.ended(.lost, how: .resigned), _) = $0 { true } else { false } })
        let sendAt = try #require(actions.firstIndex { $0 == .send(.resign) })
        #expect(recordAt < sendAt)
        #expect(actions.filter { if case .record(.ended, _) = $0 { true } else { false } }.count == 1)
    }

    @Test func aClockThatRunsOutIsRecordedAsTimeNotResigned() throws {
        var p = Pair(a: GameSession(rng: SplitMix64(seed: 1), moveTime: .seconds(10)),
                     b: GameSession(rng: SplitMix64(seed: 2), moveTime: .seconds(10)))
        p.a.recordsFacts = true
        p.b.recordsFacts = true
        p.start()
        let aMoves = try #require(p.sideToMove as Bool?)
        p.advance(to: p.now + .seconds(11))
        let loser = aMoves ? p.factsA : p.factsB
        let winner = aMoves ? p.factsB : p.factsA
        #expect(loser.contains(.ended(.lost, how: .time)))
        #expect(winner.contains(.ended(.won, how: .time)))
    }

    @Test func withoutAHistoryNoFactIsQueued() throws {
        var p = Pair()
        p.start()
        try p.move(try #require(p.sideToMove.map { $0 ? p.a.board : p.b.board }?.emptyCells.first))
        #expect(p.factsA.isEmpty && p.factsB.isEmpty)
    }

    @Test func theKeyDependsOnBothCommitmentsNotTheirOrder() {
        let x = [UInt8](repeating: 1, count: 32), y = [UInt8](repeating: 2, count: 32), z = [UInt8](repeating: 3, count: 32)
        #expect(GameKey.make(x, y) == GameKey.make(y, x))
        #expect(GameKey.make(x, y) != GameKey.make(x, z))
        let k = GameKey.make(x, y)
        #expect(GameKey.digest(key: k, moves: [1, 2]) != GameKey.digest(key: k, moves: [2, 1]))
        #expect(GameKey.digest(key: k, moves: [1, 2]).count == 32)
    }

    /// Protocol.md §13's vectors.
    @Test func theKeyAndDigestMatchTheSpec() {
        let key = GameKey.make([UInt8](repeating: 1, count: 32), [UInt8](repeating: 2, count: 32))
        #expect(key.description == "836b3153921e914e6a2c838524849c58")
        let quick = GameKey.make([UInt8](repeating: 2, count: 32), [UInt8](repeating: 1, count: 32), quick: true)
        #expect(quick.description == "21a36c54b65c66d7826154151b1daa09") // Protocol.md §13, a quick roll's key
        let game = ID128(high: 0xfedc_ba98_7654_3210, low: 0x0123_4567_89ab_cdef)
        let hex = GameKey.digest(key: game, moves: [4, 0]).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(hex == "9894de2762ada4ce3fdd2e0e0fce9ef68a23f660b33d62491fe648b3a6d961b4")
    }
}
