import TicTacTime
import TicTacWire

/// A remote fault: the peer broke the protocol (Protocol.md §5); the game ends with ERROR.
public struct GameFault: Error, Sendable {
    public let code: ErrorCode
    public let text: String

    public init(_ code: ErrorCode, _ text: String) {
        self.code = code
        self.text = text
    }
}

/// One fair roll (Protocol.md §8, "Who moves first"): each side commits to SHA-256 of a secret
/// (roll and nonce), reveals it once it holds the peer's commitment, checks the peer's reveal
/// against its commitment and acknowledges it by echoing the roll; with both reveals in and our
/// own acknowledged, `FirstMove` decides from both secrets, so neither side alone steers it.
/// A new game takes a new exchange: no roll is ever reused.
struct RollExchange {
    private(set) var ours: (roll: UInt32, nonce: ID128, commitment: [UInt8])?
    /// Our ROLL went out: from now on the peer can know who moves first.
    private(set) var revealed = false
    private(set) var theirCommitment: [UInt8]?
    private(set) var theirMoveTime: UInt16 = 0
    private var theirRoll: (value: UInt32, nonce: ID128)?
    /// We hold the peer's ROLL: its reveal went out, so it counts our leaving as a forfeit.
    var theirsRevealed: Bool { theirRoll != nil }
    private var acknowledged = false
    /// A quick roll (Protocol.md §8): its commitments, key and decision hash with BLAKE2b-256.
    var quick = false

    init() {}

    /// A new exchange that keeps a commitment the peer already sent for this game (it followed
    /// the peer's RESET, before our own game started).
    init(keepingCommitmentOf early: RollExchange) {
        theirCommitment = early.theirCommitment
        theirMoveTime = early.theirMoveTime
    }

    /// Picks a fresh roll and nonce and sends the commitment; reveals if the peer's is in.
    mutating func commit(moveTime: UInt16, using rng: inout AnyRandom, into out: inout [GameAction]) {
        let roll = UInt32.random(in: 0...Message.maxRoll, using: &rng)
        let nonce = ID128.random(using: &rng)
        let commitment = Commitment.make(roll: roll, nonce: nonce, quick: quick)
        ours = (roll, nonce, commitment)
        fixKey()
        out.append(.send(.rollCommit(commitment: commitment, moveTime: moveTime)))
    }

    /// The peer's commitment for a game that has not started on our side yet: kept, once.
    mutating func keepEarly(_ commitment: [UInt8], moveTime: UInt16) -> Bool {
        guard theirCommitment == nil else { return false }
        theirCommitment = commitment
        theirMoveTime = moveTime
        fixKey()
        return true
    }

    /// ROLL_COMMIT. A copy of ours is refused: the peer could open it with our own reveal and
    /// make the joint value zero.
    mutating func receiveCommit(_ c: [UInt8], moveTime: UInt16) throws(GameFault) {
        guard theirCommitment == nil else {
            throw GameFault(.unexpectedMessage, "second ROLL_COMMIT before the roll was decided")
        }
        if let ours, ours.commitment == c { throw GameFault(.commitmentMismatch, "ROLL_COMMIT repeats our own commitment") }
        theirCommitment = c
        theirMoveTime = moveTime
        fixKey()
    }

    /// ROLL: checked against the peer's commitment, then acknowledged by echoing the roll. A
    /// quick roll is not acknowledged (nil): the sealed stream already guarantees what the echo
    /// checked, so ours counts as read once the peer's ROLL is in (ours went out first, step 3).
    mutating func receiveRoll(_ value: UInt32, nonce: ID128) throws(GameFault) -> Message? {
        guard let c = theirCommitment else { throw GameFault(.unexpectedMessage, "ROLL before ROLL_COMMIT") }
        guard theirRoll == nil else { throw GameFault(.unexpectedMessage, "second ROLL for one commitment") }
        guard Commitment.verify(c, roll: value, nonce: nonce, quick: quick) else {
            throw GameFault(.commitmentMismatch, "ROLL \(value) does not match its commitment")
        }
        theirRoll = (value, nonce)
        guard !quick else {
            acknowledged = revealed
            return nil
        }
        return .rollAck(value: value)
    }

