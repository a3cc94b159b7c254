/// The frame: a 12-byte header and a TLV payload (Protocol.md §2). The same frame travels in a
/// TCP stream (back to back) and alone in a UDP datagram.
///
///     offset size field
///     0      4    magic "TTAC" = 54 54 41 43
///     4      1    version
///     5      1    type
///     6      2    flags (bit 0 = IGNORABLE; others reserved: send 0, ignore on receipt)
///     8      4    payload length (at most `Frame.maxPayloadLength`)
public struct Frame: Sendable, Equatable {
    /// The magic "TTAC" as one big-endian word (what the codec compares and writes).
    static let magicWord: UInt32 = 0x5454_4143
    public static let magic: [UInt8] = withUnsafeBytes(of: magicWord.bigEndian) { Array($0) }
    public static let headerLength = 12
    /// The largest payload a receiver accepts; checked from the header, before allocation.
    public static let maxPayloadLength = 16_384
    /// Flag bit 0: a receiver that does not know this type skips the frame instead of failing.
    public static let ignorableFlag: UInt16 = 0x0001
    /// Flag bit 15, never sent: in a capture written by `tictac replay --write-plain`, this frame
    /// was sealed on the wire and is shown opened with its key log (Protocol.md §12).
    public static let openedFlag: UInt16 = 0x8000

    public var version: UInt8
    public var type: UInt8
    public var flags: UInt16
    /// A slice: a frame read from a stream shares the reader's buffer instead of a copy of its
    /// own (an allocation per frame). Keep a frame past its handling only as `Array(payload)`.
    public var payload: ArraySlice<UInt8>

    public init(version: UInt8, type: UInt8, flags: UInt16 = 0, payload: [UInt8]) {
        self.init(version: version, type: type, flags: flags, payload: payload[...])
    }

    public init(version: UInt8, type: UInt8, flags: UInt16 = 0, payload: ArraySlice<UInt8>) {
        self.version = version
        self.type = type
        self.flags = flags
        self.payload = payload
    }

    public var isIgnorable: Bool { flags & Self.ignorableFlag != 0 }

    /// The frame's bytes: header then payload.
    public var bytes: [UInt8] {
        var w = ByteWriter(capacity: Self.headerLength + payload.count)
        w.write(Self.magic)
        w.write(version)
        w.write(type)
        w.write(flags)
        w.write(UInt32(payload.count))
        w.write(payload)
        return w.bytes
    }

    /// The header fields, parsed and checked (magic, declared length) from at least 12 bytes.
    struct Header {
        var version: UInt8
        var type: UInt8
        var flags: UInt16
        var length: Int
    }

    static func parseHeader(_ bytes: ArraySlice<UInt8>) throws(WireError) -> Header {
        // Read by index (every frame passes here: a reader and its slices cost more than the
        // checks); big-endian fields, Protocol.md §1.
        guard bytes.count >= headerLength else { throw .truncated }
        let s = bytes.startIndex
        let magic = UInt32(bytes[s]) << 24 | UInt32(bytes[s + 1]) << 16 | UInt32(bytes[s + 2]) << 8 | UInt32(bytes[s + 3])
        guard magic == magicWord else { throw .badMagic(Array(bytes[s..<(s + 4)])) }
        let version = bytes[s + 4], type = bytes[s + 5]
        let flags = UInt16(bytes[s + 6]) << 8 | UInt16(bytes[s + 7])
        let length = UInt32(bytes[s + 8]) << 24 | UInt32(bytes[s + 9]) << 16 | UInt32(bytes[s + 10]) << 8 | UInt32(bytes[s + 11])
        guard length <= Self.maxPayloadLength else {
            throw .frameTooLarge(declared: length, limit: Self.maxPayloadLength)
        }
        return Header(version: version, type: type, flags: flags, length: Int(length))
    }

    /// Parses one whole datagram: exactly one frame, no more and no fewer bytes.
    public static func decodeDatagram(_ bytes: [UInt8]) throws(WireError) -> Frame {
        guard bytes.count >= headerLength else { throw .truncated }
        let h = try parseHeader(bytes[..<headerLength])
        let end = headerLength + h.length
        guard bytes.count >= end else { throw .truncated }
        guard bytes.count == end else { throw .trailingBytes(bytes.count - end) }
        return Frame(version: h.version, type: h.type, flags: h.flags, payload: bytes[headerLength..<end])
    }
}

/// Splits a TCP byte stream into frames. Takes any chunking (one byte at a time, many frames
/// in one read), yields frames in order and keeps the remainder. Holds at most one header
/// plus `Frame.maxPayloadLength` bytes of an incomplete frame: a bad header is reported as
/// soon as its 12 bytes are in, before any payload is buffered.
///
/// After an error the stream is out of sync and the decoder stays failed: close the connection.
public struct FrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    private var failure: WireError?

    public init() {}

    /// Bytes held that do not yet make a frame.
    public var bufferedCount: Int { buffer.count - start }

    /// Appends bytes read from the socket.
    public mutating func feed(_ bytes: some Collection<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil when more data is needed.
    public mutating func next() throws(WireError) -> Frame? {
        if let failure { throw failure }
        guard bufferedCount >= Frame.headerLength else {
            compact()
            return nil
        }
        let header: Frame.Header
        do {
            header = try Frame.parseHeader(buffer[start..<(start + Frame.headerLength)])
        } catch {
            failure = error
            throw error
        }
        let end = start + Frame.headerLength + header.length
        guard buffer.count >= end else {
            compact()
            return nil
        }
        let frame = Frame(version: header.version, type: header.type, flags: header.flags,
                          payload: buffer[(start + Frame.headerLength)..<end])
        start = end
        return frame
    }

    /// Drops consumed bytes once they are the larger part of the buffer, so appends stay
    /// amortised O(1) and memory stays bounded by one frame plus one read. A buffer read to the
    /// end (the usual case) is emptied in place; its room is kept up to `keptCapacity`.
    private mutating func compact() {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= Self.keptCapacity)
            start = 0
        } else if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// The most room an emptied buffer keeps for the next read (a frame or two of a game).
    static let keptCapacity = 512
}
