/// One line of plain-mode input (README "Plain mode").
public enum Command: Sendable, Equatable {
    /// 1-based cell, row-major from the upper left.
    case move(Int)
    case new
    case resign
    case quit
    case help

    /// Why a line is not a command.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Longest line accepted; longer input is refused, never buffered without bound.
    public static let maxLineBytes = 256

    /// Parses `move N` (or a bare `N`), `new`, `resign`, `quit`, `help`. Case-insensitive; extra
    /// blanks are ignored.
    public static func parse(_ line: String) throws(ParseError) -> Command {
        guard line.utf8.count <= maxLineBytes else { throw ParseError(description: "line too long") }
        let words = line.lowercased().split(whereSeparator: \.isWhitespace)
        guard let verb = words.first else { throw ParseError(description: "empty command") }
        func noArgs(_ c: Command) throws(ParseError) -> Command {
            guard words.count == 1 else { throw ParseError(description: "'\(verb)' takes no argument") }
            return c
        }
        switch verb {
        case "move", "m":
            guard words.count == 2, let n = Int(words[1]) else { throw ParseError(description: "usage: move N (N = cell number)") }
            return .move(n)
        case "new", "n": return try noArgs(.new)
        case "resign", "r": return try noArgs(.resign)
        case "quit", "q", "exit": return try noArgs(.quit)
        case "help", "h", "?": return try noArgs(.help)
        default:
            if words.count == 1, let n = Int(verb) { return .move(n) }
            throw ParseError(description: "unknown command '\(verb.prefix(32))' (try: move N, new, resign, quit)")
        }
    }

    public static let helpText = "commands: move N (or just N; cells 1..rows*cols, row-major from the upper left), new, resign, quit"
}
