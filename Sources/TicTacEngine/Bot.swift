/// How strongly a bot plays.
public enum BotLevel: String, CaseIterable, Sendable {
    /// Uniform over the empty cells.
    case random
    /// Plays a random move about one time in three, otherwise like `good`.
    case easy
    /// Takes wins, blocks losses, otherwise a depth-2 alpha-beta search.
    case good
    /// Exact on 3 x 3; iterative-deepening alpha-beta within the budget on larger boards.
    case perfect
}

/// Time/effort budget for one move, injected by the caller (the engine never reads a clock).
public struct SearchBudget: Sendable {
    /// Returns true when the search must stop now; polled every few hundred nodes.
    public let isExhausted: @Sendable () -> Bool
    /// A cap on searched nodes, counted by the search itself (so the budget holds no mutable
    /// state and one value can be reused for many moves); `nil` means no cap.
    public let maxNodes: Int?

    /// A budget that stops when `isExhausted` says so. The daemon passes a closure over a
    /// monotonic clock (default 200 ms per move).
    public init(isExhausted: @escaping @Sendable () -> Bool) {
        self.isExhausted = isExhausted
        self.maxNodes = nil
    }

    private init(maxNodes: Int) {
        self.isExhausted = { false }
        self.maxNodes = max(0, maxNodes)
    }

    /// Never stops the search early. Larger boards still stop at `Bot.maxSearchDepth`.
    public static let unlimited = SearchBudget(isExhausted: { false })

    /// Deterministic budget for tests: stop after `n` searched nodes of one decision.
    public static func nodes(_ n: Int) -> SearchBudget { SearchBudget(maxNodes: n) }
}

/// A small deterministic generator (SplitMix64) for tests, simulations and Zobrist keys.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// The same seed always yields the same sequence.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The computer opponent. A value with no state: all randomness comes from the caller's `rng`.
public struct Bot: Sendable {
    /// How strongly this bot plays.
    public let level: BotLevel

    /// Search depth of `good` (and of `easy` when it is not blundering).
    public static let goodDepth = 2
    /// Deepest iteration of `perfect` on boards other than 3 x 3, so `.unlimited` terminates.
    public static let maxSearchDepth = 8
    /// Nodes searched per move by the daemon's and the local game's bot on boards larger than
    /// 3 x 3: a count, not a clock, so a move depends only on the position and the seed.
    /// Measured on the project's 2-core machine (release, 15 x 15 k = 5, 30 moves of a
    /// bot-vs-bot game, load average 3.3): median 54 ms, at most 188 ms per move; most searches
    /// reach `maxSearchDepth` first, the budget bounds the worst case to about 200 ms.
    public static let defaultSearchNodes = 50_000

    /// A bot of the given level.
    public init(level: BotLevel) { self.level = level }

    /// Whether a move on this board may search (and so take up to its time budget): only 3 x 3
    /// is answered from a table, and `random` never searches.
    public func searches(on size: BoardSize) -> Bool { size != .classic && level != .random }

    /// A legal move (an empty cell index, 0-based row-major) for `piece` on `board`.
    /// Precondition: `piece` is not `.empty` and the game is in progress (not full, no winner).
    public func chooseMove<R: RandomNumberGenerator>(on board: Board, as piece: Piece,
                                                     using rng: inout R,
                                                     budget: SearchBudget = .unlimited) -> Int {
        precondition(piece != .empty, "a bot plays O or X")
        precondition(!board.isFull, "a bot moves only on a board with room")
        assert(board.outcome == .inProgress, "a bot moves only in a game in progress") // a scan: debug builds
        switch level {
        case .random:
            return Self.randomMove(on: board, using: &rng)
        case .easy:
            if Self.draw(below: 3, using: &rng) == 0 { return Self.randomMove(on: board, using: &rng) }
            return Searcher.bestMove(on: board, as: piece, maxDepth: Self.goodDepth, budget: budget)
        case .good:
            return Searcher.bestMove(on: board, as: piece, maxDepth: Self.goodDepth, budget: budget)
        case .perfect:
            let moves = Self.perfectMoves(on: board, as: piece)
            if !moves.isEmpty { return moves[Self.draw(below: moves.count, using: &rng)] }
            return Searcher.bestMove(on: board, as: piece, maxDepth: Self.maxSearchDepth, budget: budget)
        }
    }

