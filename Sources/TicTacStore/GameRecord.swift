import TicTacEngine
import TicTacWire

/// One game as the store holds it: who played, on what board, how it went, and every move.
public struct GameRecord: Sendable, Equatable {
    /// Where a game is in its life.
    public enum State: String, Sendable {
        case playing, interrupted, adjourned, finished
        /// The two sides' move lists could not be reconciled: nothing was invented.
        case void
    }

    /// A move, numbered from 1 in the order played.
    public struct Move: Sendable, Equatable {
        public let number: Int
        /// 0-based, row-major.
        public let cell: Int
        public let byUs: Bool

        public init(number: Int, cell: Int, byUs: Bool) {
            self.number = number
            self.cell = cell
            self.byUs = byUs
        }
    }

    /// The store's own number for the game.
    public let id: Int64
    /// The accepted invitation's id, and the game's number within that match (1, 2, ...).
    public let matchID: ID128
    public let number: Int
    /// The game's id from both rolls (`GameKey`); nil until the roll decided.
    public let key: ID128?
    /// The agreed seconds per move (0: none).
    public let moveTime: Int
    public let peerID: ID128
    /// The opponent's last known name.
    public let peerName: String
    public let rows: Int, cols: Int, k: Int
    /// Nil until the roll decided.
    public let weMovedFirst: Bool?
    /// Unix milliseconds.
    public let startedAt: Int64
    public let endedAt: Int64?
    public let state: State
    public let result: GameResult?
    /// How it ended (line, full, resigned, time, forfeit ...), for a finished game.
    public let ending: String?
    public let moves: [Move]
    /// For a roll kept to decide (Protocol.md §13): our secret and the peer's commitment.
    public internal(set) var secret: [UInt8]? = nil
    public internal(set) var theirCommitment: [UInt8]? = nil
    /// The peer's secret, once its ROLL was acknowledged: the roll can be decided from the history.
    public internal(set) var theirSecret: [UInt8]? = nil
}
