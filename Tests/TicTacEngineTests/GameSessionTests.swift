import Testing
import TicTacEngine
import TicTacWire
import TicTacTime

@Suite struct GameSessionTests {
    @Test func startDecidesFirstMoverAndPieces() {
        var p = Pair()
        p.start()
        #expect(p.failures.isEmpty)
        let states = Set([p.a.state, p.b.state])
        #expect(states == [.myTurn, .opponentTurn])
        // The player who moves first plays O.
        let first = p.a.state == .myTurn ? p.a : p.b
        let second = p.a.state == .myTurn ? p.b : p.a
        #expect(first.piece == .o && second.piece == .x)
    }

    @Test func fullGameBothSidesAgree() throws {
        var p = Pair()
        p.start()
        // First mover takes the top row; the other plays 4, 5.
        for cell in [0, 3, 1, 4, 2] { try p.move(cell) }
        #expect(p.a.state == .done && p.b.state == .done)
        #expect(p.a.board == p.b.board)
        #expect(p.a.moves == [0, 3, 1, 4, 2] && p.b.moves == p.a.moves)
        let results = Set([p.a.lastResult, p.b.lastResult])
        #expect(results == [.won, .lost])
        let winnerEvents = (p.a.lastResult == .won ? p.shownA : p.shownB)
        #expect(winnerEvents.contains(.gameOver(result: .won, line: [0, 1, 2], resigned: false)))
    }

    @Test func eventsLeftOutAreNotShownAndTheGameRunsTheSame() throws {
        // The same seeded game twice; the second time `a` is shown only some kinds.
        func play(_ shown: GameEventKinds) throws -> Pair {
            var p = Pair()
            p.a.shownEvents = shown
            p.start()
            for cell in [0, 3, 1, 4, 2] { try p.move(cell) }
            return p
        }
        let all = try play(.all)
        let some: GameEventKinds = [.opponentMoved, .gameOver]
        let filtered = try play(some)
        #expect(filtered.shownA == all.shownA.filter { some.contains($0.kind) })
        #expect(filtered.shownA.contains { if case .gameOver = $0 { true } else { false } })
        #expect(all.shownA.contains { if case .board = $0 { true } else { false } }, "the unfiltered side sees boards")
        #expect(filtered.shownB == all.shownB, "the peer saw the same game")
        #expect(filtered.a.board == all.a.board && filtered.a.score == all.a.score)
    }

    @Test func aCopiedCommitmentIsRefusedBeforeAnyReveal() {
        // Both sides draw the same first three random values: the same roll and nonce, so the
        // same commitment. That is what a peer copying ours looks like (it would open it with our
        // own reveal and make the joint value zero): refused, and nothing revealed (§8 step 2).
        let a = GameSession(rng: PrefixedRandom(sharedSeed: 9, sharedCount: 3, ownSeed: 1))
        let b = GameSession(rng: PrefixedRandom(sharedSeed: 9, sharedCount: 3, ownSeed: 2))
        var p = Pair(a: a, b: b)
        p.start()
        #expect(p.failures.first?.code == .commitmentMismatch)
        #expect(p.failures.first?.message == "ROLL_COMMIT repeats our own commitment")
        #expect(p.a.state == .interrupted)
    }

    @Test func theRollsShownAgreeWithTheDecision() {
        for seed in UInt64(1)...40 {
            var p = Pair(seedA: seed, seedB: seed + 1000)
            p.start()
            let rollsA = p.shownA.compactMap { if case let .rolls(y, t, _) = $0 { (y, t) } else { nil } }
            let rollsB = p.shownB.compactMap { if case let .rolls(y, t, _) = $0 { (y, t) } else { nil } }
            guard let ra = rollsA.first, let rb = rollsB.first else {
                Issue.record("no rolls shown (seed \(seed))")
                return
            }
            #expect(ra.0 == rb.1 && ra.1 == rb.0) // both sides show the same two rolls
            #expect(ra.0 != ra.1)
            #expect((ra.0 > ra.1) == (p.a.state == .myTurn)) // the higher roll moves first...
            #expect((p.a.state == .myTurn) == (p.a.piece == .o)) // ...and plays O
        }
    }