    /// Every optimal move for `piece` on a classic 3 x 3 board in progress (wins soonest, or
    /// draws, or loses latest); an empty array on any other board or a finished game.
    public static func perfectMoves(on board: Board, as piece: Piece) -> [Int] {
        guard board.size == .classic, piece != .empty, !board.isFull, board.winningLine == nil else {
            return []
        }
        let pow3 = PerfectTable.pow3
        var key = 0
        for (cell, p) in board.cells.enumerated() { key += Int(p.rawValue) * pow3[cell] }
        let me = Int(piece.rawValue), opponentSide = me == 1 ? 1 : 0
        var best = Int.min, moves: [Int] = []
        for cell in 0..<9 where board.cells[cell] == .empty {
            // The child's score is from the opponent's side: negate it.
            let score = -Int(PerfectTable.scores[(key + me * pow3[cell]) * 2 + opponentSide])
            if score > best {
                best = score
                moves = [cell]
            } else if score == best {
                moves.append(cell)
            }
        }
        return moves
    }

    /// A uniform draw in 0..<n (n > 0): the standard library's `Int.random(in: 0..<n, using:)`,
    /// word for word (Lemire's method over `next()`), so seeded games replay alike; the
    /// library's own, generic across modules, is the slow path (docs/performance.md).
    static func draw<R: RandomNumberGenerator>(below n: Int, using rng: inout R) -> Int {
        let bound = UInt64(n)
        var m = rng.next().multipliedFullWidth(by: bound)
        if m.low < bound {
            let threshold = (0 &- bound) % bound
            while m.low < threshold { m = rng.next().multipliedFullWidth(by: bound) }
        }
        return Int(m.high)
    }

    private static func randomMove<R: RandomNumberGenerator>(on board: Board, using rng: inout R) -> Int {
        let emptyCount = board.size.cellCount - board.filledCount
        precondition(emptyCount > 0, "a bot moves only on a board with room")
        // The n-th empty cell, found without building the list of them.
        var n = Self.draw(below: emptyCount, using: &rng)
        for cell in 0..<board.size.cellCount where board[cell] == .empty {
            if n == 0 { return cell }
            n -= 1
        }
        preconditionFailure("filledCount disagrees with the cells")
    }
}

/// Exact minimax values of every 3 x 3 position, keyed by base-3 encoding (cell i holds
/// `Piece.rawValue * 3^i`), built once on first use.
enum PerfectTable {
    static let pow3 = [1, 3, 9, 27, 81, 243, 729, 2_187, 6_561]

    /// `scores[key * 2 + side]` (side 0 = O to move, 1 = X to move): the score for the side to
    /// move. A win with `f` pieces on the board scores `10 - f` (sooner is higher), a loss
    /// `-(10 - f)`, a draw 0. Immutable after the lazy, thread-safe static initialisation.
    static let scores: [Int8] = build()

    private static func build() -> [Int8] {
        let lines = BoardSize.classic.lines
        var table = [Int8](repeating: 0, count: 19_683 * 2)
        var cells = [Int](repeating: 0, count: 9)
        // A child's key is larger than its parent's, so descending order sees children first.
        for key in stride(from: 19_682, through: 0, by: -1) {
            var rest = key, filled = 0
            for i in 0..<9 {
                cells[i] = rest % 3
                rest /= 3
                if cells[i] != 0 { filled += 1 }
            }
            for side in 0..<2 {
                let me = side + 1, opponent = 2 - side
                let score: Int
                if lines.contains(where: { $0.allSatisfy { cells[$0] == opponent } }) {
                    score = -(10 - filled)
                } else if lines.contains(where: { $0.allSatisfy { cells[$0] == me } }) {
                    score = 10 - filled  // unreachable in play; any value will do
                } else if filled == 9 {
                    score = 0
                } else {
                    var best = Int.min
                    for cell in 0..<9 where cells[cell] == 0 {
                        best = max(best, -Int(table[(key + me * pow3[cell]) * 2 + (1 - side)]))
                    }
                    score = best
                }
                table[key * 2 + side] = Int8(score)
            }
        }
        return table
    }
}
