#if canImport(Glibc)
import Glibc
#endif
import TicTacEngine

/// What `tictac watch PLAYER` shows full screen, as a plain value: the game followed (drawn
/// read-only with the full-screen front's board: FullScreenModel's cells, no cursor), who plays
/// what, whose turn or how it ended, and a status line. Pure: tests draw it directly.
public struct WatchScreen: WatchView {
    public var board: WatchedBoard?
    /// Under the board: whose turn, the result, or what the watcher waits for.
    public var status = "Looking for the player"
    public var color: Bool
    public var unicode: Bool

    public init(color: Bool, unicode: Bool = true) {
        self.color = color
        self.unicode = unicode
    }

    /// The status a board implies: whose turn, or how it ended.
    public static func status(of w: WatchedBoard) -> String {
        guard let end = w.end else {
            let next = w.toMove
            return "\(w.player(next).name.value) (\(next.symbol)) to move"
        }
        let winner = end.winner == 1 ? w.game.o.name.value : w.game.x.name.value
        let loser = end.winner == 1 ? w.game.x.name.value : w.game.o.name.value
        switch end.how {
        case .line: return "\(winner) wins!"
        case .full: return "Cat Wins! (a draw)"
        // Resigned, out of time or left (Protocol.md §14): the watched daemon does not say which.
        case .gaveUp: return end.winner == 0 ? "A draw: both gave up" : "\(winner) wins: \(loser) gave up"
        case .noResult: return "Stopped without a result"
        }
    }

    /// Exactly `height` lines (fewer when too small), none wider than `width` columns.
    public func lines(width: Int, height: Int) -> [String] {
        guard width > 0, height > 0 else { return [] }
        var model = FullScreenModel(color: color, unicode: unicode)
        model.cursor = -1 // read-only: no cell is the cursor's
        var rows = [ScreenLine(" tictac watch" + (board.map { (unicode ? " · " : " - ") + $0.server.name } ?? ""), .title)]
        rows[0].fill = .title
        if let w = board {
            var info = ScreenLine(FullScreenModel.margin)
            info.add("O", .o)
            info.add(" \(w.game.o.name.value)    ")
            info.add("X", .x)
            info.add(" \(w.game.x.name.value)    ")
            info.add("\(w.size.rows)x\(w.size.cols), \(w.size.k) in a row, game \(w.game.number)", .dim)
            rows += [info, ScreenLine()]
            let winning = w.end?.how == .line ? Set(w.board.winningLine?.cells ?? []) : []
            let phase: FullScreenModel.Phase = w.end == nil ? .opponentTurn : .over(.won, line: Array(winning), resigned: false)
            let game = FullScreenModel.Game(opponent: Opponent(id: w.server.id, name: w.server.name), piece: .o, board: w.board,
                                            phase: phase, lastMove: w.moves.last)
            let room = height - rows.count - 4
            let big = w.size.cols * 6 - 1 <= width - 2 && w.size.rows * 4 - 1 <= room
            let need = model.compactBoardSize(w.size)
            if big {
                rows += model.bigBoard(game, winning: winning)
            } else if need.width <= width - 2, need.lines <= room + 1 {
                rows += model.compactBoard(game, winning: winning, letters: true)
            } else {
                rows.append(ScreenLine(FullScreenModel.margin + "Enlarge the window to show this \(w.size.rows)x\(w.size.cols) board", .warn))
            }
            rows.append(ScreenLine())
        } else {
            rows.append(ScreenLine())
        }
        rows.append(ScreenLine(FullScreenModel.margin + status, .bold))
        rows += Array(repeating: ScreenLine(), count: max(0, height - rows.count - 1))
        rows.append(ScreenLine(FullScreenModel.margin + "q quit", .help))
        return rows.prefix(height).map { model.render($0, width: width) }
    }
}

/// What a watch front draws: one game (WatchScreen) or tiles (WatchTiles).
public protocol WatchView: Sendable {
    func lines(width: Int, height: Int) -> [String]
}
