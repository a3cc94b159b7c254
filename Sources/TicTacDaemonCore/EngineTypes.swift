import TicTacEngine
import TicTacPbrain
import TicTacTime

/// What the shell asks of the engine host.
public enum EngineRequest: Sendable, Equatable {
    /// Ask the engine of `turn.link`'s match for a move.
    case turn(EngineTurn)
    /// The match on the link ended: its engine process goes.
    case stop(LinkID)
    /// The game on the link ended while its engine was thinking (the bot's move clock ran out,
    /// or the opponent resigned or left): the answer is not wanted any more.
    case cancel(LinkID)
}

/// The engine host's answer to an `EngineTurn`.
public struct EngineAnswer: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// The engine's move (a 0-based cell; the core checks it again).
        case move(Int)
        /// The engine failed this turn (crash, garbage, an illegal cell, a flood, no answer
        /// in time): the bot loses the game. `pausedUntil`: it failed more often than
        /// EngineRestartRate allows, and is not started again before then; the match ends and
        /// engine games are declined `busy` until then.
        case failed(String, pausedUntil: Instant?)
    }

    public let link: LinkID
    public let ticket: UInt64
    public let outcome: Outcome

    public init(link: LinkID, ticket: UInt64, outcome: Outcome) {
        self.link = link
        self.ticket = ticket
        self.outcome = outcome
    }
}
