import TicTacWire

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
    private var resignedThisGame = false

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

    public init(size: BoardSize = .classic, rng: some RandomNumberGenerator, rematchDelay: Duration = .seconds(3)) {
        self.size = size
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
            if !finishIfOver(now: now) {
                state = .opponentTurn
                emit(.show(.opponentTurn))
            }
        case .localResign:
            guard state == .myTurn || state == .opponentTurn || state == .rollingDice else { throw .noGame }
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
        board = Board(size: size)
        moves = []
        piece = .empty
        resignedThisGame = false
        nextDeadline = nil
        state = .rollingDice
        emit(.send(.reset))
        // Keep a commitment the peer already sent for this game (it followed its RESET).
        die.ours = nil
        die.revealed = false
        die.theirRoll = nil
        die.acknowledged = false
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
        switch (state, message) {
        case (.interrupted, _):
            return // the link is being torn down; nothing more counts

        case (.done, .reset):
            die = DieState()
        case (.rollingDice, .reset):
            break // the peer's own "new game" preamble

        case (.rollingDice, .rollCommit(let c)), (.done, .rollCommit(let c)):
            guard die.theirCommitment == nil else {
                return fail(.unexpectedMessage, "second ROLL_COMMIT before the roll was decided")
            }
            die.theirCommitment = c
            if state == .rollingDice { revealIfReady() }

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
            if !finishIfOver(now: now) {
                state = .myTurn
                emit(.show(.yourTurn))
            }
        case (.done, .move) where resignedThisGame:
            break // the move crossed our RESIGN on the wire; the game is over
        case (_, .move):
            fail(.illegalMove, "MOVE out of turn (state \(state))")

        case (.rollingDice, .resign), (.myTurn, .resign), (.opponentTurn, .resign):
            end(.won, line: nil, resigned: true, now: now)
        case (.done, .resign) where resignedThisGame:
            // Both resigned at once: neither side can tell who was first, so both call it a draw.
            score.lost -= 1
            score.drawn += 1
            lastResult = .draw
            resignedThisGame = false
            emit(.show(.gameOver(result: .draw, line: nil, resigned: true)))
            emit(.show(.score(score)))

        default:
            fail(.unexpectedMessage, "unexpected \(message.kind) in state \(state)")
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
        end(.lost, line: nil, resigned: true, now: now)
        resignedThisGame = true
    }

    /// Ends the game if the last move won or filled the board.
    private mutating func finishIfOver(now: Instant) -> Bool {
        switch board.outcome {
        case .inProgress:
            return false
        case .draw:
            end(.draw, line: nil, resigned: false, now: now)
        case let .won(line):
            end(line.piece == piece ? .won : .lost, line: line.cells, resigned: false, now: now)
        }
        return true
    }

    private mutating func end(_ result: GameResult, line: [Int]?, resigned: Bool, now: Instant) {
        switch result {
        case .won: score.won += 1
        case .lost: score.lost += 1
        case .draw: score.drawn += 1
        }
        lastResult = result
        state = .done
        die = DieState()
        nextDeadline = now + rematchDelay
        emit(.show(.gameOver(result: result, line: line, resigned: resigned)))
        emit(.show(.score(score)))
    }

    private mutating func fail(_ code: ErrorCode, _ message: String) {
        state = .interrupted
        nextDeadline = nil
        emit(.fail(code, message))
    }

    private mutating func emit(_ action: GameAction) { actions.append(action) }
}
