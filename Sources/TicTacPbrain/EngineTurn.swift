import TicTacEngine

/// What a bot whose moves come from an external Gomocup engine (`tictac bot --engine`) plays:
/// the k = 5 boards the engine accepted when it was probed. The 3 x 3 board stays the built-in
/// bot's; every other board is declined `unsupported`.
public struct EngineBoards: Sendable, Equatable {
    /// Boards the engine answered OK to (START n / RECTSTART w,h), all with k = 5.
    public var sizes: Set<BoardSize>
    /// Engine games at most at the same time (each has a process of its own); one more
    /// invitation is declined `busy`.
    public var maxGames: Int

    public init(sizes: Set<BoardSize>, maxGames: Int = 4) {
        self.sizes = sizes
        self.maxGames = maxGames
    }

    /// Whether the engine plays `size` (never 3 x 3: the built-in bot does).
    public func plays(_ size: BoardSize) -> Bool { size.k == 5 && sizes.contains(size) }

    /// Every board an engine could play here: k = 5, rows and columns from 5 to the largest
    /// board (squares first: START is the command every engine knows).
    public static var candidates: [BoardSize] {
        let range = 5...BoardSize.dimensionRange.upperBound
        let squares = range.compactMap { try? BoardSize(rows: $0, cols: $0, k: 5) }
        let others = range.flatMap { r in range.compactMap { c in r == c ? nil : try? BoardSize(rows: r, cols: c, k: 5) } }
        return squares + others
    }
}

/// An engine's move is due (DaemonAction.engine(.turn)): everything the engine host needs to
/// bring the engine to this position and ask it. Answered by DaemonInput.engineAnswered with
/// the same link and ticket.
public struct EngineTurn: Sendable, Equatable {
    /// The daemon's link the game is played on (its LinkID).
    public let link: Int
    public let ticket: UInt64
    /// The game's number within its match: a new one means a new game (RESTART).
    public let round: Int
    public let size: BoardSize
    /// Every move of the game so far, in order, as 0-based cells.
    public let moves: [Int]
    /// Whether the engine made the first move (its stones are moves 0, 2, 4...).
    public let engineFirst: Bool
    /// The game's move clock in seconds (0: none).
    public let moveTime: Int
    /// Whether the opponent announces itself as a bot (INFO game_type).
    public let opponentIsBot: Bool

    public init(link: Int, ticket: UInt64, round: Int, size: BoardSize, moves: [Int], engineFirst: Bool,
                moveTime: Int, opponentIsBot: Bool) {
        self.link = link
        self.ticket = ticket
        self.round = round
        self.size = size
        self.moves = moves
        self.engineFirst = engineFirst
        self.moveTime = moveTime
        self.opponentIsBot = opponentIsBot
    }

    /// Whether move `index` of `moves` is the engine's.
    public func isEngines(_ index: Int) -> Bool { (index % 2 == 0) == engineFirst }
}
