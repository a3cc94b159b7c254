import TicTacFieldCore
import TicTacWire

/// How many colours the terminal shows (docs/field.md).
public enum ColorDepth: Sendable, Equatable {
    /// NO_COLOR: no colour at all; each sphere shows its name's initial.
    case none
    case ansi16
    case palette256
    case trueColor

    /// From the environment's values: NO_COLOR set -> none; COLORTERM truecolor/24bit -> 24-bit;
    /// TERM *256color* -> 256; else 16.
    public static func detect(noColor: Bool, colorterm: String?, term: String?) -> ColorDepth {
        if noColor { return .none }
        if let c = colorterm?.lowercased(), c.contains("truecolor") || c.contains("24bit") { return .trueColor }
        if let t = term, t.contains("256color") { return .palette256 }
        return .ansi16
    }

    /// The SGR parameters for a foreground colour, nil with no colour.
    func foreground(_ c: RGB) -> String? {
        switch self {
        case .none:
            return nil
        case .trueColor:
            return "1;38;2;\(c.red);\(c.green);\(c.blue)"
        case .palette256:
            func six(_ v: UInt8) -> Int { (Int(v) * 5 + 127) / 255 }
            return "1;38;5;\(16 + 36 * six(c.red) + 6 * six(c.green) + six(c.blue))"
        case .ansi16:
            let code = (c.red > 127 ? 1 : 0) + (c.green > 127 ? 2 : 0) + (c.blue > 127 ? 4 : 0)
            return code == 0 ? "1;90" : "1;\(30 + code)" // black would vanish: bright black
        }
    }
}

