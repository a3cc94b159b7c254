/// TLV payload fields (Protocol.md §3): tag (1 byte), length (2 bytes), value.
/// Senders write fields in ascending tag order. Receivers skip tags they do not know (so a
/// later version can add fields), refuse a repeated tag, and check each known field's length.
struct FieldWriter {
    private(set) var bytes: [UInt8]
    /// Where the frame's header begins (bytes before it belong to earlier frames); nil when
    /// writing a bare payload.
    private let start: Int?

    /// A bare payload (`Message.payload`).
    init() {
        bytes = []
        bytes.reserveCapacity(64)
        start = nil
    }

    /// A frame appended to `buffer`, which is taken over (left empty) until `finish(into:)`
    /// gives it back. The header (Protocol.md §2) goes in at once, in one append: all of it is
    /// known but the payload's length, which `finish` fills in.
    init(frameAppendingTo buffer: inout [UInt8], version: UInt8, type: UInt8, flags: UInt16 = 0) {
        bytes = []
        swap(&bytes, &buffer)
        start = bytes.count
        // Only when empty: reserving in a buffer that holds frames would defeat geometric growth.
        if bytes.isEmpty { bytes.reserveCapacity(Frame.headerLength + 52) }
        // magic, version, type, flags; then the length, 0 for now.
        let head = UInt64(Frame.magicWord) << 32 | UInt64(version) << 24 | UInt64(type) << 16 | UInt64(flags)
        append((head.bigEndian, UInt32(0)))
    }

    /// Fills in the frame's length and gives the buffer back.
    mutating func finish(into buffer: inout [UInt8]) {
        if let start {
            let length = UInt32(bytes.count - start - Frame.headerLength)
            bytes.withUnsafeMutableBytes { $0.storeBytes(of: length.bigEndian, toByteOffset: start + 8, as: UInt32.self) }
        }
        swap(&bytes, &buffer)
    }

    /// Appends a value's bytes as they lie in memory (callers pass big-endian integers).
    private mutating func append<T>(_ value: T) {
        // As typed bytes: appending a raw buffer took the slower way (docs/performance.md).
        withUnsafeBytes(of: value) { raw in raw.withMemoryRebound(to: UInt8.self) { bytes.append(contentsOf: $0) } }
    }

    /// A field's tag and length.
    private mutating func head(_ tag: UInt8, _ length: Int) {
        append((tag, UInt16(length).bigEndian.bytes))
    }

    mutating func raw(_ tag: UInt8, _ value: some Collection<UInt8>) {
        head(tag, value.count)
        bytes.append(contentsOf: value)
    }

    mutating func int<T: FixedWidthInteger>(_ tag: UInt8, _ value: T) {
        // Byte by byte, most significant first: one byte's append is inlined, where a buffer's
        // is a call costing more than these few bytes (docs/performance.md).
        let size = MemoryLayout<T>.size
        bytes.append(tag)
        bytes.append(0) // a field's length is below 256 here
        bytes.append(UInt8(size))
        var shift = (size - 1) * 8
        while shift >= 0 {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            shift -= 8
        }
    }

    /// An id's 16 bytes as `ID128.bytes` lays them out, written straight in (no array per id).
    mutating func id(_ tag: UInt8, _ value: ID128) {
        head(tag, 16)
        append((value.high.bigEndian, value.low.bigEndian))
    }

    mutating func string(_ tag: UInt8, _ value: String) { raw(tag, Array(value.utf8)) }
}

private extension UInt16 {
    /// The two bytes as they lie in memory, as a tuple with no padding (a (UInt8, UInt16)
    /// tuple would have a byte of it).
    var bytes: (UInt8, UInt8) { withUnsafeBytes(of: self) { ($0[0], $0[1]) } }
}

