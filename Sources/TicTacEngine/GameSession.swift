import TicTacWire
import TicTacTime

// Theory of operation
//
// One GameSession is one side of a match between two players over an ordered, reliable link
// (TCP). It does no I/O and reads no clock: the owner feeds it inputs with the current time
// (`handle(_:now:)`, `handleTimeout(now:)`), then drains `pollActions()` (frames to send,
// events to show, a fatal protocol error) and asks `nextDeadline` when to call back.
//
// A game (Protocol.md §8) runs: Beginning -> RollingDice -> MyTurn/OpponentTurn -> Done, and after
// `rematchDelay` in Done a new game starts on its own. Each "new game" clears the board, sends
// RESET, then ROLL_COMMIT. Once a side has sent its commitment and holds the peer's, it sends ROLL
// (roll + nonce); on the peer's ROLL it checks the commitment and answers ROLL_ACK echoing the roll.
// On the peer's ROLL_ACK (which the stream order guarantees comes after the peer's ROLL) the side
// decides with `FirstMove` from both secrets, so neither side alone steers it and ties cannot
// happen. All die state is then cleared so no roll is reused. RESET received in Done clears die
// state (the seed's rule: the peer's next commitment follows on the stream and must be kept);
// RESET in RollingDice is the peer's own start and changes nothing.
//
// Timers (Protocol.md §9), one at a time in `nextDeadline`: the first move must be decided within
// `rollTimeout` of our RESET (a peer that saw our reveal and withholds its own forfeits, and the
// link closes); our player's move clock resigns for it with TIME_UP; the peer's move clock, plus
// `moveGrace`, ends a game the peer stalls (forfeit, and the link closes).
//
// Rounds: every RESET starts a round, so each side counts the rounds it started and the rounds the
// peer started. A peer message from the round we already finished crossed our final MOVE or our
// RESIGN on the wire; it is settled the same way on both sides (a RESIGN crossing our winning move
// changes nothing; two crossing RESIGNs, or a RESIGN crossing a drawing move, make a draw) and
// never leaks into the next game.
//
// Every remote message is checked against the state. A violation emits `.fail` and moves to
// Interrupted; the owner sends ERROR and closes. The board is never changed by a bad message.

/// The seed's game states, with their values.
public enum GameState: UInt8, Sendable {
    case beginning = 0, rollingDice = 1, myTurn = 2, opponentTurn = 3, interrupted = 4, done = 5
}

/// A finished game, from this side's point of view.
public enum GameResult: String, Sendable {
    case won, lost, draw
}

/// Running score for the pair.
public struct Score: Sendable, Hashable {
    public var won = 0, lost = 0, drawn = 0
    public init(won: Int = 0, lost: Int = 0, drawn: Int = 0) {
        self.won = won
        self.lost = lost
        self.drawn = drawn
    }
}

/// What the player in this seat is told.
public enum GameEvent: Sendable, Equatable {
    case gameStarted(piece: Piece, first: Bool, size: BoardSize)
    /// The first move was decided: the rolls shown (the higher moves first, never equal) and the
    /// agreed seconds per move (0: no clock). Comes just before `gameStarted`.
    case rolls(yours: Int, theirs: Int, moveTime: Int)
    /// A clock ran out (Protocol.md §9): ours (`yours`) or the peer's, in the roll or on a move.
    /// The game-over event follows.
    case timeUp(yours: Bool, clock: Clock)
    case yourTurn
    case opponentTurn
    case opponentMoved(cell: Int)
    /// The board after every move.
    case board(Board)
    /// `line` holds 0-based cells, nil on a draw or a resignation.
    case gameOver(result: GameResult, line: [Int]?, resigned: Bool)
    case score(Score)
    /// The link is gone (the seed's "Peer Disconnected!").
    case interrupted
}

