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
        switch self {
        case let .string(s): Self.quote(s)
        case let .int(i): String(i)
        case let .bool(b): b ? "true" : "false"
        case .null: "null"
        case let .array(items): "[" + items.map(\.serialized).joined(separator: ",") + "]"
        case let .object(pairs): "{" + pairs.map { Self.quote($0.0) + ":" + $0.1.serialized }.joined(separator: ",") + "}"
        }
    }

    /// Escapes per RFC 8259: quote, backslash and every control character.
    static func quote(_ s: String) -> String {
        var out = "\""
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
        return out + "\""
    }
}
