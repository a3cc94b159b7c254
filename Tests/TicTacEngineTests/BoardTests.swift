import Testing
import TicTacEngine

@Suite struct BoardTests {
    /// The seed's eight lines, in its order.
    @Test func classicLinesAreTheSeeds() {
        #expect(BoardSize.classic.lines == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8],
                                            [0, 4, 8], [2, 4, 6]])
    }

    /// The check after a move (only the lines through that cell, and the filled count) agrees
    /// with a scan of the whole board, move by move, over random games on several sizes; and
    /// `clear` and `removeAll` keep the count right.
    @Test(arguments: [(3, 3, 3), (4, 4, 3), (5, 7, 4), (15, 15, 5), (20, 20, 20)])
    func outcomeAfterAMoveAgreesWithAFullScan(rows: Int, cols: Int, k: Int) throws {
        let size = try BoardSize(rows: rows, cols: cols, k: k)
        var rng = SplitMix64(seed: UInt64(rows * 1000 + cols * 10 + k))
        for _ in 0..<50 {
            var board = Board(size: size)
            var piece = Piece.o
            var order = Array(0..<size.cellCount)
            order.shuffle(using: &rng)
            for cell in order {
                try board.place(piece, at: cell)
                #expect(board.filledCount == board.cells.count { $0 != .empty })
                let quick = board.outcome(after: cell), full = board.outcome
                #expect(quick == full, "\(size) after \(cell): \(quick) vs \(full)")
                if quick != .inProgress { break }
                piece = piece.opponent
            }
            let filled = board.filledCount
            board.clear(order[0])
            board.clear(order[0]) // clearing an empty cell changes nothing
            #expect(board.filledCount == filled - 1)
            board.removeAll()
            #expect(board == Board(size: size) && board.isEmpty && board.filledCount == 0)
        }
    }

    /// `winningLine(through:)` walks the board instead of reading the line lists: on random
    /// boards filled past any first win (several lines, runs longer than k), it names the same
    /// line as the first of `lines(through:)` that the cell's piece fills, for every cell.
    @Test(arguments: [(3, 3, 3), (4, 6, 3), (6, 4, 4), (7, 5, 5), (20, 20, 5), (20, 20, 20)])
    func winningLineThroughACellIsTheFirstFullLineListedThroughIt(rows: Int, cols: Int, k: Int) throws {
        let size = try BoardSize(rows: rows, cols: cols, k: k)
        var rng = SplitMix64(seed: UInt64(rows * 1000 + cols * 10 + k))
        var wins = 0
        for round in 0..<40 {
            var board = Board(size: size)
            let fill = [0.5, 0.8, 1.0][round % 3] // sparse to full
            for cell in 0..<size.cellCount where Double.random(in: 0..<1, using: &rng) < fill {
                // Mostly O, so long lines happen; every fourth board nearly all O (k = 20 too).
                let oShare = round % 4 == 3 ? 0.98 : 0.7
                try board.place(Double.random(in: 0..<1, using: &rng) < oShare ? .o : .x, at: cell)
            }
            for cell in 0..<size.cellCount {
                let piece = board[cell]
                let expected = piece == .empty ? nil
                    : board.lines(through: cell).first { $0.allSatisfy { board[$0] == piece } }
                let found = board.winningLine(through: cell)
                #expect(found?.cells == expected, "\(size), cell \(cell)")
                #expect(found.map { $0.piece == piece } ?? true)
                if expected != nil { wins += 1 }
            }
        }
        #expect(wins > 0) // the boards did hold lines (on 20 x 20, k = 20 too)
    }
}
