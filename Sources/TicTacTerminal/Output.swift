import TicTacEngine
import TicTacWire

/// Who the player faces (for `game-started`).
public struct Opponent: Sendable, Equatable {
    public var id: ID128
    public var name: String
    public init(id: ID128, name: String) {
        self.id = id
        self.name = name
    }
}

/// Everything the plain mode prints, one event per line.
public enum OutputEvent: Sendable, Equatable {
    case game(GameEvent, opponent: Opponent)
    case error(code: String, message: String)
    case help(String)
}

/// Renders events as JSON objects, as readable lines (the seed's strings), or with a drawn board.
public struct OutputFormatter: Sendable {
    public enum Style: Sendable { case json, text, board }
    public let style: Style

    public init(style: Style) { self.style = style }

    /// The lines for one event (none for events a style does not show).
    public func lines(for event: OutputEvent) -> [String] {
        style == .json ? [json(event).serialized] : text(event)
    }

    public func json(_ event: OutputEvent) -> JSON {
        func ev(_ name: String, _ rest: [(String, JSON)] = []) -> JSON { .object([("event", .string(name))] + rest) }
        switch event {
        case let .error(code, message):
            return ev("error", [("code", .string(code)), ("message", .string(message))])
        case let .help(text):
            return ev("help", [("message", .string(text))])
        case let .game(g, opponent):
            switch g {
            case let .gameStarted(piece, first, size):
                return ev("game-started", [
                    ("opponent", .object([("id", .string(opponent.id.description)), ("name", .string(opponent.name))])),
                    ("piece", .string(String(piece.symbol))), ("first", .bool(first)),
                    ("rows", .int(size.rows)), ("cols", .int(size.cols)), ("k", .int(size.k)),
                ])
            case .tieRoll: return ev("tie-roll")
            case .yourTurn: return ev("your-turn")
            case .opponentTurn: return ev("opponent-turn")
            case let .opponentMoved(cell): return ev("opponent-moved", [("cell", .int(cell + 1))])
            case let .board(board): return ev("board", [("cells", .string(board.text))])
            case let .gameOver(result, line, resigned):
                return ev("game-over", [
                    ("result", .string(result.rawValue)),
                    ("line", line.map { .array($0.map { .int($0 + 1) }) } ?? .null),
                    ("resigned", .bool(resigned)),
                ])
            case let .score(s):
                return ev("score", [("won", .int(s.won)), ("lost", .int(s.lost)), ("drawn", .int(s.drawn))])
            case .interrupted:
                return ev("disconnected", [("reason", .string("Your opponent has disconnected, or the connection has been lost"))])
            }
        }
    }

    private func text(_ event: OutputEvent) -> [String] {
        switch event {
        case let .error(_, message): return ["Error: \(message)"]
        case let .help(text): return [text]
        case let .game(g, opponent):
            switch g {
            case let .gameStarted(piece, first, size):
                let order = first ? "you move first" : "\(opponent.name) moves first"
                return ["New game against \(opponent.name) on \(size.rows)x\(size.cols), \(size.k) in a row: you play \(piece.symbol), \(order)"]
            case .tieRoll: return ["Tied roll: rolling again"]
            case .yourTurn: return ["Your Turn"]
            case .opponentTurn: return ["Opponent's Turn"]
            case let .opponentMoved(cell): return ["Opponent played \(cell + 1)"]
            case let .board(board): return style == .board ? Self.draw(board) : ["Board: \(board.text)"]
            case let .gameOver(result, line, resigned):
                var s: String
                switch result {
                case .won: s = "You Won!"
                case .lost: s = "Opponent Won!"
                case .draw: s = "Cat Wins!"
                }
                if let line { s += " (line \(line.map { String($0 + 1) }.joined(separator: "-")))" }
                if resigned { s += result == .draw ? " (both resigned)" : " (by resignation)" }
                return [s]
            case let .score(sc): return ["Score: won \(sc.won), lost \(sc.lost), drawn \(sc.drawn)"]
            case .interrupted: return ["Peer Disconnected! Your opponent has disconnected, or the connection has been lost"]
            }
        }
    }

    /// The board as a grid; empty cells show their number so a player knows what to type.
    static func draw(_ board: Board) -> [String] {
        let width = String(board.size.cellCount).count
        var rows: [String] = []
        for r in 0..<board.size.rows {
            let cells = (0..<board.size.cols).map { c -> String in
                let i = r * board.size.cols + c
                let s = board[i] == .empty ? String(i + 1) : String(board[i].symbol)
                return String(repeating: " ", count: width - s.count) + s
            }
            rows.append(" " + cells.joined(separator: " | "))
            if r < board.size.rows - 1 {
                rows.append(String(repeating: "-", count: board.size.cols * (width + 3) - 1))
            }
        }
        return rows
    }
}