/// Kinds of `GameEvent`, for an owner that wants only some: a headless bot has no use for the
/// board and the turn after every move, and building events nobody reads cost it about a
/// sixth of its work per 3 x 3 round trip (tools/bench/instructions).
public struct GameEventKinds: OptionSet, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let gameStarted = GameEventKinds(rawValue: 1 << 0)
    public static let rolls = GameEventKinds(rawValue: 1 << 1)
    public static let timeUp = GameEventKinds(rawValue: 1 << 2)
    public static let yourTurn = GameEventKinds(rawValue: 1 << 3)
    public static let opponentTurn = GameEventKinds(rawValue: 1 << 4)
    public static let opponentMoved = GameEventKinds(rawValue: 1 << 5)
    public static let board = GameEventKinds(rawValue: 1 << 6)
    public static let gameOver = GameEventKinds(rawValue: 1 << 7)
    public static let score = GameEventKinds(rawValue: 1 << 8)
    public static let interrupted = GameEventKinds(rawValue: 1 << 9)
    public static let all = GameEventKinds(rawValue: (1 << 10) - 1)
}

extension GameEvent {
    public var kind: GameEventKinds {
        switch self {
        case .gameStarted: .gameStarted
        case .rolls: .rolls
        case .timeUp: .timeUp
        case .yourTurn: .yourTurn
        case .opponentTurn: .opponentTurn
        case .opponentMoved: .opponentMoved
        case .board: .board
        case .gameOver: .gameOver
        case .score: .score
        case .interrupted: .interrupted
        }
    }
}

/// The two clocks of Protocol.md §9.
public enum Clock: String, Sendable {
    /// The first-move decision (commit, reveal, acknowledge).
    case roll
    /// One move of a player.
    case move
}

/// What the owner must do.
public enum GameAction: Sendable, Equatable {
    case send(Message)
    case show(GameEvent)
    /// The peer broke the protocol: send ERROR(code, message) and close the connection.
    case fail(ErrorCode, String)
}

/// Inputs from the link and the local player.
public enum GameInput: Sendable, Equatable {
    /// The link is ready (the invitation was accepted): run "new game".
    case start
    case received(Message)
    /// Cell is 0-based.
    case localMove(Int)
    case localResign
    /// Start the next game now: in Done, skips the rematch wait; in a running game, resigns first.
    case localNewGame
    case connectionLost
}

/// A local command that cannot be carried out; the game goes on.
public enum LocalActionError: Error, Sendable, Equatable, CustomStringConvertible {
    case notYourTurn(GameState)
    case illegal(MoveError)
    case noGame

    public var description: String {
        switch self {
        case let .notYourTurn(state):
            switch state {
            case .rollingDice: "wait: deciding who moves first"
            case .opponentTurn: "wait: it is your opponent's turn"
            case .done: "the game is over; a new one starts shortly"
            default: "no game in progress"
            }
        case let .illegal(e): e.description
        case .noGame: "no game in progress"
        }
    }
}

/// One side of a match. See the theory of operation above.
public struct GameSession {
    public let size: BoardSize
    public let rematchDelay: Duration
    public private(set) var state: GameState = .beginning
    public private(set) var board: Board
    public private(set) var piece: Piece = .empty
    public private(set) var score = Score()
    /// Cells played this game, in order (both sides).
    public private(set) var moves: [Int] = []
    /// The last finished game's result.
    public private(set) var lastResult: GameResult?
    /// Games finished with this peer.
    public var gamesPlayed: Int { score.won + score.lost + score.drawn }
    /// When `handleTimeout` has work: the rematch (Done), the roll deadline (RollingDice), a move
    /// clock (MyTurn, OpponentTurn); else nil.
    public private(set) var nextDeadline: Instant?
    /// Seconds per move our player asks for (0: none); the game uses the shorter nonzero ask.
    public let moveTime: UInt16
    /// The agreed seconds per move of the running game (0: no clock).
    public private(set) var agreedMoveTime: UInt16 = 0

    /// The first move must be decided this long after our RESET: the peer's rematch wait (3.0 s)
    /// plus 5 s for an automatic reveal (Protocol.md §9).
    public static let rollTimeout: Duration = .seconds(8)
    /// Extra time the peer's move clock gets before we end a stalled game: its own daemon
    /// resigns at the clock, and its TIME_UP needs a moment to arrive (Protocol.md §9).
    public static let moveGrace: Duration = .seconds(10)
    /// A nonzero move time below this is read as this (so a peer cannot rush us).
    public static let minimumMoveTime: UInt16 = 5

    /// The events the owner is given (`.show` actions); the others are not queued. The game runs
    /// the same whatever is left out.
    public var shownEvents: GameEventKinds = .all

