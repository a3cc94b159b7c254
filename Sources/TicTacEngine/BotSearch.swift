/// Iterative-deepening negamax with alpha-beta, a transposition table and a windowed
/// heuristic, for any m x n, k board. One value per decision; never shared.
struct Searcher {
    /// A win `p` plies from the root scores `win - p`; heuristic values stay far below.
    static let win = 1 << 58
    private static let infinity = win + 1_000
    private static let mateBound = win - 1_000
    /// Below the root only the best-ordered candidates are searched: on big boards the rest are
    /// almost never better, and cutting them buys several plies of depth.
    static let beamWidth = 12

    /// Weight of a window holding `n` pieces of one side and none of the other: 8^(n-1),
    /// capped so sums over every window cannot overflow.
    private static let weightTable: [Int] = (0...20).map { $0 == 0 ? 0 : 1 << (3 * min($0 - 1, 12)) }

    /// Zobrist keys for (cell, side), from a fixed seed so searches are reproducible.
    private static let zobristTable: [UInt64] = {
        var rng = SplitMix64(seed: 0x7469_6374_6163_0001)
        return (0..<(BoardSize.dimensionRange.upperBound * BoardSize.dimensionRange.upperBound * 2))
            .map { _ in rng.next() }
    }()

    private struct Entry {
        var key: UInt64 = 0
        var score = 0
        var move: Int32 = -1
        var depth: Int16 = -1
        var bound: UInt8 = 0  // 0 exact, 1 lower, 2 upper
    }

    private let k: Int
    // Copies of the static tables: reading a static in the hot loops costs a lazy-init check.
    private let weights = Searcher.weightTable
    private let zobrist = Searcher.zobristTable
    private let windowCount: Int
    private let windowCells: [Int]  // window w is windowCells[w*k ..< (w+1)*k]
    private let windowsThrough: [[Int]]
    private let neighbours: [[Int]]  // cells within distance 2
    private let centreBonus: [Int]  // ordering tie-break: nearer the centre is better
    private var cells: [Int]  // 0 empty, 1 O, 2 X
    private var counts: [Int]  // counts[w*2 + side], side 0 = O, 1 = X
    private var near: [Int]  // occupied cells within distance 2
    private var filled = 0
    private var score = 0  // heuristic, from O's side, kept up to date by place/undo
    private var hot = [0, 0]  // windows one move from a win for O, X: scan only when nonzero
    private var hash: UInt64 = 0
    private var table: [Entry]
    private var nodes = 0
    private var aborted = false
    private let budget: SearchBudget

    /// The move to play for `piece` on `board`, searching at most `maxDepth` plies.
    static func bestMove(on board: Board, as piece: Piece, maxDepth: Int, budget: SearchBudget) -> Int {
        var searcher = Searcher(board: board, budget: budget)
        return searcher.rootSearch(side: piece == .o ? 0 : 1, maxDepth: maxDepth)
    }

    private init(board: Board, budget: SearchBudget) {
        let rows = board.size.rows, cols = board.size.cols, count = rows * cols
        let lines = board.allLines
        k = board.size.k
        windowCount = lines.count
        windowCells = lines.flatMap { $0 }
        var through = [[Int]](repeating: [], count: count)
        for (w, line) in lines.enumerated() {
            for cell in line { through[cell].append(w) }
        }
        windowsThrough = through
        neighbours = (0..<count).map { cell in
            let r = cell / cols, c = cell % cols
            var result: [Int] = []
            for nr in max(0, r - 2)...min(rows - 1, r + 2) {
                for nc in max(0, c - 2)...min(cols - 1, c + 2) where nr != r || nc != c {
                    result.append(nr * cols + nc)
                }
            }
            return result
        }
        centreBonus = (0..<count).map { cell in
            -(abs(2 * (cell / cols) - (rows - 1)) + abs(2 * (cell % cols) - (cols - 1)))
        }
        cells = [Int](repeating: 0, count: count)
        counts = [Int](repeating: 0, count: lines.count * 2)
        near = [Int](repeating: 0, count: count)
        // Small boards have few positions; big ones get a 1 MB table.
        table = [Entry](repeating: Entry(), count: count <= 25 ? 1 << 12 : 1 << 15)
        self.budget = budget
        for cell in 0..<count where board[cell] != .empty {
            _ = place(cell, side: board[cell] == .o ? 0 : 1)
        }
    }

    // MARK: Making and unmaking moves

    /// Adds window `w`'s share to the running score and hot-window counts.
    private mutating func remember(window w: Int) { account(window: w, sign: 1) }
    /// Removes window `w`'s share before its counts change.
    private mutating func forget(window w: Int) { account(window: w, sign: -1) }

    private mutating func account(window w: Int, sign: Int) {
        let o = counts[w * 2], x = counts[w * 2 + 1]
        if x == 0 {
            score += sign * weights[min(o, 20)]
            if o == k - 1 { hot[0] += sign }
        } else if o == 0 {
            score -= sign * weights[min(x, 20)]
            if x == k - 1 { hot[1] += sign }
        }
    }

    /// Puts `side`'s piece on `cell`; true when it completes a line.
    private mutating func place(_ cell: Int, side: Int) -> Bool {
        cells[cell] = side + 1
        filled += 1
        hash ^= zobrist[cell * 2 + side]
        for n in neighbours[cell] { near[n] += 1 }
        var won = false
        for w in windowsThrough[cell] {
            forget(window: w)
            counts[w * 2 + side] += 1
            remember(window: w)
            if counts[w * 2 + side] == k { won = true }
        }
        return won
    }

    private mutating func undo(_ cell: Int, side: Int) {
        for w in windowsThrough[cell] {
            forget(window: w)
            counts[w * 2 + side] -= 1
            remember(window: w)
        }
        for n in neighbours[cell] { near[n] -= 1 }
        hash ^= zobrist[cell * 2 + side]
        filled -= 1
        cells[cell] = 0
    }

