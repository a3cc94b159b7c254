/// A piece on the board. Raw values are the seed's (Undecided = 0, O = 1, X = 2).
/// The player who moves first plays O.
public enum Piece: UInt8, Sendable, Hashable {
    case empty = 0
    case o = 1
    case x = 2

    /// The other player's piece (`.empty` stays `.empty`).
    public var opponent: Piece {
        switch self {
        case .o: .x
        case .x: .o
        case .empty: .empty
        }
    }

    /// One character for text views: `O`, `X` or `.`.
    public var symbol: Character {
        switch self {
        case .o: "O"
        case .x: "X"
        case .empty: "."
        }
    }
}

/// Why a board size was refused.
public enum BoardSizeError: Error, Sendable, Equatable, CustomStringConvertible {
    case dimensionOutOfRange(rows: Int, cols: Int)
    case lineLengthOutOfRange(k: Int, rows: Int, cols: Int)

    public var description: String {
        switch self {
        case let .dimensionOutOfRange(rows, cols):
            "board \(rows) x \(cols) is out of range: rows and columns must be \(BoardSize.dimensionRange.lowerBound)...\(BoardSize.dimensionRange.upperBound)"
        case let .lineLengthOutOfRange(k, rows, cols):
            "k = \(k) is out of range for a \(rows) x \(cols) board: it must be 3...\(max(rows, cols))"
        }
    }
}

/// The shape of a game: an m x n board won by k in a row. Always valid once built.
public struct BoardSize: Sendable, Hashable, CustomStringConvertible {
    /// Rows and columns allowed. 20 x 20 = 400 cells keeps a cell index in a UInt16 with room.
    public static let dimensionRange = 3...20
    /// The seed's game: 3 x 3, three in a row.
    public static let classic = BoardSize(uncheckedRows: 3, cols: 3, k: 3)

    public let rows: Int
    public let cols: Int
    public let k: Int

    /// Validates the size: rows and columns in `dimensionRange`, 3 <= k <= max(rows, cols)
    /// (a k no line can hold would make every game a draw).
    public init(rows: Int, cols: Int, k: Int) throws(BoardSizeError) {
        guard Self.dimensionRange.contains(rows), Self.dimensionRange.contains(cols) else {
            throw .dimensionOutOfRange(rows: rows, cols: cols)
        }
        guard k >= 3, k <= max(rows, cols) else {
            throw .lineLengthOutOfRange(k: k, rows: rows, cols: cols)
        }
        self.init(uncheckedRows: rows, cols: cols, k: k)
    }

    private init(uncheckedRows rows: Int, cols: Int, k: Int) {
        self.rows = rows
        self.cols = cols
        self.k = k
    }

    public var cellCount: Int { rows * cols }

    public var description: String { "\(rows)x\(cols) k=\(k)" }

    /// Every winning line of the board, as cell indices, in the seed's order generalised:
    /// rows, then columns, then down-right diagonals, then down-left diagonals, each scanned
    /// row-major. On 3 x 3 this is exactly the seed's list.
    public var lines: [[Int]] {
        var result: [[Int]] = []
        let directions = [(0, 1), (1, 0), (1, 1), (1, -1)]
        for (dr, dc) in directions {
            for r in 0..<rows {
                for c in 0..<cols {
                    let endR = r + dr * (k - 1), endC = c + dc * (k - 1)
                    guard endR >= 0, endR < rows, endC >= 0, endC < cols else { continue }
                    result.append((0..<k).map { (r + dr * $0) * cols + (c + dc * $0) })
                }
            }
        }
        return result
    }
}

/// A finished line: who made it and the cells (0-based, row-major).
public struct WinningLine: Sendable, Hashable {
    public let piece: Piece
    public let cells: [Int]
}

/// How a board stands.
public enum Outcome: Sendable, Hashable {
    case inProgress
    case won(WinningLine)
    case draw
}

/// Why a move was refused.
public enum MoveError: Error, Sendable, Equatable, CustomStringConvertible {
    case outOfRange(cell: Int, cellCount: Int)
    case occupied(cell: Int)

    public var description: String {
        switch self {
        case let .outOfRange(cell, count): "cell \(cell + 1) is off the board (1...\(count))"
        case let .occupied(cell): "cell \(cell + 1) is already taken"
        }
    }
}

/// An m x n board. Cells are 0-based, row-major from the upper left (the seed's tag - 1000).
/// A value type: bots copy it freely.
public struct Board: Sendable, Hashable {
    public let size: BoardSize
    public private(set) var cells: [Piece]
    /// Cells that hold a piece.
    public private(set) var filledCount = 0
    /// Lines through each cell, computed once per board value (shared by copies).
    private let linesByCell: LineIndex

    public init(size: BoardSize = .classic) {
        self.size = size
        self.cells = Array(repeating: .empty, count: size.cellCount)
        self.linesByCell = LineIndex.make(for: size)
    }

    public subscript(cell: Int) -> Piece { cells[cell] }

