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
    public var serialized: String { String(decoding: utf8, as: UTF8.self) }

    /// `serialized` as UTF-8 bytes, built in one byte buffer (cheaper than appending to a String).
    public var utf8: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128) // a line of the bot or plain mode, without regrowing
        write(into: &out)
        return out
    }

    /// Appends the serialization's bytes to `out`.
    public func write(into out: inout [UInt8]) {
        switch self {
        case let .string(s): Self.quote(s, into: &out)
        case let .int(i): out.append(contentsOf: String(i).utf8)
        case let .bool(b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case let .array(items):
            out.append(UInt8(ascii: "["))
            for (n, item) in items.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(pairs):
            out.append(UInt8(ascii: "{"))
            for (n, (key, value)) in pairs.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                Self.quote(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `quote`'s bytes, appended to `out`. Most strings (names, ids, results) need no escape:
    /// their bytes are copied at once; the others go through `quote`.
    public static func quote(_ s: String, into out: inout [UInt8]) {
        // Bytes that may need an escape: controls, '"', '\\', DEL, and 0xE2 (the lead byte of
        // U+2028 and U+2029 in UTF-8; `quote` decides).
        func needsEscape(_ b: UInt8) -> Bool { b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F || b == 0xE2 }
        // A native string's bytes are scanned in place: the UTF-8 view byte by byte is slower.
        let escape = s.utf8.withContiguousStorageIfAvailable { $0.contains(where: needsEscape) }
            ?? s.utf8.contains(where: needsEscape)
        if escape { return out.append(contentsOf: quote(s).utf8) }
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: s.utf8)
        out.append(UInt8(ascii: "\""))
    }

    /// Escapes per RFC 8259: quote, backslash and every control character.
    public static func quote(_ s: String) -> String {
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
