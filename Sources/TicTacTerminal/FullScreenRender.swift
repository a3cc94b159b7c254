import TicTacEngine
import TicTacWire

/// Drawing the model: the lobby, the game, the status and notice lines, as styled screen lines
/// (cut to the width and turned into escape codes in ScreenText.swift).
extension FullScreenModel {
    static let margin = "  "

    // MARK: - Screen

    /// The whole screen: exactly `height` lines (fewer only if the terminal is too small for
    /// the fixed parts), none wider than `width` visible columns. Escape codes are included
    /// when `color` is on (and SGR bold/reverse without it).
    package func lines(width: Int, height: Int) -> [String] {
        guard width > 0, height > 0 else { return [] }
        let rows = game == nil ? lobbyLines(width: width, height: height) : gameLines(width: width, height: height)
        return rows.prefix(height).map { render($0, width: width) }
    }

    /// The lobby: the list, then the prompt and notice low on the screen; the key help last.
    private func lobbyLines(width: Int, height: Int) -> [ScreenLine] {
        let top = lobbyTop(width: width)
        // The notice takes up to four lines when the peer list leaves them free, else two.
        let listed = max(1, peers.count)
        var status = [ScreenLine()] + statusLines(width: width) + noticeLines(width: width, maxLines: 4)
        if top.count + listed + status.count + 1 > height {
            status = [ScreenLine()] + statusLines(width: width) + noticeLines(width: width, maxLines: 2)
        }
        let help = helpLine(width: width)
        var rows = top + peerRows(room: max(0, height - top.count - status.count - 1), width: width)
        rows += Array(repeating: ScreenLine(), count: max(0, height - rows.count - status.count - 1))
        return rows + status + [help]
    }

    /// A game: title, who plays what, score, the board, the status right under it, the notice,
    /// and the key help as the last line. The whole board is always shown: when the window is
    /// short, the spacers, the notice, the score, the title and the pieces line go (in that
    /// order); when even that is not enough, the screen says how large a window it needs.
    private func gameLines(width: Int, height: Int) -> [ScreenLine] {
        guard let game else { return [] }
        let size = game.size
        let status = statusLines(width: width)
        let help = helpLine(width: width)
        var title: ScreenLine? = titleLine(width: width), info: ScreenLine? = infoLine(game, width: width), score: ScreenLine? = scoreLine(game)
        var topSpacer = true, statusSpacer = true
        var noticeMax = 2
        func notice() -> [ScreenLine] { noticeLines(width: width, maxLines: noticeMax) }
        func fixed() -> Int {
            [title, info, score].compactMap { $0 }.count + (topSpacer ? 1 : 0) + (statusSpacer ? 1 : 0)
                + status.count + notice().count + 1
        }
        func assemble(_ board: [ScreenLine]) -> [ScreenLine] {
            var rows = [title, info, score].compactMap { $0 }
            if topSpacer { rows.append(ScreenLine()) }
            rows += board
            if statusSpacer { rows.append(ScreenLine()) }
            rows += status + notice()
            rows += Array(repeating: ScreenLine(), count: max(0, height - rows.count - 1))
            return rows + [help]
        }
        let winning: Set<Int>
        if case let .over(_, line, _) = game.phase { winning = Set(line) } else { winning = [] }
        let roomWidth = width - Self.margin.count

        // Big cells (5 wide, 3 tall, with grid lines) only when everything else fits too.
        // The choice is made with a notice of two lines, so the board does not change size as
        // notices come and go; a longer notice then takes what room is left (up to four lines).
        if size.cols * 6 - 1 <= roomWidth, size.rows * 4 - 1 <= height - fixed() {
            noticeMax = 4
            while noticeMax > 2, size.rows * 4 - 1 > height - fixed() { noticeMax -= 1 }
            return assemble(bigBoard(game, winning: winning))
        }
        noticeMax = 4
        let need = compactBoardSize(size)
        var letters = size != .classic
        func boardLines() -> Int { need.lines - (size != .classic && !letters ? 1 : 0) }
        // Last of all the column letters go (a confirmation's line on 11 x 11 at 40 x 14).
        let drops: [() -> Void] = [
            { noticeMax = 2 }, { topSpacer = false }, { statusSpacer = false }, { noticeMax = 1 }, { score = nil },
            { noticeMax = 0 }, { title = nil }, { info = nil }, { letters = false },
        ]
        for drop in drops where boardLines() > height - fixed() { drop() }
        guard need.width <= roomWidth, boardLines() <= height - fixed() else {
            // Too small for every row: say so rather than draw part of the board. The size
            // named is the least where the board shows with the pieces line.
            let wantWidth = max(width, need.width + Self.margin.count)
            let wantHeight = max(height, need.lines + status.count + 2)
            info = infoLine(game, width: width)
            let text = "This \(size.rows)x\(size.cols) board does not fit: enlarge the window to \(wantWidth) x \(wantHeight)"
            let message = wrap(text, width: roomWidth, maxLines: 3).map { ScreenLine(Self.margin + $0, .warn) }
            return assemble(message)
        }
        return assemble(compactBoard(game, winning: winning, letters: letters))
    }
    // MARK: - Game

