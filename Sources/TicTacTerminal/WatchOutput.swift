import TicTacAPI
import TicTacEngine
import TicTacJSON
import TicTacWire

/// A watched game as the watcher knows it: who plays what, the board, the moves, the end. Built
/// from `WatchUpdate`s only (Protocol.md §14); a move that does not fit (off the board, a cell
/// taken, out of order) is refused, never drawn.
public struct WatchedBoard: Sendable, Equatable {
    public let server: PeerInfo
    public let game: WatchedGame
    public let size: BoardSize
    public private(set) var board: Board
    public private(set) var moves: [Int] = []
    public private(set) var end: WatchEnd?

    /// Nil when the game's board is not one tictac plays, or its moves do not fit it.
    public init?(_ game: WatchedGame, from server: PeerInfo) {
        guard let size = try? BoardSize(rows: Int(game.rows), cols: Int(game.cols), k: Int(game.k)) else { return nil }
        self.server = server
        self.game = game
        self.size = size
        board = Board(size: size)
        for cell in game.moves { guard apply(Int(cell)) else { return nil } }
    }

    /// The piece that moves next: O first.
    public var toMove: Piece { moves.count % 2 == 0 ? .o : .x }

    /// A player by piece.
    public func player(_ piece: Piece) -> WatchPlayer { piece == .o ? game.o : game.x }

    /// Plays move `number` (1 for the first); false when it does not fit.
    public mutating func move(cell: Int, number: Int) -> Bool {
        guard end == nil, number == moves.count + 1 else { return false }
        return apply(cell)
    }

    public mutating func finish(_ e: WatchEnd) { end = e }

    private mutating func apply(_ cell: Int) -> Bool {
        guard (try? board.place(toMove, at: cell)) != nil else { return false }
        moves.append(cell)
        return true
    }

    /// The board as rows of `O`, `X` and `.`, top to bottom.
    public var rows: [String] {
        (0..<size.rows).map { r in String((0..<size.cols).map { board[r * size.cols + $0].symbol }) }
    }

    /// "O", "X" or nil (a draw, no result).
    public static func pieceName(_ winner: UInt8) -> String? { winner == 1 ? "O" : winner == 2 ? "X" : nil }

    public static func howName(_ how: WatchEnd.How) -> String {
        switch how {
        case .line: "line"
        case .full: "draw"
        case .gaveUp: "gave-up"
        case .noResult: "no-result"
        }
    }

    public static func reasonName(_ reason: WatchStopReason) -> String {
        switch reason {
        case .stopped: "stopped"
        case .off: "off"
        case .noGame: "no-game"
        case .full: "full"
        case .over: "over"
        }
    }
}

/// `tictac watch`'s lines: text for people, or one JSON object per line (`--json`).
public struct WatchFormatter: Sendable {
    public let json: Bool
    /// Several games at once (`--all`): each line says whose daemon told it (JSON: `player`;
    /// text: the player's name in brackets first).
    public var player: PeerInfo?

    public init(json: Bool) { self.json = json }

    /// The same, for lines about `peer`'s game.
    public func about(_ peer: PeerInfo) -> WatchFormatter {
        var f = self
        f.player = peer
        return f
    }

    /// An event line: `"event"` first, then the player (with `player`), then `fields`.
    private func event(_ name: String, _ fields: [(String, JSON)]) -> String {
        var pairs: [(String, JSON)] = [("event", .string(name))]
        if let player { pairs.append(("player", .object([("id", .string(player.id.description)), ("name", .string(player.name))]))) }
        return JSON.object(pairs + fields).serialized
    }

    /// Text lines, tagged with the player's name when there are several games.
    private func text(_ lines: [String]) -> [String] {
        guard let player else { return lines }
        return lines.map { "[\(player.name)] " + $0 }
    }

    static func who(_ p: WatchPlayer) -> JSON { .object([("id", .string(p.id.description)), ("name", .string(p.name.value))]) }