    private var rng: AnyRandom
    private var actions: [GameAction] = []
    private var die = DieState()
    /// Games started on each side: one per RESET sent and per RESET received. The peer's messages
    /// belong to its round, so a message sent before the peer saw our game end is told apart.
    private var ourRound = 0
    private var peerRound = 0
    /// How the last game ended, for messages that crossed its end on the wire.
    private var lastEnding: Ending?
    /// The board when we resigned in the peer's turn, and the peer's piece: only then may a peer
    /// MOVE have crossed our RESIGN (resigning in our own turn, no peer MOVE can be in flight).
    private var atResign: (board: Board, theirPiece: Piece)?

    private enum Ending { case ourMove, theirMove, ourResign, theirResign, settled }

    /// Both halves of one roll exchange.
    private struct DieState {
        var ours: (roll: UInt32, nonce: ID128, commitment: [UInt8])?
        var revealed = false
        var theirCommitment: [UInt8]?
        var theirMoveTime: UInt16 = 0
        var theirRoll: (value: UInt32, nonce: ID128)?
        var acknowledged = false
    }

    /// `score` carries on a running score from an earlier match with the same peer. `moveTime`
    /// is the clock our player asks for per move (zero: none; Protocol.md §9).
    public init(size: BoardSize = .classic, rng: some RandomNumberGenerator, rematchDelay: Duration = .seconds(3),
                score: Score = Score(), moveTime: Duration = .zero) {
        self.size = size
        self.score = score
        self.board = Board(size: size)
        self.rng = AnyRandom(rng)
        self.rematchDelay = rematchDelay
        self.moveTime = UInt16(clamping: moveTime.components.seconds)
    }

    /// The game's clock from both asks: the shorter nonzero one, at least `minimumMoveTime`;
    /// 0 (none) when neither asks (Protocol.md §9).
    public static func agreedMoveTime(_ a: UInt16, _ b: UInt16) -> UInt16 {
        switch (a, b) {
        case (0, 0): 0
        case (0, let ask), (let ask, 0): max(ask, minimumMoveTime)
        default: max(min(a, b), minimumMoveTime)
        }
    }

    /// Actions produced since the last call, in order.
    public mutating func pollActions() -> [GameAction] {
        var out: [GameAction] = []
        swap(&out, &actions) // hand over the buffer rather than copy it
        return out
    }

    /// The same, into `out`: an empty array whose capacity is kept (emptied with
    /// `removeAll(keepingCapacity: true)`). The two buffers trade places; nothing is allocated.
    public mutating func pollActions(into out: inout [GameAction]) {
        precondition(out.isEmpty, "pollActions(into:) takes an empty buffer") // our callers' own
        swap(&out, &actions)
    }

    /// Feeds one input. Local commands that cannot be done throw and change nothing; remote
    /// faults never throw: they become a `.fail` action.
    public mutating func handle(_ input: GameInput, now: Instant) throws(LocalActionError) {
        switch input {
        case .start:
            if state == .beginning { newGame(now: now) }
        case let .received(message):
            receive(message, now: now)
        case let .localMove(cell):
            guard state == .myTurn else { throw .notYourTurn(state) }
            do { try board.place(piece, at: cell) } catch { throw .illegal(error) }
            moves.append(cell)
            emit(.send(.move(cell: UInt16(cell))))
            showBoard()
            if !finishIfOver(after: cell, ending: .ourMove, now: now) {
                state = .opponentTurn
                startClock(now: now)
                show(.opponentTurn)
            }
        case .localResign:
            guard state == .myTurn || state == .opponentTurn else { throw .notYourTurn(state) }
            resign(now: now)
        case .localNewGame:
            switch state {
            case .done:
                newGame(now: now)
            case .myTurn, .opponentTurn:
                resign(now: now)
                newGame(now: now)
            case .rollingDice:
                break // a game is already starting
            case .beginning, .interrupted:
                throw .noGame
            }
        case .connectionLost:
            guard state != .interrupted else { return }
            state = .interrupted
            nextDeadline = nil // the seed forgot to cancel its restart timer here
            show(.interrupted)
        }
    }