    /// Who plays what, the opponent's name and the board's size and goal; in a narrow window
    /// the short form ("You: O  ben: X  3x3, 3 in a row"), the name clipped so that the goal
    /// still shows.
    private func infoLine(_ game: Game, width: Int) -> ScreenLine {
        let name = clip(game.opponent.name, 32), size = game.size
        let goal = "\(size.rows)x\(size.cols), \(size.k) in a row"
        let me = hotSeat ? "\(clip(playerOne, 32)): " : "You: "
        var gap = "    ", them = hotSeat ? "\(name): " : "Opponent: \(name) "
        if textWidth(Self.margin + me + "O" + gap + them + "X" + gap + goal) > width {
            gap = "  "
            let rest = textWidth(Self.margin + me + "O" + gap + ": X" + gap + goal)
            them = "\(clip(name, max(6, width - rest))): "
        }
        var info = ScreenLine(Self.margin + me)
        info.add(String(game.piece.symbol), style(of: game.piece))
        info.add(gap + them)
        info.add(String(game.piece.opponent.symbol), style(of: game.piece.opponent))
        info.add(gap + goal, .dim)
        return info
    }

    private func scoreLine(_ game: Game) -> ScreenLine {
        hotSeat
            ? ScreenLine(Self.margin + "Score: \(playerOne) \(score.won)  \(game.opponent.name) \(score.lost)  drawn \(score.drawn)")
            : ScreenLine(Self.margin + "Score: won \(score.won)  lost \(score.lost)  drawn \(score.drawn)"
                         + (watchers > 0 ? "    \(watchers) watching" : ""))
    }

    private func style(of piece: Piece) -> TextStyle {
        switch piece {
        case .o: .o
        case .x: .x
        case .empty: .dim
        }
    }

    /// Columns (after the margin) and lines the one-line-per-row board takes: 3 columns a
    /// cell; boards other than 3 x 3 add column letters above and row numbers beside.
    func compactBoardSize(_ size: BoardSize) -> (width: Int, lines: Int) {
        let axes = size != .classic
        let labelWidth = axes ? String(size.rows).count + 1 : 0
        return (labelWidth + 3 * size.cols, size.rows + (axes ? 1 : 0))
    }

    /// The board, one line per row. Empty cells show their number on 3 x 3 (the seed's 1-9);
    /// other boards name cells (CellName: `c7`) by the column letters above and the row numbers
    /// beside the board (the letters left out when `letters` is false).
    func compactBoard(_ game: Game, winning: Set<Int>, letters: Bool) -> [ScreenLine] {
        let size = game.size
        let axes = size != .classic
        let labelWidth = axes ? String(size.rows).count + 1 : 0
        var rows: [ScreenLine] = []
        if axes, letters {
            var header = ScreenLine(Self.margin + String(repeating: " ", count: labelWidth))
            for c in 0..<size.cols { header.add(" \(CellName.letter(c)) ", .dim) }
            rows.append(header)
        }
        for r in 0..<size.rows {
            var line = ScreenLine(Self.margin)
            if axes {
                let label = String(r + 1)
                line.add(String(repeating: " ", count: labelWidth - 1 - label.count) + label + " ", .dim)
            }
            for c in 0..<size.cols {
                line.add(cell(game, r * size.cols + c, width: 3, label: !axes, winning: winning))
            }
            rows.append(line)
        }
        return rows
    }

    /// The board in big cells: 5 columns by 3 lines, with grid lines; each empty cell shows its
    /// number on 3 x 3 and its name (CellName) elsewhere.
    func bigBoard(_ game: Game, winning: Set<Int>) -> [ScreenLine] {
        let size = game.size
        let bar = unicode ? "│" : "|", dash = unicode ? "─" : "-", cross = unicode ? "┼" : "+"
        let fill = winStyle(game)
        var rows: [ScreenLine] = []
        for r in 0..<size.rows {
            for sub in 0..<3 {
                var line = ScreenLine(Self.margin)
                for c in 0..<size.cols {
                    let i = r * size.cols + c
                    if c > 0 { line.add(bar, .dim) }
                    if sub == 1 {
                        line.add(cell(game, i, width: 5, label: true, winning: winning))
                    } else {
                        line.add("     ", winning.contains(i) ? fill : .plain)
                    }
                }
                rows.append(line)
            }
            if r < size.rows - 1 {
                let segment = String(repeating: dash, count: 5)
                rows.append(ScreenLine(Self.margin + Array(repeating: segment, count: size.cols).joined(separator: cross), .dim))
            }
        }
        return rows
    }

