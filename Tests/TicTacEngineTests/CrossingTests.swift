import Testing
import TicTacEngine
import TicTacWire
import TicTacTime

/// Messages that cross on the wire at the end of a game (Protocol.md §8, "Crossing messages"):
/// both sides do something before either sees the other's message. Each case must end with no
/// protocol error, both sides agreeing on the result and score, and the next game unharmed.
@Suite struct CrossingTests {
    /// A started pair with side a to move.
    private func pairWithAToMove() -> Pair {
        for seed in UInt64(1)...50 {
            var p = Pair(seedA: seed, seedB: seed + 100)
            p.start()
            if p.sideToMove == true { return p }
        }
        return Pair()
    }

    private func mirrored(_ s: Score) -> Score { Score(won: s.lost, lost: s.won, drawn: s.drawn) }

    /// Both sides agree, then the next game is played to its end and both still agree.
    private func expectAgreementAndNextGame(_ p: inout Pair, _ scoreA: Score, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(p.failures.isEmpty, "\(p.failures)", sourceLocation: sourceLocation)
        #expect(p.a.score == scoreA, sourceLocation: sourceLocation)
        #expect(p.b.score == mirrored(scoreA), sourceLocation: sourceLocation)
        p.advance(to: p.now + .seconds(3))
        #expect(Set([p.a.state, p.b.state]) == [.myTurn, .opponentTurn], sourceLocation: sourceLocation)
        while p.sideToMove != nil {
            let board = p.sideToMove == true ? p.a.board : p.b.board
            guard let cell = (0..<board.size.cellCount).first(where: { board[$0] == .empty }) else { break }
            try? p.move(cell)
        }
        #expect(p.failures.isEmpty, "\(p.failures)", sourceLocation: sourceLocation)
        #expect(p.a.state == .done && p.b.state == .done, sourceLocation: sourceLocation)
        #expect(p.a.moves == p.b.moves && p.a.gamesPlayed == scoreA.won + scoreA.lost + scoreA.drawn + 1,
                sourceLocation: sourceLocation)
        #expect(p.a.score == mirrored(p.b.score), sourceLocation: sourceLocation)
    }

    @Test func winningMoveCrossesTheLosersResignation() throws {
        var p = pairWithAToMove()
        for cell in [0, 3, 1, 4] { try p.move(cell) }
        try p.a.perform(.move(2), now: p.now) // wins the top row
        try p.b.perform(.resign, now: p.now) // before b sees it
        p.pump()
        #expect(p.a.lastResult == .won && p.b.lastResult == .lost)
        expectAgreementAndNextGame(&p, Score(won: 1))
    }

    @Test func drawingMoveCrossesAResignationMakesADraw() throws {
        var p = pairWithAToMove()
        for cell in [4, 0, 2, 6, 3, 5, 1, 7] { try p.move(cell) }
        try p.a.perform(.move(8), now: p.now) // fills the board: a draw
        try p.b.perform(.resign, now: p.now)
        p.pump()
        #expect(p.a.lastResult == .draw && p.b.lastResult == .draw)
        #expect(p.shownB.last == .score(Score(drawn: 1)))
        expectAgreementAndNextGame(&p, Score(drawn: 1))
    }

    @Test func moveCrossesTheMoversOpponentResignation() throws {
        var p = pairWithAToMove()
        try p.a.perform(.move(4), now: p.now) // b has not seen it yet
        try p.b.perform(.resign, now: p.now)
        p.pump()
        #expect(p.a.lastResult == .won && p.b.lastResult == .lost)
        expectAgreementAndNextGame(&p, Score(won: 1))
    }

    @Test func newGameCrossesTheOpponentsMove() throws {
        var p = pairWithAToMove()
        try p.move(4) // b to move
        try p.b.perform(.move(0), now: p.now)
        try p.a.perform(.newGame, now: p.now) // resigns and starts again at once
        p.pump()
        #expect(p.failures.isEmpty, "\(p.failures)")
        #expect(p.a.lastResult == .lost && p.b.lastResult == .won)
        #expect(p.a.state == .rollingDice && p.b.state == .done)
        expectAgreementAndNextGame(&p, Score(lost: 1))
    }

    @Test func bothStartANewGameAtOnceIsADraw() throws {
        var p = pairWithAToMove()
        try p.move(4)
        try p.a.perform(.newGame, now: p.now)
        try p.b.perform(.newGame, now: p.now)
        p.pump()
        #expect(p.failures.isEmpty, "\(p.failures)")
        #expect(p.a.score == Score(drawn: 1) && p.b.score == Score(drawn: 1))
        // Both restarted at once, so the next game is already decided: play it out.
        #expect(Set([p.a.state, p.b.state]) == [.myTurn, .opponentTurn])
    }

    @Test func immediateRematchCrossesAResignation() throws {
        // A bot starts its next game the moment one ends; the human's RESIGN of the old game must
        // not count against the new one.
        var p = pairWithAToMove()
        for cell in [0, 3, 1, 4] { try p.move(cell) }
        try p.a.perform(.move(2), now: p.now)
        try p.a.perform(.newGame, now: p.now)
        try p.b.perform(.resign, now: p.now)
        p.pump()
        #expect(p.failures.isEmpty, "\(p.failures)")
        #expect(p.a.score == Score(won: 1) && p.b.score == Score(lost: 1))
        #expect(p.a.state == .rollingDice && p.a.moves.isEmpty)
        expectAgreementAndNextGame(&p, Score(won: 1))
    }

    @Test func aMoveAfterOurInTurnResignationIsOutOfTurn() throws {
        // We resigned in our own turn: the peer was not to move, so its MOVE cannot have crossed
        // our RESIGN. It used to count as one, and one filling the board rewrote our loss into a
        // draw (a second game-over) while the peer recorded a win.
        var p = pairWithAToMove()
        for cell in [4, 0, 2, 6, 3, 5, 1, 7] { try p.move(cell) } // cell 8 left, a to move
        try p.a.perform(.resign, now: p.now)
        p.dropInFlight()
        let overs = p.shownA.filter { if case .gameOver = $0 { true } else { false } }.count
        p.inject(.move(cell: 8), toA: true)
        #expect(p.failures.count == 1 && p.failures.first?.code == .illegalMove)
        #expect(p.failures.first?.message == "MOVE out of turn: we resigned in our own turn")
        #expect(p.a.score == Score(lost: 1) && p.a.lastResult == .lost)
        #expect(p.shownA.filter { if case .gameOver = $0 { true } else { false } }.count == overs)
    }

    @Test func resignationWaitsForTheRoll() {
        var a = GameSession(rng: SplitMix64(seed: 1))
        a.handle(.start, now: .zero)
        #expect(throws: GameCommandError.notYourTurn(.rollingDice)) { try a.perform(.resign, now: .zero) }
        _ = a.pollActions()
        a.handle(.received(.reset), now: .zero)
        a.handle(.received(.resign), now: .zero)
        #expect(a.pollActions().contains { if case .fail(.unexpectedMessage, _) = $0 { true } else { false } })
    }

    @Test func aSecondResetBeforeOurGameIsRejected() throws {
        var p = pairWithAToMove()
        for cell in [0, 3, 1, 4, 2] { try p.move(cell) }
        p.inject(.reset, toA: true) // b's next game...
        p.inject(.reset, toA: true) // ...and one more before a started its own
        #expect(p.failures.count == 1 && p.failures.first?.code == .unexpectedMessage)
    }

    @Test func resignationAfterTheOpponentsWinningMoveIsRejected() throws {
        var p = pairWithAToMove()
        for cell in [0, 3, 1, 4, 2] { try p.move(cell) } // a won, and b saw it
        p.inject(.resign, toA: false) // a could not have sent this: its own move ended the game
        #expect(p.failures.count == 1 && p.failures.first?.code == .unexpectedMessage)
        #expect(p.failures.first?.side == "b")
    }
}
