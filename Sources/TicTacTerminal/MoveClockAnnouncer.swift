import TicTacAPI
import TicTacEngine
import TicTacTime

/// Plain mode's word on the move clock: the full screen counts a move's last 10 s down beside
/// the turn; plain mode says once, 10 s before a move's time is up, that it is near (a `clock`
/// event). The turn's own line already says how long a move has (docs/plain-mode.md). Pure:
/// PlainFront feeds it every event it shows with the time, and calls `due(now:)` at `deadline`.
package struct MoveClockAnnouncer {
    package init() {}

    /// Seconds left when the warning is given.
    static let warning = 10
    /// The agreed seconds per move of the game under way (its `rolls` event), 0 for none.
    private(set) var moveTime = 0
    /// When to warn, while a turn with a clock runs.
    package private(set) var deadline: Instant?
    private var turn: (opponent: PeerInfo, yours: Bool)?

    package mutating func after(_ event: DaemonEvent, now: Instant) {
        switch event {
        case let .game(.rolls(_, _, seconds), _):
            moveTime = seconds
            deadline = nil
        case let .game(.yourTurn, opponent), let .game(.opponentTurn, opponent):
            // Each turn starts its clock afresh (Protocol.md §9); a move's time under the
            // warning's own 10 s is said whole by the turn's line instead.
            if case .game(.yourTurn, _) = event { turn = (opponent, true) } else { turn = (opponent, false) }
            deadline = moveTime > Self.warning ? now + .seconds(moveTime - Self.warning) : nil
        case let .game(.turnClock(seconds), _):
            // A resumed game's turn has only what was left (its line says how much).
            deadline = seconds > Self.warning ? now + .seconds(seconds - Self.warning) : nil
        case .game(.gameStarted, _), .game(.gameOver, _), .game(.timeUp, _), .game(.left, _), .game(.interrupted, _),
             .gameInterrupted, .gameAdjourned, .gameVoid, .gameAbandoned, .gameClaimed, .disconnected, .matchEnded:
            deadline = nil // no turn runs: nothing to warn of
        default:
            break
        }
    }

    /// The warning, once `deadline` has come.
    package mutating func due(now: Instant) -> DaemonEvent? {
        guard let deadline, now >= deadline, let turn else { return nil }
        self.deadline = nil
        return .moveClock(turn.opponent, yours: turn.yours, seconds: Self.warning)
    }
}
