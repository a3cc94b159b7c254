import Testing
import TicTacEngine
import TicTacWire
import TicTacTime

/// The front is given the score a game carries from its start (issue: a resumed game read
/// 0-0-0 on the side that came back until it ended, though the history had the score).
@Suite struct ScoreShownTests {
    func scores(_ game: inout GameSession) -> [Score] {
        var out: [GameAction] = []
        game.pollActions(into: &out)
        return out.compactMap { if case let .show(.score(s)) = $0 { s } else { nil } }
    }

    @Test func aResumedGameShowsItsScoreWithItsStart() throws {
        let carried = Score(won: 2, lost: 1, drawn: 3)
        var game = try GameSession(restoring: .classic, key: ID128(high: 1, low: 1), weMovedFirst: true, moves: [4],
                                   moveTime: 0, round: 4, score: carried, rng: SplitMix64(seed: 1))
        game.showResumed()
        #expect(scores(&game) == [carried])
    }

    @Test func aMatchThatCarriesAScoreShowsItAtItsFirstGameOnly() throws {
        let carried = Score(won: 1)
        var a = GameSession(rng: SplitMix64(seed: 2), score: carried)
        var b = GameSession(rng: SplitMix64(seed: 3))
        var now = Instant.zero
        a.handle(.start, now: now)
        b.handle(.start, now: now)
        // Deliver frames both ways until both have started the game.
        var shownA: [Score] = [], shownB: [Score] = []
        for _ in 0..<10 {
            var outA: [GameAction] = [], outB: [GameAction] = []
            a.pollActions(into: &outA)
            b.pollActions(into: &outB)
            for action in outA {
                if case let .send(m) = action { b.handle(.received(m), now: now) }
                if case let .show(.score(s)) = action { shownA.append(s) }
            }
            for action in outB {
                if case let .send(m) = action { a.handle(.received(m), now: now) }
                if case let .show(.score(s)) = action { shownB.append(s) }
            }
            now = now + .milliseconds(10)
        }
        #expect(a.state == .myTurn || a.state == .opponentTurn)
        #expect(shownA == [carried], "the carried score, once, with the first game's start")
        #expect(shownB.isEmpty, "a match from 0-0-0 says nothing before its first result")
    }
}
