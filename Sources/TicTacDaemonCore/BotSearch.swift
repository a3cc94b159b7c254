import TicTacEngine

/// A bot move that needs a search (a board larger than 3 x 3): DaemonCore hands it out as the
/// `think` action, one at a time, and the shell runs it off the reactor's thread (`BotWorker`)
/// and gives the answer back with `DaemonCore.botMoveReady`. Everything it needs is in it, so
/// it runs anywhere; its answer depends only on the position and the generator's state.
public struct BotSearchJob: Sendable, Equatable {
    /// The link whose game asked, and a number that tells this search from every other.
    public let link: LinkID
    public let ticket: UInt64
    /// The source address of the peer (searches are served round-robin by address).
    public let address: String
    let bot: Bot
    let board: Board
    let piece: Piece
    let nodes: Int
    let random: SplitMix64

    /// Searches (up to the node budget) and returns the move, with the generator as the search
    /// left it (the core carries it on, so a capture replays exactly).
    public func run() -> BotSearchResult {
        var rng = random
        let cell = bot.chooseMove(on: board, as: piece, using: &rng, budget: .nodes(nodes))
        return BotSearchResult(link: link, ticket: ticket, cell: cell, random: rng)
    }

    public static func == (a: BotSearchJob, b: BotSearchJob) -> Bool { a.ticket == b.ticket && a.link == b.link }
}

/// What a `BotSearchJob` found.
public struct BotSearchResult: Sendable, Equatable {
    public let link: LinkID
    public let ticket: UInt64
    /// The chosen cell (0-based).
    public let cell: Int
    let random: SplitMix64

    public static func == (a: BotSearchResult, b: BotSearchResult) -> Bool {
        a.ticket == b.ticket && a.link == b.link && a.cell == b.cell
    }
}
