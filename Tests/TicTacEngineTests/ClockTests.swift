import Testing
import TicTacEngine
import TicTacWire
import TicTacTime

/// The move clock and the roll deadline (Protocol.md §9), on virtual time.
@Suite struct ClockTests {
    /// A started pair with side a to move, both asking for `seconds` per move.
    private func pair(seconds: Int64, b: Int64? = nil) -> Pair {
        for seed in UInt64(1)...50 {
            var p = Pair(a: GameSession(rng: SplitMix64(seed: seed), moveTime: .seconds(seconds)),
                         b: GameSession(rng: SplitMix64(seed: seed + 100), moveTime: .seconds(b ?? seconds)))
            p.start()
            if p.sideToMove == true { return p }
        }
        Issue.record("no seed gives a the first move")
        return Pair()
    }

    @Test func theGameUsesTheShorterNonzeroAsk() {
        #expect(GameSession.agreedMoveTime(120, 30) == 30)
        #expect(GameSession.agreedMoveTime(0, 30) == 30)
        #expect(GameSession.agreedMoveTime(0, 0) == 0)
        #expect(GameSession.agreedMoveTime(1, 0) == 5) // a peer cannot rush us below 5 s
        var p = pair(seconds: 60, b: 20)
        #expect(p.a.agreedMoveTime == 20 && p.b.agreedMoveTime == 20)
        #expect(p.shownA.contains { if case .rolls(_, _, 20) = $0 { true } else { false } })
        p = pair(seconds: 0)
        #expect(p.a.pollTimeout() == nil && p.b.pollTimeout() == nil) // no clock at all
    }

    @Test func ourClockResignsForUsWithTimeUp() throws {
        var p = pair(seconds: 30)
        #expect(p.a.pollTimeout() == p.now + .seconds(30))
        #expect(p.b.pollTimeout() == p.now + .seconds(40)) // the peer's clock, with the grace
        p.advance(to: p.now + .milliseconds(29_999))
        #expect(p.a.state == .myTurn)
        p.advance(to: Instant.zero + .seconds(30))
        #expect(p.failures.isEmpty)
        #expect(p.a.lastResult == .lost && p.b.lastResult == .won)
        #expect(p.shownA.suffix(3) == [.timeUp(yours: true, clock: .move),
                                       .gameOver(result: .lost, line: nil, resigned: true), .score(Score(lost: 1))])
        #expect(p.shownB.suffix(3) == [.timeUp(yours: false, clock: .move),
                                       .gameOver(result: .won, line: nil, resigned: true), .score(Score(won: 1))])
        // The rematch runs as after any game, and the clock restarts with every turn.
        p.advance(to: p.now + .seconds(3))
        #expect(Set([p.a.state, p.b.state]) == [.myTurn, .opponentTurn])
        let mover = p.sideToMove == true
        try p.move(4)
        p.advance(to: p.now + .seconds(29))
        #expect((mover ? p.b.state : p.a.state) == .myTurn) // 29 s into the other's 30
    }

    @Test func aSilentPeerForfeitsAfterTheGrace() throws {
        var p = pair(seconds: 30)
        try p.a.perform(.move(4), now: p.now)
        p.dropInFlight() // b never hears of it, so its own clock never starts: a silent peer
        p.advance(to: p.now + .seconds(39))
        #expect(p.failures.isEmpty && p.a.state == .opponentTurn)
        p.advance(to: Instant.zero + .seconds(40))
        #expect(p.failures.first?.side == "a" && p.failures.first?.code == .timeout)
        #expect(p.a.score == Score(won: 1))
        #expect(p.shownA.contains(.timeUp(yours: false, clock: .move)))
        #expect(p.shownA.contains(.gameOver(result: .won, line: nil, resigned: false)))
    }

    @Test func timeUpCrossingAResignationIsADraw() throws {
        var p = pair(seconds: 30)
        try p.move(4) // b to move, a waits
        p.now = p.now + .seconds(30)
        p.b.handleTimeout(now: p.now) // b's clock runs out: TIME_UP...
        try p.a.perform(.resign, now: p.now) // ...as a gives up in b's turn
        p.pump()
        #expect(p.failures.isEmpty, "\(p.failures)")
        #expect(p.a.score == Score(drawn: 1) && p.b.score == Score(drawn: 1))
    }

    @Test func timeUpInOurOwnTurnIsRefused() {
        var p = pair(seconds: 30)
        p.inject(.timeUp, toA: true) // a is to move: b's clock is not running
        #expect(p.failures.first?.code == .unexpectedMessage)
    }

    /// A lost link stops the clock; the resumed turn has what was left, and both fronts are
    /// told it (`turnClock`): not the whole move time again (Protocol.md §13).
    @Test func aResumedTurnShowsTheTimeThatWasLeft() throws {
        var p = pair(seconds: 30)
        p.advance(to: p.now + .milliseconds(12_500))
        #expect(p.a.pause(now: p.now) && p.b.pause(now: p.now))
        p.advance(to: p.now + .seconds(100)) // paused: no clock runs
        #expect(p.failures.isEmpty && p.a.isPaused)
        let (ma, mb) = (p.shownA.count, p.shownB.count)
        try p.a.resume(now: p.now)
        try p.b.resume(now: p.now)
        p.pump()
        #expect(Array(p.shownA[ma...]) == [.yourTurn, .turnClock(seconds: 18)]) // 17.5 s left, rounded up
        #expect(Array(p.shownB[mb...]) == [.opponentTurn, .turnClock(seconds: 18)]) // its grace is not shown
        #expect(p.a.pollTimeout() == p.now + .milliseconds(17_500))
        // A turn with its whole time left says nothing more.
        var q = pair(seconds: 30)
        #expect(q.a.pause(now: q.now) && q.b.pause(now: q.now))
        let n = q.shownA.count
        try q.a.resume(now: q.now)
        q.pump()
        #expect(Array(q.shownA[n...]) == [.yourTurn])
    }

    /// The loss is noticed after the link was last heard (5 s of silence by default): the side
    /// to move is charged up to then, not for the silence (issue 30: it lost those seconds).
    @Test func theSilenceBeforeALossIsNoticedIsNotCharged() throws {
        var p = pair(seconds: 30)
        let heard = p.now + .milliseconds(7_500)
        p.advance(to: heard + .seconds(5)) // the silence that makes the loss known
        let paused = p.a.pause(now: p.now, lastHeard: heard)
        #expect(paused)
        p.advance(to: p.now + .seconds(60))
        let n = p.shownA.count
        try p.a.resume(now: p.now)
        p.pump()
        #expect(Array(p.shownA[n...]) == [.yourTurn, .turnClock(seconds: 23)]) // 22.5 s: charged 7.5 s, not 12.5 s
        #expect(p.a.pollTimeout() == p.now + .milliseconds(22_500))
    }
}
