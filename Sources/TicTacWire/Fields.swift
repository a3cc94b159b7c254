/// TLV payload fields (Protocol.md §3): tag (1 byte), length (2 bytes), value.
/// Senders write fields in ascending tag order. Receivers skip tags they do not know (so a
/// later version can add fields), refuse a repeated tag, and check each known field's length.
struct FieldWriter {
    private var w: ByteWriter
    /// Where the header's room begins (bytes before it belong to earlier frames).
    private let start: Int
    private let headerRoom: Int

    /// Leaves `headerRoom` bytes in front of the fields for `framed`.
    init(headerRoom: Int = 0) {
        w = ByteWriter(capacity: headerRoom + 52, zeros: headerRoom) // every message but HELLO, PROOF and ERROR fits
        start = 0
        self.headerRoom = headerRoom
    }

    /// The same after the bytes already in `buffer`, which is taken over (left empty) until
    /// `frame(into:)` gives it back.
    init(appendingTo buffer: inout [UInt8], headerRoom: Int) {
        var taken: [UInt8] = []
        swap(&taken, &buffer)
        start = taken.count
        taken.append(contentsOf: repeatElement(0, count: headerRoom))
        w = ByteWriter(taking: taken)
        self.headerRoom = headerRoom
    }

    var bytes: [UInt8] { w.bytes }

    /// The frame's bytes (Protocol.md §2): the header written into the room left in front.
    mutating func framed(version: UInt8, type: UInt8) -> [UInt8] {
        writeHeader(version: version, type: type)
        return w.bytes
    }

    /// The same, given back to the buffer taken by `init(appendingTo:)`.
    mutating func frame(version: UInt8, type: UInt8, into buffer: inout [UInt8]) {
        writeHeader(version: version, type: type)
        buffer = w.take()
    }

    private mutating func writeHeader(version: UInt8, type: UInt8) {
        for (i, byte) in Frame.magic.enumerated() { w.overwrite(at: start + i, byte) }
        w.overwrite(at: start + 4, version)
        w.overwrite(at: start + 5, type)
        w.overwrite(at: start + 6, UInt16(0)) // flags: none
        w.overwrite(at: start + 8, UInt32(w.bytes.count - start - headerRoom))
    }

    mutating func raw(_ tag: UInt8, _ value: some Collection<UInt8>) {
        w.write(tag)
        w.write(UInt16(value.count))
        w.write(value)
    }

    mutating func int<T: FixedWidthInteger>(_ tag: UInt8, _ value: T) {
        w.write(tag)
        w.write(UInt16(MemoryLayout<T>.size))
        w.write(value)
    }

    /// An id's 16 bytes as `ID128.bytes` lays them out, written straight in (no array per id).
    mutating func id(_ tag: UInt8, _ value: ID128) {
        w.write(tag)
        w.write(UInt16(16))
        w.write(value.high)
        w.write(value.low)
    }

    mutating func string(_ tag: UInt8, _ value: String) { raw(tag, Array(value.utf8)) }
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
        var r = ByteReader(payload)
        while r.remaining > 0 {
            let tag: UInt8 = try r.read()
            let length: UInt16 = try r.read()
            _ = try r.read(count: Int(length))
            guard !has(tag) else { throw .duplicateField(type: type, tag: tag) }
            let bit = UInt64(1) << (tag & 63)
            switch tag >> 6 {
            case 0: seen.0 |= bit
            case 1: seen.1 |= bit
            case 2: seen.2 |= bit
            default: seen.3 |= bit
            }
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
        guard has(tag) else { throw .missingField(type: type, tag: tag) }
        // `init` read every field of the payload without a fault, so this walk finds it.
        var r = ByteReader(payload)
        while r.remaining > 0 {
            let t: UInt8 = try r.read()
            let n: UInt16 = try r.read()
            let v = try r.read(count: Int(n))
            guard t == tag else { continue }
            if let length, v.count != length { throw .badFieldLength(type: type, tag: tag, length: v.count) }
            return v
        }
        throw .missingField(type: type, tag: tag)
    }

    func int<T: FixedWidthInteger>(_ tag: UInt8, _: T.Type = T.self) throws(WireError) -> T {
        var r = ByteReader(try raw(tag, length: MemoryLayout<T>.size))
        return try r.read()
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
