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
        let commitment = Commitment.make(roll: roll, nonce: nonce)
        ours = (roll, nonce, commitment)
        out.append(.send(.rollCommit(commitment: commitment, moveTime: moveTime)))
        revealIfReady(into: &out)
    }

    /// The peer's commitment for a game that has not started on our side yet: kept, once.
    mutating func keepEarly(_ commitment: [UInt8], moveTime: UInt16) -> Bool {
        guard theirCommitment == nil else { return false }
        theirCommitment = commitment
        theirMoveTime = moveTime
        return true
    }

    /// ROLL_COMMIT. A copy of ours is refused: the peer could open it with our own reveal and
    /// make the joint value zero.
    mutating func receiveCommit(_ c: [UInt8], moveTime: UInt16, into out: inout [GameAction]) throws(GameFault) {
        guard theirCommitment == nil else {
            throw GameFault(.unexpectedMessage, "second ROLL_COMMIT before the roll was decided")
        }
        if let ours, ours.commitment == c { throw GameFault(.commitmentMismatch, "ROLL_COMMIT repeats our own commitment") }
        theirCommitment = c
        theirMoveTime = moveTime
        revealIfReady(into: &out)
    }

    /// ROLL: checked against the peer's commitment, then acknowledged by echoing the roll.
    mutating func receiveRoll(_ value: UInt32, nonce: ID128, into out: inout [GameAction]) throws(GameFault) {
        guard let c = theirCommitment else { throw GameFault(.unexpectedMessage, "ROLL before ROLL_COMMIT") }
        guard theirRoll == nil else { throw GameFault(.unexpectedMessage, "second ROLL for one commitment") }
        guard Commitment.verify(c, roll: value, nonce: nonce) else {
            throw GameFault(.commitmentMismatch, "ROLL \(value) does not match its commitment")
        }
        theirRoll = (value, nonce)
        out.append(.send(.rollAck(value: value)))
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

    /// Who moves first, once both reveals are in and ours is acknowledged; nil before.
    func decision() throws(GameFault) -> FirstMove.Decision? {
        guard let ours, let theirRoll, let theirCommitment, acknowledged else { return nil }
        // Equal commitments were refused on receipt, so this always decides.
        guard let decision = FirstMove.decide(
            ourCommitment: ours.commitment, ourSecret: Commitment.secret(roll: ours.roll, nonce: ours.nonce),
            theirCommitment: theirCommitment, theirSecret: Commitment.secret(roll: theirRoll.value, nonce: theirRoll.nonce))
        else { throw GameFault(.commitmentMismatch, "ROLL_COMMIT repeats our own commitment") }
        return decision
    }

    private mutating func revealIfReady(into out: inout [GameAction]) {
        guard let ours, theirCommitment != nil, !revealed else { return }
        revealed = true
        out.append(.send(.roll(value: ours.roll, nonce: ours.nonce)))
    }
}

extension GameSession {
    /// The roll decided: the game's key, who moves first, the clock; the exchange is dropped.
    mutating func decide(_ decision: FirstMove.Decision, _ exchange: RollExchange, now: Instant) {
        let first = decision.weMoveFirst
        if let ours = exchange.ours, let theirs = exchange.theirCommitment { key = GameKey.make(ours.commitment, theirs) }
        agreedMoveTime = Self.agreedMoveTime(moveTime, exchange.theirMoveTime)
        if let key { record(.decided(weMoveFirst: first, key: key, moveTime: Int(agreedMoveTime))) }
        piece = first ? .o : .x
        startClock(ourTurn: first, now: now) // the exchange is dropped: a roll is never reused
        show(.rolls(yours: decision.ourRoll, theirs: decision.theirRoll, moveTime: Int(agreedMoveTime)))
        show(.gameStarted(piece: piece, first: first, size: size))
        show(first ? .yourTurn : .opponentTurn)
    }
}