    /// Call when `nextDeadline` has passed: starts the rematch, or acts on a clock that ran out.
    public mutating func handleTimeout(now: Instant) {
        guard let deadline = nextDeadline, deadline <= now else { return }
        switch state {
        case .done:
            newGame(now: now)
        case .rollingDice:
            rollTimedOut(now: now)
        case .myTurn:
            // Our player's clock ran out: we give up for it, and say why (Protocol.md §9).
            show(.timeUp(yours: true, clock: .move))
            resign(now: now, message: .timeUp)
        case .opponentTurn:
            // The peer's daemon should have sent TIME_UP at its clock; past the grace it is
            // silent or modified. The game is ours, and the link closes (Protocol.md §9).
            show(.timeUp(yours: false, clock: .move))
            end(.won, line: nil, ending: .settled, now: now)
            fail(.timeout, "no MOVE within the \(agreedMoveTime) s move clock and \(Self.moveGrace) of grace: the game is forfeit")
        case .beginning, .interrupted:
            nextDeadline = nil
        }
    }

    /// The first move was not decided in time (Protocol.md §9). A peer that committed has our
    /// reveal (we send ROLL as soon as we hold its commitment) and withheld its own: it forfeits,
    /// so refusing to reveal never pays. A peer that never committed has no game to lose.
    private mutating func rollTimedOut(now: Instant) {
        let seconds = Self.rollTimeout
        guard die.theirCommitment != nil else {
            return fail(.timeout, "no ROLL_COMMIT within \(seconds) of our RESET")
        }
        show(.timeUp(yours: false, clock: .roll))
        end(.won, line: nil, ending: .settled, now: now)
        fail(.timeout, "no ROLL and ROLL_ACK within \(seconds) of our RESET: the game is forfeit")
    }

    /// Starts the clock of the side to move: ours exactly, the peer's with the grace margin.
    private mutating func startClock(now: Instant) {
        guard agreedMoveTime > 0 else { return nextDeadline = nil }
        let clock = Duration.seconds(Int64(agreedMoveTime))
        nextDeadline = now + (state == .myTurn ? clock : clock + Self.moveGrace)
    }

    // MARK: - Transitions

    private mutating func newGame(now: Instant) {
        board.removeAll() // keeps the board's line index: a rematch does not rebuild it
        moves.removeAll(keepingCapacity: true)
        piece = .empty
        agreedMoveTime = 0
        nextDeadline = now + Self.rollTimeout
        state = .rollingDice
        ourRound += 1
        emit(.send(.reset))
        // Keep a commitment the peer already sent for this game (it followed its RESET).
        let early = peerRound == ourRound ? die : DieState()
        die = DieState()
        die.theirCommitment = early.theirCommitment
        die.theirMoveTime = early.theirMoveTime
        commit()
    }

    /// Picks a fresh roll and nonce, sends the commitment, and reveals if the peer's is in.
    private mutating func commit() {
        let roll = UInt32.random(in: 0...Message.maxRoll, using: &rng)
        let nonce = ID128.random(using: &rng)
        let commitment = Commitment.make(roll: roll, nonce: nonce)
        die.ours = (roll, nonce, commitment)
        emit(.send(.rollCommit(commitment: commitment, moveTime: moveTime)))
        revealIfReady()
    }

    /// Takes the peer's commitment: refuses a copy of ours (it could open it with our own reveal
    /// and make the joint value zero), then reveals if ours is out.
    private mutating func takeCommitment(_ c: [UInt8], moveTime: UInt16) {
        if let ours = die.ours, ours.commitment == c {
            return fail(.commitmentMismatch, "ROLL_COMMIT repeats our own commitment")
        }
        die.theirCommitment = c
        die.theirMoveTime = moveTime
        revealIfReady()
    }

    private mutating func revealIfReady() {
        guard let ours = die.ours, die.theirCommitment != nil, !die.revealed else { return }
        die.revealed = true
        emit(.send(.roll(value: ours.roll, nonce: ours.nonce)))
    }

    private mutating func receive(_ message: Message, now: Instant) {
        guard state != .interrupted else { return } // the link is being torn down
        if case .reset = message { return receiveReset() } // a pattern, not ==: no full comparison of two messages
        switch peerRound - ourRound {
        case 0 where state == .rollingDice || state == .myTurn || state == .opponentTurn:
            receiveInGame(message, now: now)
        case 0 where state == .done, -1:
            receiveAfterEnd(message)
        case 1 where state == .done || state == .beginning:
            // The peer started the next game first: keep its commitment for ours.
            guard case let .rollCommit(c, moveTime) = message, die.theirCommitment == nil else {
                return reject(message, "before our next game started")
            }
            die.theirCommitment = c
            die.theirMoveTime = moveTime
        default:
            reject(message, stateContext)
        }
    }

