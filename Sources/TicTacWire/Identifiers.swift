/// A random 128-bit identifier: a daemon's instance id (stable for its life) or a game id.
/// Shown as 32 lower-case hex digits.
public struct ID128: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A fresh id from `rng` (pass `SystemRandomNumberGenerator` outside tests).
    public static func random<R: RandomNumberGenerator>(using rng: inout R) -> ID128 {
        ID128(high: rng.next(), low: rng.next())
    }

    /// From exactly 16 big-endian bytes (callers check the count).
    init(bytes: ArraySlice<UInt8>) {
        var h: UInt64 = 0, l: UInt64 = 0
        for (i, b) in bytes.enumerated() {
            if i < 8 { h = h << 8 | UInt64(b) } else { l = l << 8 | UInt64(b) }
        }
        self.init(high: h, low: l)
    }

    /// From exactly 16 bytes, big-endian (nil for any other count).
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.init(bytes: bytes[...])
    }

    /// Parses 32 hex digits (as printed by `description`).
    public init?(hex: String) {
        guard hex.utf8.count == 32, hex.allSatisfy(\.isHexDigit), // UInt64(_:radix:) takes a sign
              let h = UInt64(hex.prefix(16), radix: 16),
              let l = UInt64(hex.suffix(16), radix: 16) else { return nil }
        self.init(high: h, low: l)
    }

    /// The 16 bytes on the wire: `high`, then `low`, each big-endian.
    public var bytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 16) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
            count = 16
        }
    }

    public var description: String {
        // Digit by digit into one buffer: this runs for every line the field prints.
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 32) { out in
            digits.withUTF8Buffer { hex in
                for i in 0..<16 {
                    out[i] = hex[Int((high >> (60 - 4 * UInt64(i))) & 0xF)]
                    out[16 + i] = hex[Int((low >> (60 - 4 * UInt64(i))) & 0xF)]
                }
            }
            return 32
        }
    }

    public static func < (a: ID128, b: ID128) -> Bool { (a.high, a.low) < (b.high, b.low) }
}

/// Why a display name was refused.
public enum NameError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty, tooLong(Int), invalidUTF8, controlCharacter, surroundingSpace, bidiControl, invisible

    public var description: String {
        switch self {
        case .empty: "name is empty"
        case let .tooLong(n): "name is \(n) bytes long (at most \(DisplayName.maxBytes))"
        case .invalidUTF8: "name is not valid UTF-8"
        case .controlCharacter: "name contains a control character"
        case .surroundingSpace: "name starts or ends with white space"
        case .bidiControl: "name contains a bidirectional formatting character"
        case .invisible: "name has no visible character"
        }
    }
}

/// A player's display name (Protocol.md §1): 1...64 bytes of UTF-8, no control characters (C0,
/// DEL, C1, so a peer cannot send terminal escape sequences), no bidirectional formatting
/// characters (they reorder what is shown around them), at least one visible character, no
/// leading or trailing white space.
/// Names are labels, not keys: two players may share one; the instance id tells them apart.
public struct DisplayName: Sendable, Hashable, CustomStringConvertible {
    public static let maxBytes = 64
    public let value: String

    public init(_ value: String) throws(NameError) {
        try self.init(utf8: Array(value.utf8)[...])
    }

    public init(utf8 bytes: ArraySlice<UInt8>) throws(NameError) {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= Self.maxBytes else { throw .tooLong(bytes.count) }
        // Printable ASCII without edge spaces breaks no rule below: skip the Unicode look-ups.
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) }), bytes.first != 0x20, bytes.last != 0x20 {
            value = String(decoding: bytes, as: UTF8.self)
            return
        }
        guard let s = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        guard !s.unicodeScalars.contains(where: Self.isControl) else { throw .controlCharacter }
        guard let first = s.unicodeScalars.first, let last = s.unicodeScalars.last,
              !first.properties.isWhitespace, !last.properties.isWhitespace else { throw .surroundingSpace }
        guard !s.unicodeScalars.contains(where: Self.isBidiControl) else { throw .bidiControl }
        guard s.unicodeScalars.contains(where: Self.isVisible) else { throw .invisible }
        value = s
    }

    public var description: String { value }

    /// `text` made a display name where it can be: control and bidirectional characters
    /// dropped, cut to `maxBytes` at a character boundary, surrounding white space trimmed;
    /// nil when nothing visible is left. For text from a program (an engine's ABOUT).
    public init?(fitting text: String) {
        var kept = String.UnicodeScalarView(), used = 0
        for s in text.unicodeScalars where !Self.isControl(s) && !Self.isBidiControl(s) {
            guard used + UTF8.width(s) <= Self.maxBytes else { break }
            used += UTF8.width(s)
            kept.append(s)
        }
        while let last = kept.last, last.properties.isWhitespace { kept.removeLast() }
        guard let name = try? DisplayName(String(kept.drop { $0.properties.isWhitespace })) else { return nil }
        self = name
    }

    /// The bidirectional formatting characters (Protocol.md §1): embeddings and overrides
    /// U+202A..U+202E, isolates U+2066..U+2069, the marks U+200E, U+200F and U+061C.
    static func isBidiControl(_ s: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(s.value) || (0x2066...0x2069).contains(s.value)
            || s.value == 0x200E || s.value == 0x200F || s.value == 0x061C
    }

    /// Shows something by itself (Protocol.md §1): not white space, not a mark (Mn, Mc, Me), not a
    /// format character (Cf), not a default-ignorable code point (U+200B, U+2060, U+FEFF, U+3164...).
    static func isVisible(_ s: Unicode.Scalar) -> Bool {
        let p = s.properties
        switch p.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .format, .control: return false
        default: return !p.isWhitespace && !p.isDefaultIgnorableCodePoint
        }
    }

    static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.value == 0x2028 || s.value == 0x2029
    }
}