    @Test func rematchStartsAfterThreeSecondsAndScoreIsKept() throws {
        var p = Pair()
        p.start()
        for cell in [0, 3, 1, 4, 2] { try p.move(cell) }
        #expect(p.a.pollTimeout() == Instant.zero + .seconds(3))
        p.advance(to: Instant.zero + .milliseconds(2999))
        #expect(p.a.state == .done)
        p.advance(to: Instant.zero + .seconds(3))
        #expect(p.failures.isEmpty)
        #expect(Set([p.a.state, p.b.state]) == [.myTurn, .opponentTurn])
        #expect(p.a.board.isEmpty && p.b.board.isEmpty)
        #expect(p.a.score.won == p.b.score.lost && p.a.score.lost == p.b.score.won)
        #expect(p.a.gamesPlayed == 1)
    }

    @Test func newGameInDoneStartsOnceAndCancelsTheTimer() throws {
        var p = Pair()
        p.start()
        for cell in [0, 3, 1, 4, 2] { try p.move(cell) }
        try p.a.perform(.newGame, now: p.now)
        p.pump()
        #expect(p.a.pollTimeout() == p.now + GameSession.rollTimeout) // the rematch timer is gone
        // b's own timer fires later; that must not restart the game a second time.
        p.advance(to: Instant.zero + .seconds(3))
        #expect(p.failures.isEmpty)
        #expect(Set([p.a.state, p.b.state]) == [.myTurn, .opponentTurn])
        p.advance(to: Instant.zero + .seconds(10))
        #expect(Set([p.a.state, p.b.state]) == [.myTurn, .opponentTurn])
        #expect(p.a.moves.isEmpty)
    }

    @Test func newGameMidGameResignsThenRestarts() throws {
        var p = Pair()
        p.start()
        try p.move(4)
        let aWasFirst = p.a.piece == .o
        try p.a.perform(.newGame, now: p.now)
        p.pump()
        p.advance(to: Instant.zero + .seconds(3))
        #expect(p.failures.isEmpty)
        #expect(p.a.score.lost == 1 && p.b.score.won == 1)
        #expect(Set([p.a.state, p.b.state]) == [.myTurn, .opponentTurn])
        _ = aWasFirst
    }

    @Test func simultaneousResignationIsADrawOnBothSides() {
        var p = Pair()
        p.start()
        try? p.a.perform(.resign, now: p.now)
        try? p.b.perform(.resign, now: p.now)
        p.pump()
        #expect(p.failures.isEmpty)
        #expect(p.a.lastResult == .draw && p.b.lastResult == .draw)
        #expect(p.a.score == Score(drawn: 1) && p.b.score == Score(drawn: 1))
    }

    @Test func resignationWins() {
        var p = Pair()
        p.start()
        try? p.a.perform(.resign, now: p.now)
        p.pump()
        #expect(p.a.lastResult == .lost && p.b.lastResult == .won)
        #expect(p.shownB.contains(.gameOver(result: .won, line: nil, resigned: true)))
    }

    @Test func connectionLostCancelsRematch() throws {
        var p = Pair()
        p.start()
        for cell in [0, 3, 1, 4, 2] { try p.move(cell) }
        p.a.handle(.connectionLost, now: p.now)
        #expect(p.a.state == .interrupted && p.a.pollTimeout() == nil)
        #expect(p.a.pollActions() == [.show(.interrupted)])
        p.a.handleTimeout(now: Instant.zero + .seconds(5))
        #expect(p.a.state == .interrupted && p.a.pollActions().isEmpty)
    }

    // MARK: - Local commands that cannot be done throw and change nothing

