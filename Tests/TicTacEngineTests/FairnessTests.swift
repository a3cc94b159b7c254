import Testing
import TicTacEngine
import TicTacWire
import TicTacTime

/// A real session against a scripted peer that plays the roll by hand (Protocol.md §8). The peer
/// sees our commitment before it picks its own, and our reveal before it sends its own: the
/// most a cheater can see.
struct Duel {
    var honest: GameSession
    var now = Instant.zero
    /// What the honest session sent, showed, and the fault it reported.
    var sent: [Message] = []
    var shown: [GameEvent] = []
    var failure: (code: ErrorCode, text: String)?

    init(seed: UInt64, moveTime: Duration = .zero) {
        honest = GameSession(rng: SplitMix64(seed: seed), moveTime: moveTime)
        honest.handle(.start, now: now)
        collect()
    }

    mutating func deliver(_ m: Message) {
        honest.handle(.received(m), now: now)
        collect()
    }

    mutating func advance(to t: Instant) {
        now = t
        honest.handleTimeout(now: now)
        collect()
    }

    mutating func collect() {
        for action in honest.pollActions() {
            switch action {
            case let .send(m): sent.append(m)
            case let .show(e): shown.append(e)
            case let .fail(code, text): failure = (code, text)
            case .record: break
            }
        }
    }

    var commitment: [UInt8]? { sent.lazy.compactMap { if case let .rollCommit(c, _) = $0 { c } else { nil } }.last }
    var reveal: (roll: UInt32, nonce: ID128)? { sent.lazy.compactMap { if case let .roll(r, n) = $0 { (r, n) } else { nil } }.last }
}

@Suite struct FairnessTests {
    /// Everything a peer can do with what it has seen.
    enum Strategy: CaseIterable {
        /// The measured attack on the old rule: always the highest roll (or always 0).
        case alwaysHighest, alwaysZero
        /// Grinds nonces until its commitment sorts before (after) ours.
        case sortFirst, sortLast
        /// Builds its secret from our commitment's bytes.
        case fromOurCommitment
        /// Sends our own commitment back, hoping to open it with our reveal.
        case copyOurCommitment
        /// Sees our reveal; when it would move second, never reveals (the deadline ends that).
        case refuseWhenSecond
        /// Sees our reveal; when it would move second, reveals another roll.
        case lieWhenSecond
    }

    struct Tally {
        var games = 0, peerFirst = 0, forfeits = 0, refused = 0
    }