    public var isFull: Bool { filledCount == cells.count }
    public var isEmpty: Bool { filledCount == 0 }
    public var emptyCells: [Int] { cells.indices.filter { cells[$0] == .empty } }

    /// Checks a move without making it.
    public func validate(_ cell: Int) throws(MoveError) {
        guard cell >= 0, cell < cells.count else {
            throw .outOfRange(cell: cell, cellCount: cells.count)
        }
        guard cells[cell] == .empty else { throw .occupied(cell: cell) }
    }

    /// Places `piece` on an empty, in-range cell; the board is unchanged on error.
    public mutating func place(_ piece: Piece, at cell: Int) throws(MoveError) {
        try validate(cell)
        cells[cell] = piece
        if piece != .empty { filledCount += 1 }
    }

    /// Empties every cell (the same size and line index: cheaper than a new board).
    public mutating func removeAll() {
        for i in cells.indices { cells[i] = .empty }
        filledCount = 0
    }

    /// Empties a cell (bots use it to undo a trial move).
    public mutating func clear(_ cell: Int) {
        if cells[cell] != .empty { filledCount -= 1 }
        cells[cell] = .empty
    }

    /// The first complete line in `BoardSize.lines` order, if any.
    public var winningLine: WinningLine? {
        for line in linesByCell.all {
            let first = cells[line[0]]
            if first != .empty, line.allSatisfy({ cells[$0] == first }) {
                return WinningLine(piece: first, cells: line)
            }
        }
        return nil
    }

    /// The first complete line through `cell`, in `BoardSize.lines` order. After a move on a
    /// board that had no winner, this is `winningLine` without scanning the whole board.
    ///
    /// Walks the four directions from the cell in the order `lines` lists them (rows, columns,
    /// down-right, down-left), counting the cell's piece back and forth, up to k - 1 each way.
    /// Within a direction, `lines` lists windows by their first cell, row-major, and stepping
    /// back along any of the four directions goes earlier in that order: the first complete
    /// window is the one that starts furthest back. No line lists are read, so nothing is retained.
    public func winningLine(through cell: Int) -> WinningLine? {
        let piece = cells[cell]
        guard piece != .empty else { return nil }
        let cols = size.cols, k = size.k
        let row = cell / cols, col = cell % cols
        let up = row, down = size.rows - 1 - row, left = col, right = cols - 1 - col
        return cells.withUnsafeBufferPointer { board -> WinningLine? in
            for direction in 0..<4 {
                // The step to the next cell of the direction, and how many cells lie before
                // (up or left) and after the cell along it.
                let step: Int, before: Int, after: Int
                switch direction {
                case 0: (step, before, after) = (1, left, right)
                case 1: (step, before, after) = (cols, up, down)
                case 2: (step, before, after) = (cols + 1, min(up, left), min(down, right))
                default: (step, before, after) = (cols - 1, min(up, right), min(down, left))
                }
                guard before + after >= k - 1 else { continue } // no line of k fits
                var back = 0, i = cell
                while back < min(before, k - 1) {
                    i -= step
                    guard board[i] == piece else { break }
                    back += 1
                }
                var forward = 0
                i = cell
                while forward < min(after, k - 1 - back) {
                    i += step
                    guard board[i] == piece else { break }
                    forward += 1
                }
                guard back + forward == k - 1 else { continue }
                let start = cell - back * step
                return WinningLine(piece: piece, cells: (0..<k).map { start + $0 * step })
            }
            return nil
        }
    }

    public var outcome: Outcome {
        if let line = winningLine { return .won(line) }
        return isFull ? .draw : .inProgress
    }

    /// `outcome` after a move on `cell` to a board that had no winner (checks only its lines).
    public func outcome(after cell: Int) -> Outcome {
        if let line = winningLine(through: cell) { return .won(line) }
        return isFull ? .draw : .inProgress
    }

    /// The lines through a cell (each a list of cell indices).
    public func lines(through cell: Int) -> [[Int]] { linesByCell.through[cell] }

    /// Every winning line of the board.
    public var allLines: [[Int]] { linesByCell.all }

    /// `O.X......`: row-major, `.` for empty (the plain mode's `board` event).
    public var text: String { String(cells.map(\.symbol)) }

    public static func == (a: Board, b: Board) -> Bool { a.size == b.size && a.cells == b.cells }
    public func hash(into h: inout Hasher) {
        h.combine(size)
        h.combine(cells)
    }
}

/// The lines of one board size, shared by reference between board copies.
final class LineIndex: Sendable {
    let all: [[Int]]
    let through: [[[Int]]]

    private init(size: BoardSize) {
        all = size.lines
        var through = Array(repeating: [[Int]](), count: size.cellCount)
        for line in all {
            for cell in line { through[cell].append(line) }
        }
        self.through = through
    }

    private static let classic = LineIndex(size: .classic)

    static func make(for size: BoardSize) -> LineIndex {
        size == .classic ? classic : LineIndex(size: size)
    }
}