    /// A game begins (or a late watcher's first look at it).
    public func started(_ w: WatchedBoard) -> [String] {
        let g = w.game
        if json {
            return [event("watching", [("o", Self.who(g.o)), ("x", Self.who(g.x)),
                                 ("rows", .int(w.size.rows)), ("cols", .int(w.size.cols)), ("k", .int(w.size.k)),
                                 ("number", .int(Int(g.number))), ("move-time", .int(Int(g.moveTime))),
                                 ("moves", .array(w.moves.map { .string(CellName.name($0, on: w.size)) })),
                                 ("cells", .string(w.rows.joined()))])]
        }
        let moves = w.moves.isEmpty ? "no move yet" : "\(w.moves.count) moves so far"
        return text(["Game \(g.number): \(g.o.name.value) (O) vs \(g.x.name.value) (X), \(w.size.rows) x \(w.size.cols), \(w.size.k) in a row; \(moves)"]
            + board(w))
    }

    /// Move `w.moves.count`, just played.
    public func moved(_ w: WatchedBoard) -> [String] {
        guard let cell = w.moves.last else { return [] }
        let piece: Piece = w.moves.count % 2 == 1 ? .o : .x
        let name = CellName.name(cell, on: w.size)
        if json {
            return [event("watch-move", [("number", .int(w.moves.count)), ("cell", .int(cell + 1)),
                                         ("name", .string(name)), ("piece", .string(String(piece.symbol))),
                                         ("cells", .string(w.rows.joined()))])]
        }
        return text(["\(w.moves.count). \(w.player(piece).name.value) (\(piece.symbol)) plays \(name)"] + board(w))
    }

    public func ended(_ w: WatchedBoard, _ e: WatchEnd) -> [String] {
        let winner = WatchedBoard.pieceName(e.winner)
        if json {
            return [event("watch-end", [("winner", winner.map { .string($0) } ?? .null), ("how", .string(WatchedBoard.howName(e.how)))])]
        }
        let name = e.winner == 1 ? w.game.o.name.value : w.game.x.name.value
        let loser = e.winner == 1 ? w.game.x.name.value : w.game.o.name.value
        switch e.how {
        case .line: return text(["\(name) (\(winner ?? "?")) wins with a line"])
        case .full: return text(["Cat Wins! (a draw)"])
        case .gaveUp: return text([winner.map { "\(name) (\($0)) wins: \(loser) gave up (resigned, ran out of time or left)" } ?? "Both gave up: a draw"])
        case .noResult: return text(["The game stopped without a result"])
        }
    }

    public func stopped(_ server: PeerInfo, _ reason: WatchStopReason) -> [String] {
        if json {
            return [JSON.object([("event", .string("watch-stopped")), ("player", .object([("id", .string(server.id.description)),
                                 ("name", .string(server.name))])), ("reason", .string(WatchedBoard.reasonName(reason)))]).serialized]
        }
        switch reason {
        case .stopped: return ["\(server.name) stopped serving watchers"]
        case .off: return ["\(server.name)'s games may not be watched: a player allows no spectators"] // either player (Protocol.md §14)
        case .noGame: return ["\(server.name) is not playing: waiting for a game"]
        case .full: return ["\(server.name)'s game has as many watchers as it serves"]
        case .over: return ["\(server.name)'s match is over: waiting for the next"]
        }
    }

    public func notice(_ text: String) -> String {
        json ? JSON.object([("event", .string("notice")), ("message", .string(text))]).serialized : text
    }

    /// The games of the LAN, as `tictac watch` lists them.
    public func list(_ games: [(server: PeerInfo, game: ListedGame)]) -> [String] {
        if json {
            return [JSON.object([("event", .string("games")), ("games", .array(games.map { g in
                .object([("player", .object([("id", .string(g.server.id.description)), ("name", .string(g.server.name)),
                                             ("program", g.server.program.map { .string($0) } ?? .null)])),
                         ("opponent", Self.who(g.game.opponent)), ("rows", .int(Int(g.game.rows))), ("cols", .int(Int(g.game.cols))),
                         ("k", .int(Int(g.game.k))), ("moves", .int(Int(g.game.moves)))])
            }))]).serialized]
        }
        guard !games.isEmpty else { return ["No games being played."] }
        return games.map { g in
            "\(g.server.name)\(g.server.kindLabel.map { " " + $0 } ?? "") vs \(g.game.opponent.name.value): \(g.game.rows) x \(g.game.cols), \(g.game.k) in a row, \(g.game.moves) moves"
        }
    }

    /// The board, one line per row, indented (text only).
    private func board(_ w: WatchedBoard) -> [String] { w.rows.map { "    " + $0 } }
}
