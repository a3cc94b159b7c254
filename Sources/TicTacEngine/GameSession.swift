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
// decides: higher roll moves first and plays O; a tie clears only the peer's half and the flags and
// commits to a fresh roll (the seed's tie bug wiped the new roll). All die state is then cleared so
// no roll is reused. RESET received in Done clears die state (the seed's rule: the peer's next
// commitment follows on the stream and must be kept); RESET in RollingDice is the peer's own start
// and changes nothing.
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
    /// Both rolls were equal: rolling again.
    case tieRoll
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
    /// When the rematch starts (in Done), else nil.
    public private(set) var nextDeadline: Instant?

    private var rng: AnyRandom
    private var actions: [GameAction] = []
    private var die = DieState()
    /// Games started on each side: one per RESET sent and per RESET received. The peer's messages
    /// belong to its round, so a message sent before the peer saw our game end is told apart.
    private var ourRound = 0
    private var peerRound = 0
    /// How the last game ended, for messages that crossed its end on the wire.
    private var lastEnding: Ending?
    /// The board when we resigned, and the peer's piece: a peer MOVE may have crossed our RESIGN.
    private var atResign: (board: Board, theirPiece: Piece)?

    private enum Ending { case ourMove, theirMove, ourResign, theirResign, settled }

    /// Both halves of one roll exchange.
    private struct DieState {
        var ours: (roll: UInt32, nonce: ID128)?
        var revealed = false
        var theirCommitment: [UInt8]?
        var theirRoll: UInt32?
        var acknowledged = false

        mutating func clearTheirs() {
            theirCommitment = nil
            theirRoll = nil
            acknowledged = false
            revealed = false
        }
    }

    /// `score` carries on a running score from an earlier match with the same peer.
    public init(size: BoardSize = .classic, rng: some RandomNumberGenerator, rematchDelay: Duration = .seconds(3),
                score: Score = Score()) {
        self.size = size
        self.score = score
        self.board = Board(size: size)
        self.rng = AnyRandom(rng)
        self.rematchDelay = rematchDelay
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
            if state == .beginning { newGame() }
        case let .received(message):
            receive(message, now: now)
        case let .localMove(cell):
            guard state == .myTurn else { throw .notYourTurn(state) }
            do { try board.place(piece, at: cell) } catch { throw .illegal(error) }
            moves.append(cell)
            emit(.send(.move(cell: UInt16(cell))))
            emit(.show(.board(board)))
            if !finishIfOver(after: cell, ending: .ourMove, now: now) {
                state = .opponentTurn
                emit(.show(.opponentTurn))
            }
        case .localResign:
            guard state == .myTurn || state == .opponentTurn else { throw .notYourTurn(state) }
            resign(now: now)
        case .localNewGame:
            switch state {
            case .done:
                newGame()
            case .myTurn, .opponentTurn:
                resign(now: now)
                newGame()
            case .rollingDice:
                break // a game is already starting
            case .beginning, .interrupted:
                throw .noGame
            }
        case .connectionLost:
            guard state != .interrupted else { return }
            state = .interrupted
            nextDeadline = nil // the seed forgot to cancel its restart timer here
            emit(.show(.interrupted))
        }
    }

    /// Call when `nextDeadline` has passed: starts the rematch.
    public mutating func handleTimeout(now: Instant) {
        guard let deadline = nextDeadline, deadline <= now, state == .done else { return }
        newGame()
    }

    // MARK: - Transitions

    private mutating func newGame() {
        board.removeAll() // keeps the board's line index: a rematch does not rebuild it
        moves.removeAll(keepingCapacity: true)
        piece = .empty
        nextDeadline = nil
        state = .rollingDice
        ourRound += 1
        emit(.send(.reset))
        // Keep a commitment the peer already sent for this game (it followed its RESET).
        let theirs = peerRound == ourRound ? die.theirCommitment : nil
        die = DieState()
        die.theirCommitment = theirs
        commit()
    }

    /// Picks a fresh roll and nonce, sends the commitment, and reveals if the peer's is in.
    private mutating func commit() {
        let roll = UInt32.random(in: 0...Message.maxRoll, using: &rng)
        let nonce = ID128.random(using: &rng)
        die.ours = (roll, nonce)
        emit(.send(.rollCommit(commitment: Commitment.make(roll: roll, nonce: nonce))))
        revealIfReady()
    }

    private mutating func revealIfReady() {
        guard let ours = die.ours, die.theirCommitment != nil, !die.revealed else { return }
        die.revealed = true
        emit(.send(.roll(value: ours.roll, nonce: ours.nonce)))
    }

    private mutating func receive(_ message: Message, now: Instant) {
        guard state != .interrupted else { return } // the link is being torn down
        if message == .reset { return receiveReset() }
        switch peerRound - ourRound {
        case 0 where state == .rollingDice || state == .myTurn || state == .opponentTurn:
            receiveInGame(message, now: now)
        case 0 where state == .done, -1:
            receiveAfterEnd(message)
        case 1 where state == .done || state == .beginning:
            // The peer started the next game first: keep its commitment for ours.
            guard case let .rollCommit(c) = message, die.theirCommitment == nil else {
                return reject(message, "before our next game started")
            }
            die.theirCommitment = c
        default:
            reject(message, "in state \(state)")
        }
    }

    /// RESET opens the peer's next round: it is the peer's "new game" (Protocol.md §8).
    private mutating func receiveReset() {
        peerRound += 1
        switch peerRound - ourRound {
        case 0 where state == .rollingDice:
            break // the peer joins the game we started
        case 1 where state == .done || state == .beginning:
            die.theirCommitment = nil // the peer starts the next game before us
            die.theirRoll = nil
        default:
            fail(.unexpectedMessage, "RESET in state \(state)")
        }
    }

    /// A message of the game being played, in the same round on both sides.
    private mutating func receiveInGame(_ message: Message, now: Instant) {
        switch (state, message) {
        case (.rollingDice, .rollCommit(let c)):
            guard die.theirCommitment == nil else {
                return fail(.unexpectedMessage, "second ROLL_COMMIT before the roll was decided")
            }
            die.theirCommitment = c
            revealIfReady()

        case (.rollingDice, .roll(let value, let nonce)):
            guard let c = die.theirCommitment else { return fail(.unexpectedMessage, "ROLL before ROLL_COMMIT") }
            guard die.theirRoll == nil else { return fail(.unexpectedMessage, "second ROLL for one commitment") }
            guard Commitment.verify(c, roll: value, nonce: nonce) else {
                return fail(.commitmentMismatch, "ROLL \(value) does not match its commitment")
            }
            die.theirRoll = value
            emit(.send(.rollAck(value: value)))
            decideIfReady()

        case (.rollingDice, .rollAck(let value)):
            guard let ours = die.ours, die.revealed, !die.acknowledged else {
                return fail(.unexpectedMessage, "ROLL_ACK before our ROLL")
            }
            // The echo must be what we sent: anything else means the peer saw another roll.
            guard value == ours.roll else {
                return fail(.rollMismatch, "ROLL_ACK echoes \(value), we rolled \(ours.roll)")
            }
            die.acknowledged = true
            decideIfReady()

        case (.opponentTurn, .move(let wireCell)):
            let cell = Int(wireCell)
            do { try board.place(piece.opponent, at: cell) } catch {
                return fail(.illegalMove, "illegal MOVE: \(error)")
            }
            moves.append(cell)
            emit(.show(.opponentMoved(cell: cell)))
            emit(.show(.board(board)))
            if !finishIfOver(after: cell, ending: .theirMove, now: now) {
                state = .myTurn
                emit(.show(.yourTurn))
            }

        case (.myTurn, .resign), (.opponentTurn, .resign):
            end(.won, line: nil, ending: .theirResign, now: now)

        default:
            reject(message, "in state \(state)")
        }
    }

    /// A message the peer sent before it saw the end of the game we finished last: it crossed our
    /// final MOVE or our RESIGN on the wire. Neither side can tell which came first, so both settle
    /// on the same result (Protocol.md §8, "Crossing messages").
    private mutating func receiveAfterEnd(_ message: Message) {
        switch (lastEnding, message) {
        case (.ourResign, .move(let wireCell)):
            // The peer moved before it saw our RESIGN. It sees the game as that move left it.
            guard var final = atResign?.board, let theirs = atResign?.theirPiece else {
                return reject(message, "after the game ended")
            }
            do { try final.place(theirs, at: Int(wireCell)) } catch {
                return fail(.illegalMove, "illegal MOVE: \(error)")
            }
            atResign = nil // at most one move can cross a RESIGN
            if case .draw = final.outcome { settleAsDraw() } // the peer saw a draw, not our RESIGN
        case (.ourResign, .resign):
            settleAsDraw() // both resigned at once
        case (.ourMove, .resign):
            lastEnding = .settled // the peer resigned before it saw our final move; ours stands
        default:
            reject(message, "after the game ended")
        }
    }

    /// Our resignation crossed the peer's resignation or drawing move: both sides call it a draw.
    private mutating func settleAsDraw() {
        score.lost -= 1
        score.drawn += 1
        lastResult = .draw
        lastEnding = .settled
        atResign = nil
        if state == .done { emit(.show(.gameOver(result: .draw, line: nil, resigned: true))) }
        emit(.show(.score(score)))
    }

    private mutating func reject(_ message: Message, _ context: String) {
        if case .move = message {
            fail(.illegalMove, "MOVE \(context)")
        } else {
            fail(.unexpectedMessage, "unexpected \(message.kind) \(context)")
        }
    }

    private mutating func decideIfReady() {
        guard let ours = die.ours, let theirs = die.theirRoll, die.acknowledged else { return }
        if ours.roll == theirs {
            die.clearTheirs()
            emit(.show(.tieRoll))
            commit()
            return
        }
        let first = ours.roll > theirs
        die = DieState() // never reuse a roll
        piece = first ? .o : .x
        state = first ? .myTurn : .opponentTurn
        emit(.show(.gameStarted(piece: piece, first: first, size: size)))
        emit(.show(first ? .yourTurn : .opponentTurn))
    }

    private mutating func resign(now: Instant) {
        emit(.send(.resign))
        atResign = (board, piece.opponent)
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
        emit(.show(.gameOver(result: result, line: line, resigned: ending == .ourResign || ending == .theirResign)))
        emit(.show(.score(score)))
    }

    private mutating func fail(_ code: ErrorCode, _ message: String) {
        state = .interrupted
        nextDeadline = nil
        emit(.fail(code, message))
    }

    private mutating func emit(_ action: GameAction) { actions.append(action) }
}
