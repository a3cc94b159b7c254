import TicTacAPI
import TicTacDaemonCore
import TicTacEngine
import TicTacWire

/// What the bot reports of each finished game: the result, whether it counts toward
/// `--max-games` (`GameCounter`), and whether the opponent forfeited it by leaving once the
/// bot's roll was out (Protocol.md §8). A forfeit is always reported, counted or not.
public struct BotTally {
    /// One finished game, as the bot's game-over line tells it.
    public struct Finished: Equatable, Sendable {
        public var opponent: PeerInfo
        public var result: GameResult
        /// Counted games so far, this one included when `counted`.
        public var games: Int
        public var counted: Bool
        /// The opponent left the running game: during the roll (`.roll`) or later (`.game`).
        public var forfeit: Forfeit?
    }

    /// When the opponent left a game it forfeited.
    public enum Forfeit: String, Sendable { case roll, game }

    public private(set) var games = 0
    private var counter = GameCounter()
    /// The opponent whose `left` event came just before its game-over, and when it left.
    private var leaving: (id: ID128, forfeit: Forfeit)?

    public init() {}

    /// Takes every daemon event in order; a finished game the bot reports, or nil.
    public mutating func take(_ event: DaemonEvent) -> Finished? {
        switch event {
        case let .game(.left(yours: false, inRoll), opponent):
            leaving = (opponent.id, inRoll ? .roll : .game)
            return nil
        case let .game(.gameOver(result, _, _), opponent):
            let forfeit = leaving?.id == opponent.id ? leaving?.forfeit : nil
            leaving = nil
            let counted = counter.counts(event)
            guard counted || forfeit != nil else { return nil }
            if counted { games += 1 }
            return Finished(opponent: opponent, result: result, games: games, counted: counted, forfeit: forfeit)
        default:
            _ = counter.counts(event)
            return nil
        }
    }

    /// The game-over line without `--json`.
    public static func text(_ f: Finished) -> String {
        let name = f.opponent.name
        guard let forfeit = f.forfeit else { return "game \(f.games) vs \(name): \(f.result.rawValue)" }
        let when = forfeit == .roll ? "during the roll" : "the game"
        return f.counted ? "game \(f.games) vs \(name): \(f.result.rawValue) by forfeit (\(name) left \(when))"
                         : "vs \(name): \(f.result.rawValue) by forfeit (\(name) left \(when); not counted)"
    }
}
