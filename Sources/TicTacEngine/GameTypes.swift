import TicTacWire

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
    /// The turn just shown has `seconds` left, not the whole move time: a resumed game's clock
    /// goes on from where the lost link stopped it (GameSession.resume).
    case turnClock(seconds: Int)
    case opponentMoved(cell: Int)
    /// The board after every move.
    case board(Board)
    /// `line` holds 0-based cells, nil on a draw or a resignation.
    case gameOver(result: GameResult, line: [Int]?, resigned: Bool)
    case score(Score)
    /// The link is gone (the seed's "Peer Disconnected!").
    case interrupted
    /// A player ended the match or the link while a game ran, once the other's roll was out
    /// (Protocol.md §8): that player forfeits. `yours`: our player left; `inRoll`: before the
    /// first move was decided. The game-over event follows.
    case left(yours: Bool, inRoll: Bool)
}

/// Kinds of `GameEvent`, for an owner that wants only some: a headless bot has no use for the
/// board and the turn after every move (events nobody reads are not built).
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
    public static let left = GameEventKinds(rawValue: 1 << 10)
    public static let turnClock = GameEventKinds(rawValue: 1 << 11)
    public static let all = GameEventKinds(rawValue: (1 << 12) - 1)
}

extension GameEvent {
    public var kind: GameEventKinds {
        switch self {
        case .gameStarted: .gameStarted
        case .rolls: .rolls
        case .timeUp: .timeUp
        case .yourTurn: .yourTurn
        case .opponentTurn: .opponentTurn
        case .turnClock: .turnClock
        case .opponentMoved: .opponentMoved
        case .board: .board
        case .gameOver: .gameOver
        case .score: .score
        case .interrupted: .interrupted
        case .left: .left
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
    /// For the history (`GameSession.recordsFacts`): store it before the frames that follow.
    /// `key`: the game it is about (nil before its roll decided); a crossing's draw can come
    /// after the next game began.
    case record(GameFact, key: ID128?)
}

/// What happens to the game from outside it: never refused (a remote fault becomes `.fail`).
public enum GameInput: Sendable, Equatable {
    /// The link is ready (the invitation was accepted): run "new game".
    case start
    case received(Message)
    case connectionLost
    /// The peer ended the match or the link (LEAVE, CANCEL, a close or reset, an ERROR): in a
    /// running game once our roll is out it forfeits, and the game is over either way.
    case peerLeft
    /// The link was lost without either side ending it (a close, a reset, silence): during the
    /// roll once our reveal is out the peer forfeits as with `peerLeft`; a game in play ends
    /// without a result (a daemon that can resume keeps it instead).
    case linkLost
}

/// What our player (or bot) asks of the game: refused, with a reason, when it cannot be done.
public enum GameCommand: Sendable, Equatable {
    /// Cell is 0-based.
    case move(Int)
    case resign
    /// Start the next game now: in Done, skips the rematch wait; in a running game, resigns first.
    case newGame
    /// Our player ends the match: a game in play is resigned; a roll whose peer reveal we hold
    /// is forfeit (the peer counts it so, Protocol.md §8); the game is over either way.
    case leave
}

/// A command that cannot be carried out; nothing changed and the game goes on.
public enum GameCommandError: Error, Sendable, Equatable, CustomStringConvertible {
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