    /// One game of the roll against a fresh honest session.
    static func play(_ strategy: Strategy, game: UInt64) -> (Tally, Duel) {
        var rng = SplitMix64(seed: 0xFA1 &+ game)
        var d = Duel(seed: game)
        var t = Tally(games: 1)
        guard let ours = d.commitment else { return (t, d) }
        var roll = UInt32.random(in: 0...Message.maxRoll, using: &rng)
        var nonce = ID128.random(using: &rng)
        switch strategy {
        case .alwaysHighest: (roll, nonce) = (Message.maxRoll, ID128(high: 0, low: 0))
        case .alwaysZero: (roll, nonce) = (0, ID128(high: 0, low: 0))
        case .sortFirst, .sortLast:
            roll = Message.maxRoll
            while Commitment.make(roll: roll, nonce: nonce).lexicographicallyPrecedes(ours) != (strategy == .sortFirst) {
                nonce = ID128.random(using: &rng)
            }
        case .fromOurCommitment:
            roll = ours[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % (Message.maxRoll + 1)
            nonce = ID128(high: ours[4..<12].reduce(0) { $0 << 8 | UInt64($1) }, low: ours[12..<20].reduce(0) { $0 << 8 | UInt64($1) })
        case .copyOurCommitment, .refuseWhenSecond, .lieWhenSecond:
            break
        }
        let theirs = strategy == .copyOurCommitment ? ours : Commitment.make(roll: roll, nonce: nonce)
        d.deliver(.reset)
        d.deliver(.rollCommit(commitment: theirs))
        guard let seen = d.reveal else { t.refused = d.failure == nil ? 0 : 1; return (t, d) }
        // The peer now knows both secrets: it can tell who would move first before it reveals.
        let wouldBeFirst = FirstMove.decide(ourCommitment: theirs, ourSecret: Commitment.secret(roll: roll, nonce: nonce),
                                            theirCommitment: ours, theirSecret: Commitment.secret(roll: seen.roll, nonce: seen.nonce))?
            .weMoveFirst ?? false
        if !wouldBeFirst, strategy == .refuseWhenSecond {
            d.advance(to: d.now + GameSession.rollTimeout)
            t.forfeits = d.honest.score.won
            return (t, d)
        }
        if !wouldBeFirst, strategy == .lieWhenSecond {
            d.deliver(.roll(value: roll == 0 ? 1 : roll - 1, nonce: nonce))
            t.refused = d.failure?.code == .commitmentMismatch ? 1 : 0
            return (t, d)
        }
        d.deliver(.roll(value: roll, nonce: nonce))
        d.deliver(.rollAck(value: seen.roll))
        t.peerFirst = d.honest.state == .opponentTurn ? 1 : 0
        return (t, d)
    }

    static let games: UInt64 = 2000

    /// The peer moves first about half the time whatever it does: 2,000 games per strategy,
    /// 45..55 % is 4.5 standard deviations wide. (With the old rule, always 999,999 moved first
    /// in every game.)
    @Test(arguments: Strategy.allCases)
    func noStrategyMovesFirstMoreThanHalfTheTime(strategy: Strategy) {
        var total = Tally()
        for game in 0..<Self.games {
            let (t, d) = Self.play(strategy, game: game)
            total.games += 1
            total.peerFirst += t.peerFirst
            total.forfeits += t.forfeits
            total.refused += t.refused
            if strategy != .refuseWhenSecond, strategy != .lieWhenSecond, strategy != .copyOurCommitment {
                #expect(d.failure == nil && [.myTurn, .opponentTurn].contains(d.honest.state), "game \(game)")
            }
        }
        let share = Double(total.peerFirst) / Double(total.games)
        switch strategy {
        case .copyOurCommitment:
            // Refused on receipt, before we revealed anything.
            #expect(total.refused == total.games && total.peerFirst == 0)
        case .refuseWhenSecond:
            // It moves first only when the coin says so; every refusal is a forfeit it loses.
            #expect((0.45...0.55).contains(share), "\(share)")
            #expect(total.forfeits == total.games - total.peerFirst)
        case .lieWhenSecond:
            #expect((0.45...0.55).contains(share), "\(share)")
            #expect(total.refused == total.games - total.peerFirst)
        default:
            #expect((0.45...0.55).contains(share), "\(strategy): \(share)")
        }
    }

    /// The issue's measurement, message by message: a peer that always commits to 999,999 moved
    /// first in 300 of 300 games under the old rule (higher roll first).
    @Test func alwaysCommittingTheHighestRollNoLongerWins() {
        var peerFirst = 0
        let nonce = ID128(high: 0, low: 0)
        for game in UInt64(0)..<300 {
            var h = GameSession(rng: SplitMix64(seed: game))
            h.handle(.start, now: .zero)
            h.handle(.received(.reset), now: .zero)
            h.handle(.received(.rollCommit(commitment: Commitment.make(roll: 999_999, nonce: nonce))), now: .zero)
            let reveals: [UInt32] = h.pollActions().compactMap { if case let .send(.roll(v, _)) = $0 { v } else { nil } }
            let ours = reveals.first ?? 0
            h.handle(.received(.roll(value: 999_999, nonce: nonce)), now: .zero)
            h.handle(.received(.rollAck(value: ours)), now: .zero)
            if h.state == .opponentTurn { peerFirst += 1 }
        }
        #expect((120...180).contains(peerFirst), "\(peerFirst) of 300")
    }

    @Test func aCopiedCommitmentGetsNoReveal() {
        let (_, d) = Self.play(.copyOurCommitment, game: 1)
        #expect(d.failure?.code == .commitmentMismatch)
        #expect(d.reveal == nil)
    }

    @Test func refusingToRevealForfeitsOnBothCounts() {
        // Find a game where the refuser would move second, and look at what the honest side shows.
        for game in UInt64(0)..<50 {
            let (t, d) = Self.play(.refuseWhenSecond, game: game)
            guard t.peerFirst == 0 else { continue }
            #expect(d.shown.contains(.timeUp(yours: false, clock: .roll)))
            #expect(d.shown.contains(.gameOver(result: .won, line: nil, resigned: false)))
            #expect(d.honest.score == Score(won: 1))
            #expect(d.failure?.code == .timeout)
            #expect(d.failure?.text == "no ROLL and ROLL_ACK within 8.0 seconds of our RESET: the game is forfeit")
            return
        }
        Issue.record("no game where the refuser moved second")
    }

    @Test func aPeerThatNeverCommitsIsClosedWithoutAResult() {
        var d = Duel(seed: 3)
        d.advance(to: d.now + (GameSession.rollTimeout - .milliseconds(1)))
        #expect(d.failure == nil)
        d.advance(to: d.now + .milliseconds(1))
        #expect(d.failure?.code == .timeout)
        #expect(d.honest.score == Score())
        #expect(!d.shown.contains { if case .gameOver = $0 { true } else { false } })
    }

    /// Protocol.md §8's worked example: A rolls 123456 with nonce 0f0e..00, B 654321 with 0001..0f.
    @Test func protocolWorkedExample() throws {
        let na = try #require(ID128(hex: "0f0e0d0c0b0a09080706050403020100"))
        let nb = try #require(ID128(hex: "000102030405060708090a0b0c0d0e0f"))
        let ca = Commitment.make(roll: 123_456, nonce: na), cb = Commitment.make(roll: 654_321, nonce: nb)
        let a = try #require(FirstMove.decide(ourCommitment: ca, ourSecret: Commitment.secret(roll: 123_456, nonce: na),
                                              theirCommitment: cb, theirSecret: Commitment.secret(roll: 654_321, nonce: nb)))
        let b = try #require(FirstMove.decide(ourCommitment: cb, ourSecret: Commitment.secret(roll: 654_321, nonce: nb),
                                              theirCommitment: ca, theirSecret: Commitment.secret(roll: 123_456, nonce: na)))
        #expect(cb.lexicographicallyPrecedes(ca)) // "B's commitment 2263... sorts before A's 4fb5..."
        #expect(a.weMoveFirst && !b.weMoveFirst)
        #expect(a.ourRoll == 833_116 && a.theirRoll == 376_120)
        #expect(b.ourRoll == 376_120 && b.theirRoll == 833_116)
    }

    /// Protocol.md §8's worked example in a quick roll: every hash BLAKE2b-256.
    @Test func quickWorkedExample() throws {
        let na = try #require(ID128(hex: "0f0e0d0c0b0a09080706050403020100"))
        let nb = try #require(ID128(hex: "000102030405060708090a0b0c0d0e0f"))
        let ca = Commitment.make(roll: 123_456, nonce: na, quick: true), cb = Commitment.make(roll: 654_321, nonce: nb, quick: true)
        let a = try #require(FirstMove.decide(ourCommitment: ca, ourSecret: Commitment.secret(roll: 123_456, nonce: na),
                                              theirCommitment: cb, theirSecret: Commitment.secret(roll: 654_321, nonce: nb), quick: true))
        let b = try #require(FirstMove.decide(ourCommitment: cb, ourSecret: Commitment.secret(roll: 654_321, nonce: nb),
                                              theirCommitment: ca, theirSecret: Commitment.secret(roll: 123_456, nonce: na), quick: true))
        #expect(ca.lexicographicallyPrecedes(cb)) // "A's commitment 138c... sorts first"
        #expect(!a.weMoveFirst && b.weMoveFirst)
        #expect(b.ourRoll == 693_133 && b.theirRoll == 526_824 && a.ourRoll == 526_824 && a.theirRoll == 693_133)
    }

    @Test func equalCommitmentsDecideNothing() {
        let c = Commitment.make(roll: 1, nonce: ID128(high: 1, low: 1))
        let s = Commitment.secret(roll: 1, nonce: ID128(high: 1, low: 1))
        #expect(FirstMove.decide(ourCommitment: c, ourSecret: s, theirCommitment: c, theirSecret: s) == nil)
    }
}