    /// ROLL_ACK: the echo must be what we sent, else the peer saw another roll.
    mutating func receiveAck(_ value: UInt32) throws(GameFault) {
        guard let ours, revealed, !acknowledged else { throw GameFault(.unexpectedMessage, "ROLL_ACK before our ROLL") }
        guard value == ours.roll else { throw GameFault(.rollMismatch, "ROLL_ACK echoes \(value), we rolled \(ours.roll)") }
        acknowledged = true
    }

    /// The link was lost between the two ROLL_ACKs: both reveals are in and we acknowledged the
    /// peer's, which may have decided on our ACK; ours is taken as read, so we decide alike
    /// (Protocol.md §13). False (nothing changes) when a reveal is missing.
    mutating func settleUnacknowledged() -> Bool {
        guard ours != nil, revealed, theirRoll != nil else { return false }
        acknowledged = true
        return true
    }

    /// Both commitments are in: the game's key, fixed whether or not the roll decides (made once:
    /// it is two SHA-256 blocks, and a recorded roll reads it three times).
    var key: ID128? { ours != nil && theirCommitment != nil ? madeKey : nil }
    // Not optional: an optional here made every read of a game's phase dearer (docs/performance.md).
    private var madeKey = ID128(high: 0, low: 0)

    private mutating func fixKey() {
        guard let ours, let theirCommitment else { return }
        madeKey = GameKey.make(ours.commitment, theirCommitment, quick: quick)
    }

    /// Our secret (roll || nonce), which RESUME carries for a roll that did not decide.
    var ourSecret: [UInt8]? { ours.map { Commitment.secret(roll: $0.roll, nonce: $0.nonce) } }

    /// A roll rebuilt from the history: our secret and the peer's commitment; `moveTime` is the
    /// game's agreed clock (both asks, already combined). The stored `key` tells whether it was
    /// a quick roll (the two rules make different keys); nil when neither rule makes it.
    init?(secret: [UInt8], theirCommitment: [UInt8], moveTime: UInt16, key: ID128) {
        guard let (roll, nonce) = Self.split(secret) else { return nil }
        quick = GameKey.isQuick(key: key, secret: secret, theirCommitment: theirCommitment)
        ours = (roll, nonce, Commitment.make(roll: roll, nonce: nonce, quick: quick))
        revealed = true
        self.theirCommitment = theirCommitment
        theirMoveTime = moveTime
        fixKey()
        guard madeKey == key else { return nil }
    }

    /// The peer's secret from its RESUME (Protocol.md §13): it must open the peer's commitment
    /// (and equal its ROLL if that came); the roll then decides as if its ROLL and our ACK had.
    mutating func take(theirSecret secret: [UInt8]) throws(GameFault) {
        guard let c = theirCommitment, let (roll, nonce) = Self.split(secret) else {
            throw GameFault(.malformed, "a roll secret without a commitment to open")
        }
        if let theirRoll, theirRoll.value != roll || theirRoll.nonce != nonce {
            throw GameFault(.commitmentMismatch, "RESUME's secret is not the peer's ROLL")
        }
        guard Commitment.verify(c, roll: roll, nonce: nonce, quick: quick) else {
            throw GameFault(.commitmentMismatch, "RESUME's secret does not open the peer's commitment")
        }
        theirRoll = (roll, nonce)
        acknowledged = true
    }

