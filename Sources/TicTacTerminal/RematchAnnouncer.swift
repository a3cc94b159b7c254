import TicTacAPI
import TicTacEngine

/// Plain mode's word on the next game: the full screen shows "New game in 3... l: lobby" under
/// a finished game; plain mode says it once, as a `rematch` event after the `game-over` and
/// `score` of a game that ended (docs/plain-mode.md). Pure: PlainFront feeds it every event
/// it shows.
package struct RematchAnnouncer {
    package init() {}

    /// Seconds between games (the daemon's rematch delay; GameSession's 3 s by default).
    package var seconds = 3
    /// `lobby` is a command here: networked play, known by its `ready` event (a local game has
    /// no lobby, and shows no `ready`).
    private(set) var lobby = false
    /// The player's own `new` or `lobby` is being carried out: the game it ends is followed at
    /// once by the next one or by the lobby, with no wait to announce.
    package var endingOnCommand = false
    /// A game has ended; its score line comes next (GameSession emits the two together).
    private var ended = false

    /// The event to show after `event`, if any.
    package mutating func after(_ event: DaemonEvent) -> DaemonEvent? {
        switch event {
        case .ready:
            lobby = true
        case .game(.gameOver, _):
            ended = !endingOnCommand
        case .game(.score, _):
            guard ended else { return nil }
            ended = false
            return .rematch(seconds: seconds, lobby: lobby)
        default:
            ended = false
        }
        return nil
    }
}