    // MARK: Move generation

    /// A cell where `side` wins at once (if any), and the cells where the other side would.
    private func threats(for side: Int) -> (win: Int?, blocks: [Int]) {
        var blocks: [Int] = []
        if hot[0] == 0, hot[1] == 0 { return (nil, blocks) }
        for w in 0..<windowCount {
            let mine = counts[w * 2 + side], theirs = counts[w * 2 + 1 - side]
            let ours: Bool
            if mine == k - 1, theirs == 0 {
                ours = true
            } else if theirs == k - 1, mine == 0 {
                ours = false
            } else {
                continue
            }
            for i in w * k..<(w + 1) * k where cells[windowCells[i]] == 0 {
                if ours { return (windowCells[i], []) }
                if !blocks.contains(windowCells[i]) { blocks.append(windowCells[i]) }
            }
        }
        return (nil, blocks)
    }

    /// Candidate moves, best guess first: forced blocks if any, else empty cells near a piece
    /// (every empty cell if none is near one), ordered by `first`, then heuristic gain; at most
    /// `limit` of them.
    private func orderedMoves(for side: Int, blocks: [Int], first: Int, limit: Int = .max) -> [Int] {
        var moves = blocks
        if moves.isEmpty { moves = cells.indices.filter { cells[$0] == 0 && near[$0] > 0 } }
        if moves.isEmpty { moves = cells.indices.filter { cells[$0] == 0 } }
        let keyed = moves.map { cell -> (Int, Int) in
            if cell == first { return (cell, Int.max) }
            // What the move adds to our windows plus what it takes from theirs.
            var gain = centreBonus[cell]
            for w in windowsThrough[cell] {
                let mine = counts[w * 2 + side], theirs = counts[w * 2 + 1 - side]
                if theirs == 0 { gain += weights[min(mine + 1, 20)] - weights[mine] }
                if mine == 0 { gain += weights[min(theirs, 20)] }
            }
            return (cell, gain)
        }
        return keyed.sorted { $0.1 > $1.1 }.prefix(limit).map(\.0)
    }

    // MARK: Search

    private mutating func rootSearch(side: Int, maxDepth: Int) -> Int {
        let (winCell, blocks) = threats(for: side)
        if let winCell { return winCell }
        var moves = orderedMoves(for: side, blocks: blocks, first: -1)
        // Fallback if even depth 1 is interrupted: the block or the best-ordered candidate.
        var bestMove = moves[0]
        if moves.count == 1 { return bestMove }
        for depth in 1...max(1, min(maxDepth, cells.count - filled)) {
            var best = -Self.infinity, alpha = -Self.infinity, bestAtDepth = moves[0]
            for move in moves {
                let won = place(move, side: side)
                let value = won ? Self.win - 1
                    : filled == cells.count ? 0
                    : -negamax(depth: depth - 1, alpha: -Self.infinity, beta: -alpha, ply: 1, side: 1 - side)
                undo(move, side: side)
                if aborted { break }
                if value > best { best = value; bestAtDepth = move }
                alpha = max(alpha, value)
            }
            if aborted { break }
            bestMove = bestAtDepth
            moves.removeAll { $0 == bestAtDepth }
            moves.insert(bestAtDepth, at: 0)
            if best >= Self.mateBound { break }  // a forced win: no need to look further
        }
        return bestMove
    }

    private mutating func negamax(depth: Int, alpha: Int, beta: Int, ply: Int, side: Int) -> Int {
        nodes += 1
        if let maxNodes = budget.maxNodes, nodes > maxNodes { aborted = true }
        if nodes & 255 == 0, budget.isExhausted() { aborted = true }
        if aborted { return 0 }

        let (winCell, blocks) = threats(for: side)
        if winCell != nil { return Self.win - (ply + 1) }
        if depth == 0 {
            // Two different open threats cannot both be blocked.
            if blocks.count >= 2 { return -(Self.win - (ply + 2)) }
            return side == 0 ? score : -score
        }

        var alpha = alpha, beta = beta, ttMove = -1
        let slot = Int(hash & UInt64(table.count - 1))
        let entry = table[slot]
        if entry.key == hash, entry.depth >= 0 {
            ttMove = Int(entry.move)
            if entry.depth >= depth {
                // Mate scores are stored relative to this node.
                let stored = entry.score >= Self.mateBound ? entry.score - ply
                    : entry.score <= -Self.mateBound ? entry.score + ply : entry.score
                switch entry.bound {
                case 0: return stored
                case 1: alpha = max(alpha, stored)
                default: beta = min(beta, stored)
                }
                if alpha >= beta { return stored }
            }
        }

        let originalAlpha = alpha
        var best = -Self.infinity, bestMove = -1
        for move in orderedMoves(for: side, blocks: blocks, first: ttMove, limit: Self.beamWidth) {
            let won = place(move, side: side)
            let value = won ? Self.win - (ply + 1)
                : filled == cells.count ? 0
                : -negamax(depth: depth - 1, alpha: -beta, beta: -alpha, ply: ply + 1, side: 1 - side)
            undo(move, side: side)
            if aborted { return 0 }
            if value > best { best = value; bestMove = move }
            alpha = max(alpha, value)
            if alpha >= beta { break }
        }

        let stored = best >= Self.mateBound ? best + ply : best <= -Self.mateBound ? best - ply : best
        let bound: UInt8 = best <= originalAlpha ? 2 : best >= beta ? 1 : 0
        table[slot] = Entry(key: hash, score: stored, move: Int32(bestMove), depth: Int16(depth), bound: bound)
        return best
    }
}