    /// The winning line's look: green when we won, red when we lost (never green for a loss).
    private func winStyle(_ game: Game) -> TextStyle {
        if !hotSeat, case .over(.lost, _, _) = game.phase { return .lose }
        return .win
    }

    /// One cell in `width` columns, centred: the piece, or (`label`) the empty cell's number on
    /// 3 x 3 and its name elsewhere, else a dot; the cursor's cell in brackets.
    private func cell(_ game: Game, _ i: Int, width: Int, label: Bool, winning: Set<Int>) -> [Span] {
        let cells = game.board.cells
        let piece = cells.indices.contains(i) ? cells[i] : .empty
        let isWin = winning.contains(i)
        let name = game.size == .classic ? String(i + 1) : CellName.name(i, on: game.size)
        let text = piece != .empty ? String(piece.symbol) : (label ? name : (unicode ? "·" : "."))
        let isLast = i == game.lastMove && !isOver(game) && piece != .empty
        let contentStyle = isWin ? winStyle(game) : isLast ? (piece == .o ? .lastO : .lastX) : style(of: piece)
        let padStyle: TextStyle = isWin ? winStyle(game) : .plain
        let isCursor = i == cursor && !isOver(game)
        let used = text.count + (isCursor ? 2 : 0)
        let left = max(0, (width - used) / 2), right = max(0, width - used - left)
        var spans: [Span] = []
        if left > 0 { spans.append(Span(text: String(repeating: " ", count: left), style: padStyle)) }
        if isCursor { spans.append(Span(text: "[", style: .cursor)) }
        spans.append(Span(text: text, style: contentStyle))
        if isCursor { spans.append(Span(text: "]", style: .cursor)) }
        if right > 0 { spans.append(Span(text: String(repeating: " ", count: right), style: padStyle)) }
        return spans
    }

    private func isOver(_ game: Game) -> Bool {
        if case .over = game.phase { return true }
        return false
    }

    // MARK: - Bottom: status, notice, help

    /// The status under the board (or the lobby's prompt), with the line under a finished
    /// game or a confirmation, and the cell being typed: never left out for room.
    private func statusLines(width: Int) -> [ScreenLine] {
        var rows: [ScreenLine] = []
        if let game, let status = statusText {
            let style: TextStyle = switch game.phase {
            case .rolling: .warn
            case .yourTurn where clockRunningOut: .bad
            case .opponentTurn where clockRunningOut: .warn
            case .yourTurn: .good
            case .opponentTurn: hotSeat ? .good : .bold
            case let .over(result, _, _): hotSeat ? .good : result == .won ? .good : result == .lost ? .bad : .warn
            }
            let room = width - Self.margin.count
            var line = ScreenLine(Self.margin)
            if textWidth(status) > room, let move = lastMove, let text = lastMoveText, status.hasSuffix(text) {
                // Too narrow for both: the move goes on a line of its own, its cell never cut (a
                // long name is, before it).
                let played = " played \(move.cell)"
                line.add(clip(String(status.dropLast(text.count + 3)), room), style)
                rows.append(line)
                line = ScreenLine(Self.margin + clip(move.who, max(1, room - textWidth(played))) + played)
            } else {
                line.add(clip(status, room), style) // a cut clock is marked as cut
            }
            rows.append(line)
            if var followUp = followUpText {
                if textWidth(followUp) > width - Self.margin.count { followUp = shortFollowUpText ?? followUp }
                rows.append(ScreenLine(Self.margin + followUp, confirm != nil ? .warn : .bold))
            }
            if let entry = cellEntry {
                rows.append(ScreenLine(Self.margin + "Cell: \(entry)_   Enter play, Esc cancel", .bold))
            }
        } else if let prompt = promptText(fitting: width - Self.margin.count) {
            rows.append(ScreenLine(Self.margin + prompt, incoming != nil ? .warn : .bold))
        }
        return rows
    }

    /// The notice: its title, if any, then its text in at most `maxLines` lines.
    private func noticeLines(width: Int, maxLines: Int) -> [ScreenLine] {
        guard let notice = shownNotice, maxLines > 0 else { return [] }
        var rows: [ScreenLine] = []
        if let title = notice.title { rows.append(ScreenLine(Self.margin + title, .bad)) }
        let style: TextStyle = notice.tone == .error ? .bad : .plain
        for text in wrap(notice.text, width: width - Self.margin.count, maxLines: maxLines) {
            rows.append(ScreenLine(Self.margin + text, style))
        }
        return rows
    }
}
