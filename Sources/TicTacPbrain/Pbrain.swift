import TicTacEngine

// The Gomocup "Piskvork" brain protocol (pbrain-* programs), the manager's side: the lines we
// write to an engine's standard input and how we read the lines it writes back. Pure: no pipes.
//
// The protocol, as its public description (plastovicka.github.io/protocl2en.htm) gives it:
// - one command per line; the manager ends lines with CR LF and writes commands in upper case
//   (INFO keys in lower case); the brain may end its lines with CR LF, LF or CR, in any case;
//   empty lines are ignored, and a manager may cut very long lines.
// - START n (square board) or RECTSTART w,h: OK, or ERROR text for a size the brain refuses.
// - RESTART: a new game on the same board, answered OK. END: the brain exits.
// - BEGIN: the brain opens the game on the empty board; TURN x,y: the opponent played x,y;
//   BOARD, then lines "x,y,who" (1 the brain's stone, 2 the opponent's) in the order played,
//   then DONE: a whole position. Each is answered by the brain's move "x,y".
// - INFO key value: limits and rules (the brain may ignore them). ABOUT: one line of
//   key="value" pairs (name, version, author, country...).
// - The brain may also write MESSAGE text, DEBUG text, SUGGEST x,y, UNKNOWN text, ERROR text.
// Coordinates are 0-based; x is the column, y the row (y = 0 is the top row).

/// A line the manager sends (`text` ends each line with CR LF).
public enum PbrainCommand: Sendable, Equatable {
    case start(Int)
    case rectStart(width: Int, height: Int)
    case restart
    case begin
    case turn(x: Int, y: Int)
    /// BOARD, one line per stone in the order played, DONE.
    case board([PbrainStone])
    case info(key: String, value: String)
    case about
    case end

    /// START n for a square board, RECTSTART cols,rows otherwise (width is the column count).
    public static func start(_ size: BoardSize) -> PbrainCommand {
        size.rows == size.cols ? .start(size.rows) : .rectStart(width: size.cols, height: size.rows)
    }

    /// The first line without its end, for the log ("\r\n" is one Character: dropLast() takes it).
    public var line: String {
        let first = text.prefix { $0 != "\r\n" }
        return String(first)
    }

    /// The bytes to write: each line ended with CR LF.
    public var text: String {
        switch self {
        case let .start(n): return "START \(n)\r\n"
        case let .rectStart(w, h): return "RECTSTART \(w),\(h)\r\n"
        case .restart: return "RESTART\r\n"
        case .begin: return "BEGIN\r\n"
        case let .turn(x, y): return "TURN \(x),\(y)\r\n"
        case let .board(stones): return "BOARD\r\n" + stones.map { "\($0.x),\($0.y),\($0.who)\r\n" }.joined() + "DONE\r\n"
        case let .info(key, value): return "INFO \(key) \(value)\r\n"
        case .about: return "ABOUT\r\n"
        case .end: return "END\r\n"
        }
    }
}

/// A stone in a BOARD command: 1 is the brain's own, 2 the opponent's.
public struct PbrainStone: Sendable, Equatable {
    public let x: Int, y: Int, who: Int
    public init(x: Int, y: Int, who: Int) {
        self.x = x
        self.y = y
        self.who = who
    }
}

/// A line the brain wrote, as the manager reads it.
public enum PbrainReply: Sendable, Equatable {
    case ok
    case error(String)
    case unknown(String)
    case move(x: Int, y: Int)
    case message(String)
    case debug(String)
    case suggest(String)
    /// Anything else: ABOUT's answer, or garbage where a command's answer was due.
    case other(String)

    /// Reads one line (its end of line already taken off). Keywords in any case (the protocol
    /// asks the manager to accept both); a move is two decimal numbers of at most 3 digits
    /// around a comma, spaces allowed around each.
    public static func parse(_ line: String) -> PbrainReply {
        let trimmed = line.trimmingSpaces
        if let move = coordinates(trimmed) { return .move(x: move.x, y: move.y) }
        let word = trimmed.prefix { $0 != " " }
        let rest = String(trimmed.dropFirst(word.count)).trimmingSpaces
        switch word.uppercased() {
        case "OK": return .ok
        case "ERROR": return .error(rest)
        case "UNKNOWN": return .unknown(rest)
        case "MESSAGE": return .message(rest)
        case "DEBUG": return .debug(rest)
        case "SUGGEST": return .suggest(rest)
        default: return .other(trimmed)
        }
    }

    /// "x,y" with small non-negative numbers, else nil. Lengths are checked before converting.
    static func coordinates(_ text: String) -> (x: Int, y: Int)? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        var values: [Int] = []
        for part in parts {
            let digits = String(part).trimmingSpaces
            guard (1...3).contains(digits.utf8.count), digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let value = Int(digits) else { return nil }
            values.append(value)
        }
        return (values[0], values[1])
    }
}

/// Cells and Gomocup coordinates, both ways: x is the column, y the row, both 0-based; our
/// cells are row-major from the upper left, so cell = y * cols + x.
public enum PbrainGrid {
    /// The coordinates of a 0-based cell on `size`.
    public static func coordinates(of cell: Int, on size: BoardSize) -> (x: Int, y: Int) {
        (cell % size.cols, cell / size.cols)
    }

    /// The 0-based cell at x,y on `size`, nil when off the board.
    public static func cell(x: Int, y: Int, on size: BoardSize) -> Int? {
        guard (0..<size.cols).contains(x), (0..<size.rows).contains(y) else { return nil }
        return y * size.cols + x
    }
}

/// ABOUT's answer: `name="pbrain-x", version="1.0", author="..."`.
public enum PbrainAbout {
    /// The key="value" pairs of the line (keys in lower case); a malformed rest is ignored.
    public static func fields(_ line: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(line)
        while let eq = rest.firstIndex(of: "=") {
            let key = rest[..<eq].trimming(" ,").lowercased()
            var after = rest[rest.index(after: eq)...].drop { $0 == " " }
            guard after.first == "\"" else { break }
            after = after.dropFirst()
            guard let close = after.firstIndex(of: "\"") else { break }
            if !key.isEmpty { result[key] = String(after[..<close]) }
            rest = after[after.index(after: close)...]
        }
        return result
    }

    /// What the lobby's log and the bot's first line show: "name version", else the line itself,
    /// printable characters only, at most 80.
    public static func description(_ line: String) -> String {
        let f = fields(line)
        let text = f["name"].map { name in [name, f["version"]].compactMap { $0 }.joined(separator: " ") } ?? line
        return String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }).prefix(80))
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String { trimming(" \t") }

    func trimming(_ set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        let s = unicodeScalars
        guard let first = s.firstIndex(where: { !scalars.contains($0) }) else { return "" }
        let last = s.lastIndex { !scalars.contains($0) } ?? first
        return String(String.UnicodeScalarView(s[first...last]))
    }
}