/// The fields of one received payload, by tag, with typed accessors that throw on a missing
/// field, a wrong length or an out-of-range value.
struct Fields {
    let type: UInt8
    /// The payload, checked whole by `init`; a field is found by walking its TLVs again (a
    /// payload holds a handful of fields: cheaper than building a table of them per frame).
    private let payload: ArraySlice<UInt8>
    /// The tags present, one bit each (tags are bytes).
    private var seen: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init(type: UInt8, payload: ArraySlice<UInt8>) throws(WireError) {
        self.type = type
        self.payload = payload
        // Walked through the bytes in place (a reader per walk retained and released the buffer).
        enum Walk { case ok, truncated, duplicate(UInt8) }
        var seen: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        let walk = payload.withUnsafeBytes { b -> Walk in
            var i = 0
            while i < b.count {
                guard b.count - i >= 3 else { return .truncated }
                let tag = b[i], length = Int(b[i + 1]) << 8 | Int(b[i + 2])
                guard b.count - i - 3 >= length else { return .truncated }
                i += 3 + length
                let bit = UInt64(1) << (tag & 63)
                let before: UInt64
                switch tag >> 6 {
                case 0: before = seen.0; seen.0 |= bit
                case 1: before = seen.1; seen.1 |= bit
                case 2: before = seen.2; seen.2 |= bit
                default: before = seen.3; seen.3 |= bit
                }
                if before & bit != 0 { return .duplicate(tag) }
            }
            return .ok
        }
        switch walk {
        case .ok: self.seen = seen
        case .truncated: throw .truncated
        case let .duplicate(tag): throw .duplicateField(type: type, tag: tag)
        }
    }

    func has(_ tag: UInt8) -> Bool {
        let word = switch tag >> 6 {
        case 0: seen.0
        case 1: seen.1
        case 2: seen.2
        default: seen.3
        }
        return word & (UInt64(1) << (tag & 63)) != 0
    }

    func raw(_ tag: UInt8, length: Int? = nil) throws(WireError) -> ArraySlice<UInt8> {
        let value = try range(of: tag, length: length)
        return payload[(payload.startIndex + value.lowerBound)..<(payload.startIndex + value.upperBound)]
    }

    func int<T: FixedWidthInteger>(_ tag: UInt8, _: T.Type = T.self) throws(WireError) -> T {
        let value = try range(of: tag, length: MemoryLayout<T>.size)
        return payload.withUnsafeBytes { b in
            var v: T = 0
            for i in value { v = v << 8 | T(b[i]) }
            return v
        }
    }

    /// Where the value of `tag` lies, from the payload's start, checked present and, when given,
    /// `length` bytes long. `init` read every field without a fault, so the walk finds it.
    private func range(of tag: UInt8, length: Int?) throws(WireError) -> Range<Int> {
        guard has(tag) else { throw .missingField(type: type, tag: tag) }
        let value = payload.withUnsafeBytes { b in
            var i = 0
            while b.count - i >= 3 {
                let n = Int(b[i + 1]) << 8 | Int(b[i + 2])
                if b[i] == tag { return (i + 3)..<(i + 3 + n) }
                i += 3 + n
            }
            return 0..<0
        }
        if let length, value.count != length { throw .badFieldLength(type: type, tag: tag, length: value.count) }
        return value
    }

    func id(_ tag: UInt8) throws(WireError) -> ID128 {
        ID128(bytes: try raw(tag, length: 16))
    }

    func name(_ tag: UInt8) throws(WireError) -> DisplayName {
        let bytes = try raw(tag)
        do {
            return try DisplayName(utf8: bytes)
        } catch {
            throw .invalidValue(type: type, tag: tag, reason: error.description)
        }
    }

    /// Text that is shown to a person (an ERROR's message): valid UTF-8, bounded, cleaned by
    /// `DisplayText.clean` so a peer cannot drive our terminal.
    func text(_ tag: UInt8, maxBytes: Int) throws(WireError) -> String {
        let bytes = try raw(tag)
        guard bytes.count <= maxBytes else { throw .badFieldLength(type: type, tag: tag, length: bytes.count) }
        guard let s = String(validating: bytes, as: UTF8.self) else {
            throw .invalidValue(type: type, tag: tag, reason: "not valid UTF-8")
        }
        return DisplayText.clean(s, maxBytes: maxBytes)
    }

    func check(_ ok: Bool, _ tag: UInt8, _ reason: @autoclosure () -> String) throws(WireError) {
        if !ok { throw .invalidValue(type: type, tag: tag, reason: reason()) }
    }
}

/// Free text for people (ERROR messages), made safe and bounded the same way on both sides, so
/// what we decode re-encodes to the same bytes.
enum DisplayText {
    /// Replaces every control character (C0, DEL, C1, U+2028, U+2029) with "?" (never longer
    /// than what it replaces) and cuts the text at a character boundary to `maxBytes` of UTF-8.
    static func clean(_ text: String, maxBytes: Int) -> String {
        var out = String.UnicodeScalarView()
        var used = 0
        for scalar in text.unicodeScalars {
            let s: Unicode.Scalar = DisplayName.isControl(scalar) ? "?" : scalar
            let size = UTF8.width(s)
            guard used + size <= maxBytes else { break }
            used += size
            out.append(s)
        }
        return String(out)
    }
}
