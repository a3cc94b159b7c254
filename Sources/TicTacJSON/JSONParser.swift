/// Reads one JSON value (RFC 8259) from a line a daemon sent: the full-screen front attached to
/// `tictac daemon` reads plain mode's events back (docs/control.md). Integers only (every number
/// tictac sends is one); depth is bounded; anything else is nil, never a trap.
extension JSON {
    /// The value `text` holds, or nil when it is not one JSON value.
    public static func parse(_ text: String) -> JSON? {
        var parser = Parser(bytes: Array(text.utf8))
        guard let value = parser.value(depth: 0) else { return nil }
        parser.skipSpace()
        return parser.at == parser.bytes.count ? value : nil
    }

    /// The member `key` of an object (the first, as objects here never repeat a key).
    public subscript(key: String) -> JSON? {
        guard case let .object(pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    public var string: String? { if case let .string(s) = self { s } else { nil } }
    public var int: Int? { if case let .int(i) = self { i } else { nil } }
    public var bool: Bool? { if case let .bool(b) = self { b } else { nil } }
    public var array: [JSON]? { if case let .array(a) = self { a } else { nil } }
}

private struct Parser {
    static let maxDepth = 16
    let bytes: [UInt8]
    var at = 0

    mutating func skipSpace() {
        while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
    }

    mutating func value(depth: Int) -> JSON? {
        guard depth < Self.maxDepth else { return nil }
        skipSpace()
        guard at < bytes.count else { return nil }
        switch bytes[at] {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string().map { .string($0) }
        case UInt8(ascii: "t"): return word("true", .bool(true))
        case UInt8(ascii: "f"): return word("false", .bool(false))
        case UInt8(ascii: "n"): return word("null", .null)
        default: return number()
        }
    }

    private mutating func word(_ text: String, _ value: JSON) -> JSON? {
        let w = Array(text.utf8)
        guard bytes.count - at >= w.count, Array(bytes[at..<at + w.count]) == w else { return nil }
        at += w.count
        return value
    }

    private mutating func number() -> JSON? {
        let start = at
        if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
        while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
        guard let n = Int(String(decoding: bytes[start..<at], as: UTF8.self)) else { return nil }
        return .int(n)
    }

    private mutating func object(depth: Int) -> JSON? {
        at += 1
        var pairs: [(String, JSON)] = []
        skipSpace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(pairs) }
        while true {
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { return nil }
            at += 1
            guard let value = value(depth: depth + 1) else { return nil }
            pairs.append((key, value))
            skipSpace()
            guard at < bytes.count else { return nil }
            at += 1
            if bytes[at - 1] == UInt8(ascii: "}") { return .object(pairs) }
            guard bytes[at - 1] == UInt8(ascii: ",") else { return nil }
        }
    }

    private mutating func array(depth: Int) -> JSON? {
        at += 1
        var items: [JSON] = []
        skipSpace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
        while true {
            guard let item = value(depth: depth + 1) else { return nil }
            items.append(item)
            skipSpace()
            guard at < bytes.count else { return nil }
            at += 1
            if bytes[at - 1] == UInt8(ascii: "]") { return .array(items) }
            guard bytes[at - 1] == UInt8(ascii: ",") else { return nil }
        }
    }

    /// A string from its opening quote; escapes decoded (a lone surrogate becomes U+FFFD).
    private mutating func string() -> String? {
        at += 1
        var out: [UInt8] = []
        while at < bytes.count {
            let b = bytes[at]
            at += 1
            switch b {
            case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard at < bytes.count else { return nil }
                let e = bytes[at]
                at += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: return nil
                }
            case 0..<0x20: return nil
            default: out.append(b)
            }
        }
        return nil
    }

    /// After `\u`: four hex digits, or a surrogate pair of two escapes.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800..<0xDC00).contains(high), bytes.count - at >= 6, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") {
            at += 2
            guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return Unicode.Scalar(0xFFFD) }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high) ?? Unicode.Scalar(0xFFFD)
    }

    private mutating func hex4() -> UInt32? {
        guard bytes.count - at >= 4, let v = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16) else { return nil }
        at += 4
        return v
    }
}