    private static func split(_ secret: [UInt8]) -> (UInt32, ID128)? {
        guard secret.count == Commitment.secretLength else { return nil }
        let roll = secret[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard let nonce = ID128(bytes: Array(secret[4...])) else { return nil }
        return (roll, nonce)
    }

    /// Who moves first, once both reveals are in and ours is acknowledged; nil before.
    func decision() throws(GameFault) -> FirstMove.Decision? {
        guard let ours, let theirRoll, let theirCommitment, acknowledged else { return nil }
        // Equal commitments were refused on receipt, so this always decides.
        guard let decision = FirstMove.decide(
            ourCommitment: ours.commitment, ourSecret: Commitment.secret(roll: ours.roll, nonce: ours.nonce),
            theirCommitment: theirCommitment, theirSecret: Commitment.secret(roll: theirRoll.value, nonce: theirRoll.nonce),
            quick: quick)
        else { throw GameFault(.commitmentMismatch, "ROLL_COMMIT repeats our own commitment") }
        return decision
    }

    /// Our ROLL, once we sent our commitment and hold the peer's (step 3); nil before, and after.
    mutating func reveal() -> Message? {
        guard let ours, theirCommitment != nil, !revealed else { return nil }
        revealed = true
        return .roll(value: ours.roll, nonce: ours.nonce)
    }
}

extension GameSession {
    /// The roll decided: the game's key, who moves first, the clock; the exchange is dropped.
    /// `starting`: the game starts now (false: it waits for its link, and `resume` shows it).
    mutating func decide(_ decision: FirstMove.Decision, _ exchange: RollExchange, now: Instant, starting: Bool = true) {
        let first = decision.weMoveFirst
        key = exchange.key
        rollSecret = exchange.ourSecret
        agreedMoveTime = Self.agreedMoveTime(moveTime, exchange.theirMoveTime)
        if let key { record(.decided(weMoveFirst: first, key: key, moveTime: Int(agreedMoveTime))) }
        piece = first ? .o : .x
        rolls = (decision.ourRoll, decision.theirRoll)
        rolledQuickly = exchange.quick
        show(.rolls(yours: decision.ourRoll, theirs: decision.theirRoll, moveTime: Int(agreedMoveTime)))
        guard starting else {
            return phase = .paused(ourTurn: first, remaining: agreedMoveTime > 0 ? .seconds(Int64(agreedMoveTime)) : nil)
        }
        startClock(ourTurn: first, now: now) // the exchange is dropped: a roll is never reused
        show(.gameStarted(piece: piece, first: first, size: size))
        // A match that carries a score on (the history's): the front shows it from the first move.
        if ourRound == 1, score != Score() { show(.score(score)) }
        show(first ? .yourTurn : .opponentTurn)
    }

    /// The first move was not decided in time (Protocol.md §9). A peer that committed has our
    /// reveal (we send ROLL as soon as we hold its commitment) and withheld its own: it forfeits,
    /// so refusing to reveal never pays. A peer that never committed has no game to lose.
    mutating func rollTimedOut(_ exchange: RollExchange, now: Instant) {
        let seconds = Self.rollTimeout
        guard exchange.theirCommitment != nil else {
            return fail(GameFault(.timeout, "no ROLL_COMMIT within \(seconds) of our \(quickRoll ? "ROLL_COMMIT" : "RESET")"))
        }
        show(.timeUp(yours: false, clock: .roll))
        end(.won, line: nil, ending: .settled, now: now)
        fail(GameFault(.timeout, quickRoll ? "no ROLL within \(seconds) of our ROLL_COMMIT: the game is forfeit"
                                           : "no ROLL and ROLL_ACK within \(seconds) of our RESET: the game is forfeit"))
    }

    /// Our ROLL once both commitments are in. A roll that outlives its link is stored first
    /// (its key, our secret, the peer's commitment), so a restart can still decide it (§13).
    mutating func reveal(_ exchange: inout RollExchange) {
        guard let roll = exchange.reveal() else { return }
        if keepsRoll, recordsFacts, let key = exchange.key, let secret = exchange.ourSecret, let theirs = exchange.theirCommitment {
            let clock = Int(Self.agreedMoveTime(moveTime, exchange.theirMoveTime))
            emit(.record(.committed(secret: secret, theirCommitment: theirs, moveTime: clock), key: key))
        }
        emit(.send(roll))
    }

    /// The roll exchange's messages, while the first move is being decided.
    mutating func receiveRoll(_ message: Message, _ exchange: inout RollExchange, now: Instant,
                                      deadline: Instant) throws(GameFault) {
        switch message {
        case let .rollCommit(c, moveTime):
            try exchange.receiveCommit(c, moveTime: moveTime)
            reveal(&exchange)
        case let .roll(value, nonce):
            // A quick roll decides below, in this same turn: the decision is recorded, not the secret.
            guard let ack = try exchange.receiveRoll(value, nonce: nonce) else { break }
            if keepsRoll, recordsFacts, let key = exchange.key {
                emit(.record(.acknowledged(theirSecret: Commitment.secret(roll: value, nonce: nonce)), key: key))
            }
            emit(.send(ack))
        case let .rollAck(value): try exchange.receiveAck(value)
        default: throw GameFault.rejecting(message, stateContext)
        }
        guard let decision = try exchange.decision() else { return phase = .rolling(exchange, deadline: deadline) }
        decide(decision, exchange, now: now)
    }

    /// A message of the game being played, in the same round on both sides.
}