/// The field's full-screen view as plain values: our sphere, the others, and the lines to draw.
/// Pure, so tests drive it directly; `FullScreenFieldFront` writes what changed.
package struct FieldScreen {
    var depth: ColorDepth
    var unicode: Bool
    package var local: FieldSphere?
    var port: UInt16 = 0
    /// Other spheres by key.
    package var others: [SphereKey: FieldSphere] = [:]
    /// The latest notice or error, shown in the status line.
    var status = ""
    /// What `q` does, for the help line: "quit", or "lobby" when opened from tictac play.
    package var quitLabel = "quit"

    package init(depth: ColorDepth, unicode: Bool) {
        self.depth = depth
        self.unicode = unicode
    }

    package mutating func apply(_ update: FieldUpdate) {
        switch update {
        case let .ready(s, port):
            local = s
            self.port = port
            status = "" // opened again from tictac play's lobby: the last visit's status is old
        case let .local(s): local = s
        case let .event(.joined(s)):
            others[s.key] = s
            status = "\(s.name) joined"
        case let .event(.changed(s)): others[s.key] = s
        case let .event(.left(key, name, reason)):
            others[key] = nil
            status = "\(name) \(reason == .left ? "left" : "timed out")"
        case let .error(_, message): status = message
        case let .notice(text), let .help(text): status = text
        case let .stats(c):
            status = "datagrams: received \(c.received), sent \(c.sent), dropped \(c.dropped)"
                + (c.dropped == 0 ? "" : " (\(FieldScreen.dropReasons(c)))")
        }
    }

    /// The non-zero drop counts by their Protocol.md §11 names.
    static func dropReasons(_ c: FieldCounters) -> String {
        [("rate-limited", c.rateLimited), ("malformed", c.malformed), ("unexpected", c.unexpected),
         ("spoofed-own", c.spoofedOwn), ("unknown-sender", c.unknownSender), ("wrong-source", c.wrongSource),
         ("stale", c.stale)].filter { $0.1 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }

    /// The field area (inside the frame) for a terminal of this size: the title takes one row,
    /// the frame two, the legend its rows (at least one), the help one.
    func fieldSize(width: Int, height: Int) -> (cols: Int, rows: Int) {
        (max(1, width - 2), max(1, height - 4 - legendRows(height: height)))
    }

    /// A step that moves our sphere one cell on this screen (at least one field unit), and a big
    /// step of five cells.
    package func steps(width: Int, height: Int) -> (dx: Int32, dy: Int32) {
        let (cols, rows) = fieldSize(width: width, height: height)
        return (Int32((1000 + cols - 1) / cols), Int32((1000 + rows - 1) / rows))
    }

    private func legendRows(height: Int) -> Int {
        min(max(1, (others.count + 1 + 2) / 3), max(1, height / 4))
    }

    /// Spheres in drawing order: the others by key, ours last (on top).
    var drawOrder: [FieldSphere] {
        others.values.sorted { $0.key < $1.key } + (local.map { [$0] } ?? [])
    }

    /// The sphere's mark: a coloured disc, or its name's initial without colour (NO_COLOR).
    func glyph(_ s: FieldSphere) -> String {
        if depth == .none { return s.name.first.map { String($0).uppercased() }.flatMap { $0.count == 1 && $0.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 }) ? $0 : nil } ?? "?" }
        return unicode ? "\u{25CF}" : "O"
    }

    private func styled(_ text: String, _ color: RGB) -> String {
        guard let sgr = depth.foreground(color) else { return text }
        return "\u{1B}[\(sgr)m\(text)\u{1B}[0m"
    }

    private func dim(_ text: String) -> String { depth == .none ? text : "\u{1B}[2m\(text)\u{1B}[0m" }

    /// The whole screen, one string per row (SGR sequences included, no cursor moves).
    package func lines(width: Int, height: Int) -> [String] {
        guard width >= 8, height >= 6 else { return ["(too small)"] + Array(repeating: "", count: max(0, height - 1)) }
        let (cols, rows) = fieldSize(width: width, height: height)
        var grid = Array(repeating: Array(repeating: " ", count: cols), count: rows)
        for s in drawOrder {
            let c = min(cols - 1, Int(s.x) * cols / 1000), r = min(rows - 1, Int(s.y) * rows / 1000)
            grid[r][c] = styled(glyph(s), s.color)
        }
        let h = unicode ? "\u{2500}" : "-", v = unicode ? "\u{2502}" : "|"
        let (tl, tr, bl, br) = unicode ? ("\u{250C}", "\u{2510}", "\u{2514}", "\u{2518}") : ("+", "+", "+", "+")
        var out: [String] = []
        let me = local.map { "\($0.name) at \($0.x),\($0.y)" } ?? ""
        out.append(clip("SphereNet field  \(me)  \(others.count) other\(others.count == 1 ? "" : "s")  \(status)", width))
        out.append(dim(tl + String(repeating: h, count: cols) + tr))
        for row in grid { out.append(dim(v) + row.joined() + dim(v)) }
        out.append(dim(bl + String(repeating: h, count: cols) + br))
        // The legend: three entries a row, ours first.
        let entries = (local.map { [($0, true)] } ?? []) + others.values.sorted { $0.key < $1.key }.map { ($0, false) }
        let per = 3, cell = max(8, width / per)
        let legend = legendRows(height: height)
        for i in 0..<legend {
            var line = ""
            for (s, mine) in entries.dropFirst(i * per).prefix(per) {
                let label = clip("\(s.name)\(mine ? " (you)" : "")", cell - 3)
                line += styled(glyph(s), s.color) + " " + label + String(repeating: " ", count: max(1, cell - 2 - label.count))
            }
            if i == legend - 1, entries.count > legend * per { line += "+\(entries.count - legend * per) more" }
            out.append(line)
        }
        out.append(dim(clip(helpText(width: width), width)))
        return Array(out.prefix(height))
    }

    /// The key help, shortened to fit so `q` (how to leave) is always there: the longest form
    /// that fits, down to the bare keys.
    func helpText(width: Int) -> String {
        let forms = ["arrows/hjkl move, shift or HJKL: big steps, c: colour, s: stats, q: \(quitLabel)",
                     "hjkl move, HJKL big, c colour, s stats, q \(quitLabel)",
                     "hjkl/HJKL move  c colour  q \(quitLabel)",
                     "hjkl move  q \(quitLabel)"]
        return forms.first { $0.count <= width } ?? "q \(quitLabel)"
    }

    /// Cuts text to `width` characters (names come from the wire as checked display names).
    private func clip(_ s: String, _ width: Int) -> String {
        s.count <= width ? s : String(s.prefix(max(0, width - 1))) + "~"
    }
}
