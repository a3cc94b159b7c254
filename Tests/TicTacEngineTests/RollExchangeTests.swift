import Testing
@testable import TicTacEngine
import TicTacWire

/// The roll exchange on its own: two honest sides agree on who moves first, and every way a
/// peer can break it is the fault Protocol.md §8 names.
@Suite struct RollExchangeTests {
    /// Runs `a` and `b` against each other: commit, reveal, acknowledge, as the stream would.
    func honestPair(seed: UInt64) throws -> (FirstMove.Decision, FirstMove.Decision) {
        var ra = AnyRandom(SplitMix64(seed: seed)), rb = AnyRandom(SplitMix64(seed: seed &+ 1))
        var a = RollExchange(), b = RollExchange()
        var toB: [GameAction] = [], toA: [GameAction] = []
        a.commit(moveTime: 0, using: &ra, into: &toB)
        b.commit(moveTime: 0, using: &rb, into: &toA)
        func deliver(_ actions: inout [GameAction], to side: inout RollExchange, answers: inout [GameAction]) throws(GameFault) {
            let batch = actions
            actions.removeAll()
            for case let .send(m) in batch {
                switch m {
                case let .rollCommit(c, t):
                    try side.receiveCommit(c, moveTime: t)
                    if let roll = side.reveal() { answers.append(.send(roll)) }
                case let .roll(v, n): if let ack = try side.receiveRoll(v, nonce: n) { answers.append(.send(ack)) }
                case let .rollAck(v): try side.receiveAck(v)
                default: Issue.record("unexpected \(m)")
                }
            }
        }
        for _ in 0..<4 {
            try deliver(&toB, to: &b, answers: &toA)
            try deliver(&toA, to: &a, answers: &toB)
        }
        return (try #require(try a.decision()), try #require(try b.decision()))
    }

    @Test func twoHonestSidesAgreeOnWhoMovesFirst() throws {
        var firsts = 0
        for seed in UInt64(1)...40 {
            let (a, b) = try honestPair(seed: seed)
            #expect(a.weMoveFirst != b.weMoveFirst)
            #expect(a.ourRoll == b.theirRoll && a.theirRoll == b.ourRoll)
            if a.weMoveFirst { firsts += 1 }
        }
        #expect(firsts > 5 && firsts < 35, "a moved first \(firsts) times in 40")
    }

    @Test func noDecisionBeforeOurRevealIsAcknowledged() throws {
        var r = AnyRandom(SplitMix64(seed: 3))
        var a = RollExchange()
        var out: [GameAction] = []
        a.commit(moveTime: 0, using: &r, into: &out)
        #expect(try a.decision() == nil)
        #expect(throws: GameFault.self) { try a.receiveAck(1) } // nothing revealed yet
    }

    @Test func eachBrokenStepIsItsFault() throws {
        var r = AnyRandom(SplitMix64(seed: 4))
        var a = RollExchange()
        var out: [GameAction] = []
        a.commit(moveTime: 0, using: &r, into: &out)
        let ours = try #require(a.ours)
        func code(_ body: (inout RollExchange) throws -> Void) -> ErrorCode? {
            var copy = a
            do { try body(&copy) } catch { return (error as? GameFault)?.code }
            return nil
        }
        #expect(code { try $0.receiveCommit(ours.commitment, moveTime: 0) } == .commitmentMismatch)
        #expect(code { _ = try $0.receiveRoll(5, nonce: ID128(high: 1, low: 1)) } == .unexpectedMessage)
        let nonce = ID128(high: 7, low: 7)
        try a.receiveCommit(Commitment.make(roll: 42, nonce: nonce), moveTime: 0)
        #expect(a.reveal() == .roll(value: ours.roll, nonce: ours.nonce) && a.reveal() == nil) // once
        #expect(code { try $0.receiveCommit(Commitment.make(roll: 1, nonce: nonce), moveTime: 0) } == .unexpectedMessage)
        #expect(code { _ = try $0.receiveRoll(43, nonce: nonce) } == .commitmentMismatch)
        #expect(code { try $0.receiveAck(ours.roll &+ 1) } == .rollMismatch)
        _ = try a.receiveRoll(42, nonce: nonce)
        #expect(code { _ = try $0.receiveRoll(42, nonce: nonce) } == .unexpectedMessage)
        try a.receiveAck(ours.roll)
        #expect(code { try $0.receiveAck(ours.roll) } == .unexpectedMessage)
        #expect(try a.decision() != nil)
    }

    /// A roll kept past its link decides from the peer's secret in RESUME (Protocol.md §13): the
    /// same decision the stream would have made, and a secret that does not open the peer's
    /// commitment, or differs from its ROLL, is refused.
    @Test func aKeptRollDecidesFromThePeersSecretAlone() throws {
        var ra = AnyRandom(SplitMix64(seed: 8)), rb = AnyRandom(SplitMix64(seed: 9))
        var a = RollExchange(), b = RollExchange()
        var out: [GameAction] = []
        a.commit(moveTime: 0, using: &ra, into: &out)
        b.commit(moveTime: 30, using: &rb, into: &out)
        let (ca, cb) = (try #require(a.ours).commitment, try #require(b.ours).commitment)
        try a.receiveCommit(cb, moveTime: 30)
        try b.receiveCommit(ca, moveTime: 0)
        #expect(a.key != nil && a.key == b.key) // both commitments fix the key before anyone decided
        let (sa, sb) = (try #require(a.ourSecret), try #require(b.ourSecret))
        var wrong = sb
        wrong[19] ^= 1
        var copy = a
        #expect(throws: GameFault.self) { try copy.take(theirSecret: wrong) }
        #expect(throws: GameFault.self) { try copy.take(theirSecret: Array(sb.prefix(19))) }
        try a.take(theirSecret: sb)
        try b.take(theirSecret: sa)
        let (da, db) = (try #require(try a.decision()), try #require(try b.decision()))
        #expect(da.weMoveFirst != db.weMoveFirst && da.ourRoll == db.theirRoll)
        // Rebuilt from what the history stores, the roll decides the same.
        let keyA = try #require(a.key)
        var restored = try #require(RollExchange(secret: sa, theirCommitment: cb, moveTime: 30, key: keyA))
        #expect(restored.key == a.key && !restored.quick)
        #expect(RollExchange(secret: sa, theirCommitment: cb, moveTime: 30, key: ID128(high: 1, low: 2)) == nil) // not its key
        try restored.take(theirSecret: sb)
        #expect(try restored.decision()?.weMoveFirst == da.weMoveFirst)
        // The peer's ROLL came first: RESUME must carry that same secret.
        var rolled = RollExchange(keepingCommitmentOf: RollExchange())
        rolled.commit(moveTime: 0, using: &ra, into: &out)
        try rolled.receiveCommit(cb, moveTime: 0)
        _ = try rolled.receiveRoll(UInt32(sb[0]) << 24 | UInt32(sb[1]) << 16 | UInt32(sb[2]) << 8 | UInt32(sb[3]),
                               nonce: try #require(ID128(bytes: Array(sb[4...]))))
        var other = sb
        other[5] ^= 1
        #expect(throws: GameFault.self) { try rolled.take(theirSecret: other) }
        try rolled.take(theirSecret: sb)
    }
}

/// Quick rolls (Protocol.md §8): the commitments, the key and the decision hash with BLAKE2b-256;
/// both sides still agree, and a roll rebuilt from the history finds its hash from its stored key.
@Suite struct QuickRollExchangeTests {
    @Test func aQuickRollDecidesWithoutAckAndRebuildsByItsKey() throws {
        var ra = AnyRandom(SplitMix64(seed: 18)), rb = AnyRandom(SplitMix64(seed: 19))
        var a = RollExchange(), b = RollExchange()
        a.quick = true
        b.quick = true
        var out: [GameAction] = []
        a.commit(moveTime: 0, using: &ra, into: &out)
        b.commit(moveTime: 0, using: &rb, into: &out)
        let (oa, ob) = (try #require(a.ours), try #require(b.ours))
        try a.receiveCommit(ob.commitment, moveTime: 0)
        try b.receiveCommit(oa.commitment, moveTime: 0)
        #expect(a.reveal() != nil && b.reveal() != nil)
        #expect(try a.receiveRoll(ob.roll, nonce: ob.nonce) == nil) // no ROLL_ACK
        #expect(try b.receiveRoll(oa.roll, nonce: oa.nonce) == nil)
        let (da, db) = (try #require(try a.decision()), try #require(try b.decision()))
        #expect(da.weMoveFirst != db.weMoveFirst && da.ourRoll == db.theirRoll && da.theirRoll == db.ourRoll)
        let (sa, sb) = (try #require(a.ourSecret), try #require(b.ourSecret))
        #expect(Commitment.verify(oa.commitment, roll: oa.roll, nonce: oa.nonce, quick: true))
        #expect(!Commitment.verify(oa.commitment, roll: oa.roll, nonce: oa.nonce)) // not SHA-256's
        // The hashes differ: the four-message roll's key and decision come from SHA-256.
        let key = try #require(a.key)
        #expect(key == b.key && key == GameKey.make(oa.commitment, ob.commitment, quick: true))
        #expect(key != GameKey.make(oa.commitment, ob.commitment))
        let long = FirstMove.decide(ourCommitment: oa.commitment, ourSecret: sa, theirCommitment: ob.commitment, theirSecret: sb)
        let short = FirstMove.decide(ourCommitment: oa.commitment, ourSecret: sa, theirCommitment: ob.commitment, theirSecret: sb, quick: true)
        #expect(short == da && long != nil && long?.ourRoll != da.ourRoll)
        // Rebuilt from the history under its key: quick again, and it decides the same.
        var restored = try #require(RollExchange(secret: sa, theirCommitment: ob.commitment, moveTime: 0, key: key))
        #expect(restored.quick)
        try restored.take(theirSecret: sb)
        #expect(try restored.decision() == da)
    }
}

/// Local commands are refused, with a reason and no change, where the game cannot take them.
@Suite struct GameCommandTests {
    @Test func eachStateRefusesWhatItCannotDo() throws {
        var g = GameSession(rng: SplitMix64(seed: 1))
        #expect(throws: GameCommandError.notYourTurn(.beginning)) { try g.perform(.move(0), now: .zero) }
        #expect(throws: GameCommandError.notYourTurn(.beginning)) { try g.perform(.resign, now: .zero) }
        #expect(throws: GameCommandError.noGame) { try g.perform(.newGame, now: .zero) }
        g.handle(.start, now: .zero)
        _ = g.pollActions()
        #expect(throws: GameCommandError.notYourTurn(.rollingDice)) { try g.perform(.move(0), now: .zero) }
        try g.perform(.newGame, now: .zero) // a game is already starting: nothing to do
        #expect(g.pollActions().isEmpty && g.state == .rollingDice)
        g.handle(.connectionLost, now: .zero)
        #expect(throws: GameCommandError.noGame) { try g.perform(.newGame, now: .zero) }
        #expect(g.pollTimeout() == nil)
    }
}