    /// RESET opens the peer's next round: it is the peer's "new game" (Protocol.md §8).
    private mutating func receiveReset() {
        peerRound += 1
        switch peerRound - ourRound {
        case 0 where state == .rollingDice:
            break // the peer joins the game we started
        case 1 where state == .done || state == .beginning:
            die = DieState() // the peer starts the next game before us
        default:
            fail(.unexpectedMessage, "RESET in state \(state)")
        }
    }

    /// A message of the game being played, in the same round on both sides.
    private mutating func receiveInGame(_ message: Message, now: Instant) {
        switch (state, message) {
        case (.rollingDice, .rollCommit(let c, let moveTime)):
            guard die.theirCommitment == nil else {
                return fail(.unexpectedMessage, "second ROLL_COMMIT before the roll was decided")
            }
            takeCommitment(c, moveTime: moveTime)

        case (.rollingDice, .roll(let value, let nonce)):
            guard let c = die.theirCommitment else { return fail(.unexpectedMessage, "ROLL before ROLL_COMMIT") }
            guard die.theirRoll == nil else { return fail(.unexpectedMessage, "second ROLL for one commitment") }
            guard Commitment.verify(c, roll: value, nonce: nonce) else {
                return fail(.commitmentMismatch, "ROLL \(value) does not match its commitment")
            }
            die.theirRoll = (value, nonce)
            emit(.send(.rollAck(value: value)))
            decideIfReady(now: now)

        case (.rollingDice, .rollAck(let value)):
            guard let ours = die.ours, die.revealed, !die.acknowledged else {
                return fail(.unexpectedMessage, "ROLL_ACK before our ROLL")
            }
            // The echo must be what we sent: anything else means the peer saw another roll.
            guard value == ours.roll else {
                return fail(.rollMismatch, "ROLL_ACK echoes \(value), we rolled \(ours.roll)")
            }
            die.acknowledged = true
            decideIfReady(now: now)

        case (.opponentTurn, .move(let wireCell)):
            let cell = Int(wireCell)
            do { try board.place(piece.opponent, at: cell) } catch {
                return fail(.illegalMove, "illegal MOVE: \(error)")
            }
            moves.append(cell)
            show(.opponentMoved(cell: cell))
            showBoard()
            if !finishIfOver(after: cell, ending: .theirMove, now: now) {
                state = .myTurn
                startClock(now: now)
                show(.yourTurn)
            }

        case (.myTurn, .resign), (.opponentTurn, .resign):
            end(.won, line: nil, ending: .theirResign, now: now)

        case (.opponentTurn, .timeUp):
            // The peer's own clock ran out in its turn: a resignation that says why (§9).
            show(.timeUp(yours: false, clock: .move))
            end(.won, line: nil, ending: .theirResign, now: now)

        default:
            reject(message, stateContext)
        }
    }

    /// A message the peer sent before it saw the end of the game we finished last: it crossed our
    /// final MOVE or our RESIGN on the wire. Neither side can tell which came first, so both settle
    /// on the same result (Protocol.md §8, "Crossing messages").
    private mutating func receiveAfterEnd(_ message: Message) {
        switch (lastEnding, message) {
        case (.ourResign, .move(let wireCell)):
            // The peer moved before it saw our RESIGN. It sees the game as that move left it.
            // Only a RESIGN sent in the peer's turn can be crossed by a MOVE (Protocol.md §8).
            guard var final = atResign?.board, let theirs = atResign?.theirPiece else {
                return reject(message, "out of turn: we resigned in our own turn")
            }
            do { try final.place(theirs, at: Int(wireCell)) } catch {
                return fail(.illegalMove, "illegal MOVE: \(error)")
            }
            atResign = nil // at most one move can cross a RESIGN
            if case .draw = final.outcome { settleAsDraw() } // the peer saw a draw, not our RESIGN
        case (.ourResign, .resign):
            settleAsDraw() // both resigned at once
        case (.ourResign, .timeUp) where atResign != nil:
            settleAsDraw() // we resigned in the peer's turn, as its clock ran out: both gave up
        case (.ourMove, .resign):
            lastEnding = .settled // the peer resigned before it saw our final move; ours stands
        default:
            reject(message, lastEnding == nil ? "before the first move was decided" : "after the game ended")
        }
    }

