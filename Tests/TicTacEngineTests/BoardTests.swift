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
}
