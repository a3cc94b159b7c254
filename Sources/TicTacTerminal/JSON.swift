/// A JSON value with ordered object keys, for the plain mode's one-object-per-line output
/// (`"event"` first, as documented).
public indirect enum JSON: Sendable, Equatable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    case array([JSON])
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool { a.serialized == b.serialized }

    /// Compact serialization on one line.
    public var serialized: String {
        var out = ""
        out.reserveCapacity(128) // a line of the bot or plain mode, without regrowing
        write(into: &out)
        return out
    }

    /// Appends the serialization to `out`: one growing string, not a string per value joined
    /// (the bot writes a line per game, README "Benchmarks": instructions per round trip).
    func write(into out: inout String) {
        switch self {
        case let .string(s): Self.quote(s, into: &out)
        case let .int(i): out += String(i)
        case let .bool(b): out += b ? "true" : "false"
        case .null: out += "null"
        case let .array(items):
            out += "["
            for (n, item) in items.enumerated() {
                if n > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case let .object(pairs):
            out += "{"
            for (n, (key, value)) in pairs.enumerated() {
                if n > 0 { out += "," }
                Self.quote(key, into: &out)
                out += ":"
                value.write(into: &out)
            }
            out += "}"
        }
    }

    /// Escapes per RFC 8259: quote, backslash and every control character.
    static func quote(_ s: String) -> String {
        var out = ""
        quote(s, into: &out)
        return out
    }

    /// `quote`, appended to `out`. Most strings (names, ids, results) need no escape: their
    /// bytes are copied at once; the scalar-by-scalar path runs only when a byte might need one.
    static func quote(_ s: String, into out: inout String) {
        out += "\""
        // Bytes that may need an escape: controls, '"', '\\', DEL, and 0xE2 (the lead byte of
        // U+2028 and U+2029 in UTF-8; the slow path decides).
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xE2 }) {
            out += s
        } else {
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
