import TicTacEngine

/// `tictac watch --all` full screen: every game followed, as tiles in a grid, as many as the
/// window holds (the rest counted on the last line). A tile: who plays O and X, the board with
/// one character and a space per cell (the last move underlined), and whose turn or the result.
/// Pure: tests draw it directly.
public struct WatchTiles: WatchView {
    /// The games, in the order shown.
    public var boards: [WatchedBoard] = []
    /// The last line: what the watcher is doing.
    public var status = "Looking for games"
    public var color: Bool
    public var unicode: Bool

    public init(color: Bool, unicode: Bool = true) {
        self.color = color
        self.unicode = unicode
    }

    /// Columns and lines a tile of `board` takes (a gap of 2 columns and 1 line between tiles).
    static func tileSize(_ w: WatchedBoard) -> (width: Int, height: Int) {
        (max(18, 2 * w.size.cols), w.size.rows + 3)
    }

    public func lines(width: Int, height: Int) -> [String] {
        guard width > 0, height > 0 else { return [] }
        let model = FullScreenModel(color: color, unicode: unicode)
        var title = ScreenLine(" tictac watch --all" + (unicode ? " · " : " - ") + "\(boards.count) game" + (boards.count == 1 ? "" : "s"), .title)
        title.fill = .title
        var rows: [ScreenLine] = [title, ScreenLine()]
        let room = height - rows.count - 2 // the status and the key help below
        // Tiles fill bands left to right; a band is as tall as its tallest tile.
        var bands: [[(tile: [ScreenLine], width: Int)]] = [[]]
        var bandWidth = 0, used = 0, shown = 0
        for board in boards {
            let size = Self.tileSize(board)
            guard size.width <= width - 1 else { continue } // wider than the window: counted, not drawn
            if bandWidth > 0, bandWidth + 2 + size.width > width - 1 {
                used += (bands[bands.count - 1].map(\.tile.count).max() ?? 0) + 1
                bands.append([])
                bandWidth = 0
            }
            let tall = max(bands[bands.count - 1].map(\.tile.count).max() ?? 0, size.height)
            guard used + tall <= room else { break }
            bands[bands.count - 1].append((tile(board, width: size.width, model: model), size.width))
            bandWidth += (bandWidth > 0 ? 2 : 0) + size.width
            shown += 1
        }
        for band in bands where !band.isEmpty {
            let tall = band.map(\.tile.count).max() ?? 0
            for i in 0..<tall {
                var line = ScreenLine(" ")
                for (n, entry) in band.enumerated() {
                    if n > 0 { line.add("  ") }
                    let spans = i < entry.tile.count ? entry.tile[i].spans : []
                    line.add(spans)
                    let drawn = model.textWidth(spans.map(\.text).joined())
                    line.add(String(repeating: " ", count: max(0, entry.width - drawn)))
                }
                rows.append(line)
            }
            rows.append(ScreenLine())
        }
        if boards.isEmpty { rows.append(ScreenLine("  No game being played that serves watchers", .dim)) }
        if shown < boards.count { rows.append(ScreenLine("  (\(boards.count - shown) more: enlarge the window)", .warn)) }
        rows += Array(repeating: ScreenLine(), count: max(0, height - rows.count - 2))
        rows.append(ScreenLine("  " + status, .bold))
        rows.append(ScreenLine("  q quit", .help))
        return rows.prefix(height).map { model.render($0, width: width) }
    }

    /// One tile: names, board, status, each line at most `width` columns.
    private func tile(_ w: WatchedBoard, width: Int, model: FullScreenModel) -> [ScreenLine] {
        var head = ScreenLine()
        head.add("O", .o)
        head.add(" " + model.clip(w.game.o.name.value, max(1, width / 2 - 3)) + " ")
        head.add("X", .x)
        head.add(" " + model.clip(w.game.x.name.value, max(1, width / 2 - 3)))
        var out = [head]
        let last = w.end == nil ? w.moves.last : nil
        let winning = w.end?.how == .line ? Set(w.board.winningLine?.cells ?? []) : []
        for r in 0..<w.size.rows {
            var line = ScreenLine()
            for c in 0..<w.size.cols {
                let i = r * w.size.cols + c
                let piece = w.board[i]
                let text = piece == .empty ? (unicode ? "·" : ".") : String(piece.symbol)
                let style: TextStyle = winning.contains(i) ? .win : i == last ? (piece == .o ? .lastO : .lastX)
                    : piece == .o ? .o : piece == .x ? .x : .dim
                line.add(text, style)
                if c < w.size.cols - 1 { line.add(" ") }
            }
            out.append(line)
        }
        out.append(ScreenLine(model.clip(WatchScreen.status(of: w), width), w.end == nil ? .plain : .bold))
        return out
    }
}
