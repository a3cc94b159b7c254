import Testing
import TicTacEngine
import TicTacWire
import TicTacTime

/// Leaving a running game (Protocol.md §8): once our roll is out the peer knows who moves first,
/// so its leaving then, any way, is its loss by forfeit; before our reveal it costs nothing.
@Suite struct LeavingTests {
    /// A duel whose peer committed and revealed honestly up to `stage`; our reveal is out
    /// from `.committed` on.
    enum Stage { case nothing, committed, revealed, playing }

    static func duel(_ stage: Stage, seed: UInt64 = 7) -> Duel {
        var d = Duel(seed: seed)
        guard stage != .nothing, let ours = d.commitment else { return d }
        var rng = SplitMix64(seed: seed &+ 100)
        let roll = UInt32.random(in: 0...Message.maxRoll, using: &rng)
        let nonce = ID128.random(using: &rng)
        d.deliver(.reset)
        d.deliver(.rollCommit(commitment: Commitment.make(roll: roll, nonce: nonce)))
        #expect(d.reveal != nil && d.commitment == ours)
        guard stage != .committed else { return d }
        d.deliver(.roll(value: roll, nonce: nonce))
        guard stage != .revealed, let seen = d.reveal else { return d }
        d.deliver(.rollAck(value: seen.roll))
        return d
    }

    static func isGameOver(_ e: GameEvent) -> Bool { if case .gameOver = e { true } else { false } }

    @Test(arguments: [Stage.committed, .revealed])
    func thePeerLeavingAfterOurRevealForfeits(stage: Stage) {
        var d = Self.duel(stage)
        d.honest.handle(.peerLeft, now: d.now)
        d.collect()
        #expect(d.shown.suffix(3) == [.left(yours: false, inRoll: true), .gameOver(result: .won, line: nil, resigned: false),
                                      .score(Score(won: 1))])
        #expect(d.honest.score == Score(won: 1))
        #expect(d.honest.state == .interrupted)
        #expect(d.honest.pollTimeout() == nil) // no rematch: the match is over
    }

    @Test func thePeerLeavingAGameInPlayForfeits() {
        var d = Self.duel(.playing)
        #expect(d.honest.state == .myTurn || d.honest.state == .opponentTurn)
        d.honest.handle(.peerLeft, now: d.now)
        d.collect()
        #expect(d.shown.suffix(3).first == .left(yours: false, inRoll: false))
        #expect(d.honest.score == Score(won: 1))
    }

    @Test func thePeerLeavingBeforeOurRevealCostsNothing() {
        // We never held its commitment, so our ROLL never went out: it cannot know the outcome.
        var d = Self.duel(.nothing)
        #expect(d.reveal == nil)
        d.honest.handle(.peerLeft, now: d.now)
        d.collect()
        #expect(d.honest.score == Score())
        #expect(!d.shown.contains(where: Self.isGameOver))
        #expect(!d.shown.contains(.left(yours: false, inRoll: true)))
    }

    @Test func thePeerLeavingAfterTheGameCostsNothing() {
        var d = Self.duel(.playing)
        if d.honest.state == .opponentTurn { d.deliver(.resign) } else { #expect(throws: Never.self) { try d.honest.perform(.resign, now: d.now) } }
        d.collect()
        let before = d.honest.score
        d.honest.handle(.peerLeft, now: d.now)
        d.collect()
        #expect(d.honest.score == before)
        #expect(d.shown.filter(Self.isGameOver).count == 1)
    }

    @Test func aProtocolFaultAfterOurRevealForfeits() {
        // RESIGN while the roll is being decided is not allowed (§8): ERROR, and the game is ours.
        var d = Self.duel(.committed)
        d.deliver(.resign)
        #expect(d.failure?.code == .unexpectedMessage)
        #expect(d.honest.score == Score(won: 1))
        #expect(d.shown.contains(.left(yours: false, inRoll: true)))
    }

    @Test func aProtocolFaultBeforeOurRevealCostsNothing() {
        var d = Self.duel(.nothing)
        d.deliver(.reset)
        d.deliver(.roll(value: 1, nonce: ID128(high: 0, low: 0))) // ROLL before its ROLL_COMMIT
        #expect(d.failure?.code == .unexpectedMessage)
        #expect(d.honest.score == Score())
    }

    @Test func ourLeavingAfterThePeersRevealIsOurLoss() throws {
        var d = Self.duel(.revealed)
        try d.honest.perform(.leave, now: d.now)
        d.collect()
        #expect(d.shown.suffix(3).first == .left(yours: true, inRoll: true))
        #expect(d.honest.score == Score(lost: 1))
        #expect(d.honest.state == .interrupted)
    }

    @Test func ourLeavingBeforeThePeersRevealCostsNothing() throws {
        var d = Self.duel(.committed)
        try d.honest.perform(.leave, now: d.now)
        d.collect()
        #expect(d.honest.score == Score())
        #expect(!d.shown.contains(where: Self.isGameOver))
    }

    @Test func ourLeavingAGameInPlayResigns() throws {
        var d = Self.duel(.playing)
        try d.honest.perform(.leave, now: d.now)
        d.collect()
        #expect(d.sent.last == .resign)
        #expect(d.honest.score == Score(lost: 1))
        #expect(d.shown.contains(.gameOver(result: .lost, line: nil, resigned: true)))
    }
}