    /// Our resignation crossed the peer's resignation or drawing move: both sides call it a draw.
    private mutating func settleAsDraw() {
        score.lost -= 1
        score.drawn += 1
        lastResult = .draw
        lastEnding = .settled
        atResign = nil
        if state == .done { show(.gameOver(result: .draw, line: nil, resigned: true)) }
        show(.score(score))
    }

    /// Why a message does not fit the state, in words (for the ERROR text).
    private var stateContext: String {
        switch state {
        case .beginning, .rollingDice: "before the first move was decided"
        case .myTurn: "out of turn: it is our turn"
        case .opponentTurn: "in the peer's turn"
        case .done: "after the game ended"
        case .interrupted: "after the link failed"
        }
    }

    private mutating func reject(_ message: Message, _ context: String) {
        if case .move = message {
            fail(.illegalMove, "MOVE \(context)")
        } else {
            fail(.unexpectedMessage, "unexpected \(message.kind) \(context)")
        }
    }

    private mutating func decideIfReady(now: Instant) {
        guard let ours = die.ours, let theirs = die.theirRoll, let theirCommitment = die.theirCommitment,
              die.acknowledged else { return }
        // Equal commitments were refused on receipt, so this always decides (Protocol.md §8).
        guard let decision = FirstMove.decide(
            ourCommitment: ours.commitment, ourSecret: Commitment.secret(roll: ours.roll, nonce: ours.nonce),
            theirCommitment: theirCommitment, theirSecret: Commitment.secret(roll: theirs.value, nonce: theirs.nonce))
        else { return fail(.commitmentMismatch, "ROLL_COMMIT repeats our own commitment") }
        let first = decision.weMoveFirst
        agreedMoveTime = Self.agreedMoveTime(moveTime, die.theirMoveTime)
        die = DieState() // never reuse a roll
        piece = first ? .o : .x
        state = first ? .myTurn : .opponentTurn
        startClock(now: now)
        show(.rolls(yours: decision.ourRoll, theirs: decision.theirRoll, moveTime: Int(agreedMoveTime)))
        show(.gameStarted(piece: piece, first: first, size: size))
        show(first ? .yourTurn : .opponentTurn)
    }

    /// Gives up the game: RESIGN from the player, TIME_UP when our own clock ran out.
    private mutating func resign(now: Instant, message: Message = .resign) {
        emit(.send(message))
        atResign = state == .opponentTurn ? (board, piece.opponent) : nil
        end(.lost, line: nil, ending: .ourResign, now: now)
    }

    /// Ends the game if the last move (on `cell`) won or filled the board.
    private mutating func finishIfOver(after cell: Int, ending: Ending, now: Instant) -> Bool {
        switch board.outcome(after: cell) {
        case .inProgress:
            return false
        case .draw:
            end(.draw, line: nil, ending: ending, now: now)
        case let .won(line):
            end(line.piece == piece ? .won : .lost, line: line.cells, ending: ending, now: now)
        }
        return true
    }

    private mutating func end(_ result: GameResult, line: [Int]?, ending: Ending, now: Instant) {
        switch result {
        case .won: score.won += 1
        case .lost: score.lost += 1
        case .draw: score.drawn += 1
        }
        lastResult = result
        lastEnding = ending
        if ending != .ourResign { atResign = nil }
        state = .done
        die = DieState()
        nextDeadline = now + rematchDelay
        show(.gameOver(result: result, line: line, resigned: ending == .ourResign || ending == .theirResign))
        show(.score(score))
    }

    private mutating func fail(_ code: ErrorCode, _ message: String) {
        state = .interrupted
        nextDeadline = nil
        emit(.fail(code, message))
    }

    private mutating func emit(_ action: consuming GameAction) { actions.append(action) } // moved in, not copied

    /// The board after a move, built only when it is shown: the event's copy retains the
    /// board's buffers, and a headless bot never reads it.
    private mutating func showBoard() {
        guard shownEvents.contains(.board) else { return }
        actions.append(.show(.board(board)))
    }

    /// Queues an event the owner is given (`shownEvents`); the others are dropped here.
    private mutating func show(_ event: consuming GameEvent) {
        guard shownEvents.contains(event.kind) else { return }
        actions.append(.show(event))
    }
}