    @Test func localMoveErrors() throws {
        var p = Pair()
        p.start()
        let moverIsA = p.sideToMove == true
        var mover = moverIsA ? p.a : p.b
        var waiter = moverIsA ? p.b : p.a
        #expect(throws: GameCommandError.notYourTurn(.opponentTurn)) { try waiter.perform(.move(0), now: .zero) }
        #expect(throws: GameCommandError.illegal(.outOfRange(cell: 9, cellCount: 9))) {
            try mover.perform(.move(9), now: .zero)
        }
        #expect(throws: GameCommandError.illegal(.outOfRange(cell: -1, cellCount: 9))) {
            try mover.perform(.move(-1), now: .zero)
        }
        try mover.perform(.move(4), now: .zero)
        _ = mover.pollActions()
        #expect(throws: GameCommandError.notYourTurn(.opponentTurn)) { try mover.perform(.move(5), now: .zero) }
        #expect(mover.board.filledCount == 1)
        var fresh = GameSession(rng: SplitMix64(seed: 3))
        #expect(throws: GameCommandError.notYourTurn(.beginning)) { try fresh.perform(.resign, now: .zero) }
        #expect(throws: GameCommandError.notYourTurn(.beginning)) { try fresh.perform(.move(0), now: .zero) }
        _ = waiter
    }

    // MARK: - Remote faults: a typed failure, state Interrupted, board untouched

    /// A started pair with side a to move (seeds picked so a wins the roll).
    private func pairWithAToMove() -> Pair {
        for seed in UInt64(1)...50 {
            var p = Pair(seedA: seed, seedB: seed + 100)
            p.start()
            if p.sideToMove == true { return p }
        }
        return Pair()
    }

    private func expectFailure(_ p: Pair, _ code: ErrorCode, side: Character = "a") {
        #expect(p.failures.count == 1)
        #expect(p.failures.first?.code == code)
        #expect(p.failures.first?.side == side)
    }

    @Test func moveOutOfTurnIsRejected() {
        var p = pairWithAToMove()
        let before = p.a.board
        p.inject(.move(cell: 0), toA: true) // a is to move: b may not
        expectFailure(p, .illegalMove)
        #expect(p.a.board == before && p.a.state == .interrupted)
    }

    @Test func moveOnOccupiedCellIsRejected() throws {
        var p = pairWithAToMove()
        try p.a.perform(.move(4), now: p.now)
        p.dropInFlight()
        p.inject(.move(cell: 4), toA: true)
        expectFailure(p, .illegalMove)
        #expect(p.a.board.filledCount == 1 && p.a.board[4] == p.a.piece)
    }

    @Test(arguments: [UInt16(9), 100, 65535])
    func moveOutOfRangeIsRejected(cell: UInt16) throws {
        var p = pairWithAToMove()
        try p.a.perform(.move(0), now: p.now)
        p.dropInFlight()
        p.inject(.move(cell: cell), toA: true)
        expectFailure(p, .illegalMove)
        #expect(p.a.board.filledCount == 1)
    }

    @Test func moveBeforeTheFirstMoveDecisionIsRejected() {
        var a = GameSession(rng: SplitMix64(seed: 1))
        a.handle(.start, now: .zero)
        _ = a.pollActions()
        a.handle(.received(.move(cell: 0)), now: .zero)
        let failure = a.pollActions().compactMap { if case let .fail(code, text) = $0 { (code, text) } else { nil } }.first
        #expect(failure?.0 == .illegalMove)
        // Say what is true: no game has ended, none has begun (it said "after the game ended").
        #expect(failure?.1 == "MOVE before the first move was decided")
        #expect(a.board.isEmpty && a.state == .interrupted)
    }

    /// Side a after start and the peer's RESET, and what a sent.
    private func rollingSide() -> (GameSession, [Message]) {
        var a = GameSession(rng: SplitMix64(seed: 1))
        a.handle(.start, now: .zero)
        a.handle(.received(.reset), now: .zero)
        let sent = a.pollActions().compactMap { if case let .send(m) = $0 { m } else { nil } }
        return (a, sent)
    }

    private func failCode(_ s: inout GameSession) -> ErrorCode? {
        for case let .fail(code, _) in s.pollActions() { return code }
        return nil
    }

    @Test func rollThatDoesNotMatchItsCommitmentIsRejected() {
        var (a, _) = rollingSide()
        let nonce = ID128(high: 1, low: 2)
        a.handle(.received(.rollCommit(commitment: Commitment.make(roll: 10, nonce: nonce))), now: .zero)
        _ = a.pollActions()
        // The cheater saw our roll and now claims a higher one.
        a.handle(.received(.roll(value: 999_999, nonce: nonce)), now: .zero)
        #expect(failCode(&a) == .commitmentMismatch)
        #expect(a.state == .interrupted)
    }

    @Test func rollBeforeCommitmentIsRejected() {
        var (a, _) = rollingSide()
        a.handle(.received(.roll(value: 5, nonce: ID128(high: 0, low: 0))), now: .zero)
        #expect(failCode(&a) == .unexpectedMessage)
    }

    @Test func duplicateCommitmentIsRejected() {
        var (a, _) = rollingSide()
        let c = Commitment.make(roll: 1, nonce: ID128(high: 0, low: 1))
        a.handle(.received(.rollCommit(commitment: c)), now: .zero)
        _ = a.pollActions()
        a.handle(.received(.rollCommit(commitment: c)), now: .zero)
        #expect(failCode(&a) == .unexpectedMessage)
    }

    @Test func ackThatEchoesAnotherRollIsRejected() {
        var (a, sent) = rollingSide()
        let nonce = ID128(high: 3, low: 4)
        a.handle(.received(.rollCommit(commitment: Commitment.make(roll: 7, nonce: nonce))), now: .zero)
        let reveals = a.pollActions().compactMap { if case let .send(.roll(v, _)) = $0 { v } else { nil } }
        #expect(reveals.count == 1 && sent.contains(.reset))
        let ours = reveals.first ?? 0
        a.handle(.received(.rollAck(value: ours == 0 ? 1 : ours - 1)), now: .zero)
        #expect(failCode(&a) == .rollMismatch)
    }

    @Test func ackBeforeOurRollIsRejected() {
        var (a, _) = rollingSide()
        a.handle(.received(.rollAck(value: 1)), now: .zero)
        #expect(failCode(&a) == .unexpectedMessage)
    }

    @Test func sessionMessagesAreUnexpectedInAGame() {
        var (a, _) = rollingSide()
        a.handle(.received(.ping(nonce: 1)), now: .zero)
        #expect(failCode(&a) == .unexpectedMessage)
        // After a failure nothing more counts.
        a.handle(.received(.reset), now: .zero)
        #expect(a.pollActions().isEmpty)
    }

    @Test func resetMidGameIsRejected() {
        var p = pairWithAToMove()
        p.inject(.reset, toA: true)
        expectFailure(p, .unexpectedMessage)
    }

    @Test func commitmentSentBeforeOurRematchIsKept() throws {
        // The seed's Reset rule: the peer may start its next game before our timer fires; its
        // RESET then ROLL_COMMIT reach us in Done and must not be lost.
        var p = Pair()
        p.start()
        for cell in [0, 3, 1, 4, 2] { try p.move(cell) }
        try p.a.perform(.newGame, now: p.now) // a starts at once; b is still in Done
        p.pump()
        #expect(p.b.state == .done && p.a.state == .rollingDice)
        p.advance(to: Instant.zero + .seconds(3))
        #expect(p.failures.isEmpty)
        #expect(Set([p.a.state, p.b.state]) == [.myTurn, .opponentTurn])
    }

    @Test func largeBoardGame() throws {
        var p = Pair(size: try BoardSize(rows: 7, cols: 7, k: 4))
        p.start()
        // First mover plays 0,1,2,3 on the top row; the other plays the second row.
        for cell in [0, 7, 1, 8, 2, 9, 3] { try p.move(cell) }
        #expect(p.a.state == .done && p.b.state == .done)
        let over = (p.a.lastResult == .won ? p.shownA : p.shownB).last { if case .gameOver = $0 { true } else { false } }
        #expect(over == .gameOver(result: .won, line: [0, 1, 2, 3], resigned: false))
    }
}
