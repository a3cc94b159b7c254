// Drawing the model: screen lines are built from styled spans, then cut to the terminal's
// width by counting visible columns, so escape codes never count and never get cut in half.

/// How a span looks. Colours only when the model's `color` is on; without it, titles and
/// statuses are bold and the winning line and selected peer are in reverse video.
enum TextStyle: Equatable {
    case plain, title, bold, dim, help, o, x, win, lose, cursor, selected, good, bad, warn
    /// The opponent's last move: its piece, underlined.
    case lastO, lastX
}

/// A piece of text with one look.
struct Span: Equatable {
    var text: String
    var style: TextStyle
}

/// One screen line under construction.
struct ScreenLine: Equatable {
    var spans: [Span] = []
    /// Pad the line to the full width in this style (the title bar).
    var fill: TextStyle?

    init(_ text: String = "", _ style: TextStyle = .plain) {
        if !text.isEmpty { spans = [Span(text: text, style: style)] }
    }

    mutating func add(_ text: String, _ style: TextStyle = .plain) {
        guard !text.isEmpty else { return }
        spans.append(Span(text: text, style: style))
    }

    mutating func add(_ spans: [Span]) { self.spans += spans }
}

/// Text cut and padded by visible columns, and screen lines turned into escape codes.
extension FullScreenModel {

    /// Splits text at blanks into at most `maxLines` lines of `width` columns; the last one
    /// is clipped.
    func wrap(_ text: String, width: Int, maxLines: Int) -> [String] {
        guard width > 0, maxLines > 0 else { return [] }
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let candidate = current.isEmpty ? String(word) : current + " " + word
            if textWidth(candidate) <= width || current.isEmpty {
                current = candidate
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty { lines.append(current) }
        guard lines.count > maxLines else { return lines.map { clip($0, width) } }
        var kept = Array(lines.prefix(maxLines))
        let rest = lines[(maxLines - 1)...].joined(separator: " ")
        kept[maxLines - 1] = clip(rest, width)
        return kept.map { clip($0, width) }
    }

    /// `s` cut to `width` columns, ending in an ellipsis when cut.
    func clip(_ s: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        guard textWidth(s) > width else { return s }
        let mark = unicode ? "…" : "~"
        var out = "", used = 0
        for ch in s {
            let w = Self.columns(ch)
            if used + w > width - 1 { break }
            out.append(ch)
            used += w
        }
        return out + mark
    }

    func pad(_ s: String, _ width: Int) -> String {
        s + String(repeating: " ", count: max(0, width - textWidth(s)))
    }

    func textWidth(_ s: String) -> Int { s.reduce(0) { $0 + Self.columns($1) } }

    /// Terminal columns a character takes: 2 for East Asian wide characters and most emoji,
    /// 1 otherwise (a cheap approximation of wcwidth; control characters never reach here).
    static func columns(_ c: Character) -> Int {
        guard let v = c.unicodeScalars.first?.value else { return 0 }
        if v < 0x1100 { return 1 }
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD,
        ]
        return wide.contains { $0.contains(v) } ? 2 : 1
    }

    /// The line as terminal text, cut to `width` columns. Control characters become "?", so
    /// no text from the network can move the cursor or change the terminal.
    func render(_ line: ScreenLine, width: Int) -> String {
        var out = "", used = 0
        spans: for span in line.spans {
            var text = ""
            var full = false
            for ch in span.text {
                let safe: Character = ch.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } ? "?" : ch
                let w = Self.columns(safe)
                if used + w > width { full = true; break }
                text.append(safe)
                used += w
            }
            out += styled(text, span.style)
            if full { break spans }
        }
        if let fill = line.fill, used < width {
            out += styled(String(repeating: " ", count: width - used), fill)
        }
        return out
    }

    private func styled(_ text: String, _ style: TextStyle) -> String {
        guard !text.isEmpty, let code = sgr(style) else { return text }
        return "\u{1B}[\(code)m" + text + "\u{1B}[0m"
    }

    /// The SGR parameters of a style, nil for none.
    private func sgr(_ style: TextStyle) -> String? {
        if color {
            switch style {
            case .plain: return nil
            case .title: return "1;37;44"
            case .bold: return "1"
            case .dim, .help: return "2"
            case .o: return "1;36"
            case .x: return "1;33"
            case .lastO: return "1;4;36"
            case .lastX: return "1;4;33"
            case .win: return "1;30;42"
            case .lose: return "1;37;41"
            case .cursor: return "1;35"
            case .selected: return "7"
            case .good: return "1;32"
            case .bad: return "1;31"
            case .warn: return "1;33"
            }
        }
        switch style {
        case .title, .bold, .good, .bad, .warn, .cursor: return "1"
        case .win, .lose, .selected: return "7"
        case .lastO, .lastX: return "4"
        case .plain, .dim, .help, .o, .x: return nil
        }
    }
}
