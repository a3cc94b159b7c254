import TicTacFieldCore
import TicTacWire

/// One line of the field's plain-mode input (docs/field.md).
public enum FieldCommand: Sendable, Equatable {
    /// Move our sphere by a step in field units (clamped to the field).
    case move(dx: Int32, dy: Int32)
    /// Move our sphere to a point of the field, 0..999 each.
    case goto(x: Int32, y: Int32)
    case color(RGB)
    case quit
    /// Ctrl-C on the full screen (raw mode reads it as a key): quits with the status of an interrupt.
    case interrupt
    case help
    /// Print the field's datagram counters (received, sent, dropped by reason).
    case stats
    /// Leave the field for tic-tac-toe's lobby (when the field was opened from `tictac play`).
    case lobby

    /// Parses `move DX DY`, `goto X Y`, `color R G B`, `stats`, `quit`, `help`. Verbs are
    /// case-insensitive; extra blanks are ignored. Numbers are checked before any arithmetic.
    public static func parse(_ line: String) throws(Command.ParseError) -> FieldCommand {
        guard line.utf8.count <= Command.maxLineBytes else { throw Command.ParseError(description: "line too long") }
        let words = line.lowercased().split(whereSeparator: \.isWhitespace)
        guard let verb = words.first else { throw Command.ParseError(description: "empty command") }
        func numbers(_ count: Int, in range: ClosedRange<Int>, usage: String) throws(Command.ParseError) -> [Int] {
            let args = words.dropFirst()
            guard args.count == count else { throw Command.ParseError(description: "usage: \(usage)") }
            var out: [Int] = []
            for a in args {
                guard a.count <= 12, let n = Int(a), range.contains(n) else {
                    throw Command.ParseError(description: "'\(a.prefix(12))' is not a number in \(range.lowerBound)...\(range.upperBound) (usage: \(usage))")
                }
                out.append(n)
            }
            return out
        }
        let field = Int(Sphere.coordinates.lowerBound)...Int(Sphere.coordinates.upperBound)
        switch verb {
        case "move", "m":
            let d = try numbers(2, in: -1000...1000, usage: "move DX DY (field units, -1000..1000)")
            return .move(dx: Int32(d[0]), dy: Int32(d[1]))
        case "goto", "g":
            let p = try numbers(2, in: field, usage: "goto X Y (0..999 each)")
            return .goto(x: Int32(p[0]), y: Int32(p[1]))
        case "color", "colour", "c":
            let c = try numbers(3, in: 0...255, usage: "color R G B (0..255 each)")
            return .color(RGB(UInt8(c[0]), UInt8(c[1]), UInt8(c[2])))
        case "quit", "q", "exit":
            guard words.count == 1 else { throw Command.ParseError(description: "'quit' takes no argument") }
            return .quit
        case "help", "h", "?":
            return .help
        case "stats", "lobby":
            guard words.count == 1 else { throw Command.ParseError(description: "'\(verb)' takes no argument") }
            return verb == "stats" ? .stats : .lobby
        default:
            throw Command.ParseError(description: "unknown command '\(verb.prefix(32))' (try: move DX DY, goto X Y, color R G B, stats, quit)")
        }
    }

    public static let helpText = "commands: move DX DY (field units), goto X Y (0..999), color R G B (0..255), stats (datagrams received, sent, dropped), quit; the field is 1000 x 1000, x to the right, y down"

    /// Parses `R,G,B` (the `--color` option).
    public static func parseColor(_ text: String) -> RGB? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let values = parts.compactMap { UInt8($0.trimmingPrefix(" ")) }
        guard values.count == 3 else { return nil }
        return RGB(values[0], values[1], values[2])
    }
}
