/// Big-endian byte writing and bounds-checked reading (Protocol.md §1: every multi-byte
/// integer on the wire is big-endian; nothing depends on host byte order or struct layout).

/// Appends big-endian integers and raw bytes to a growing buffer.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    public mutating func write<T: FixedWidthInteger>(_ value: T) {
        // Byte by byte, most significant first: appending a few bytes one at a time is cheaper
        // than appending a buffer of them (this runs for every field of every frame).
        var shift = T.bitWidth
        while shift > 0 {
            shift -= 8
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    public mutating func write(_ raw: some Sequence<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Replaces bytes already written, big-endian from `offset` on (a header filled in afterwards).
    mutating func overwrite<T: FixedWidthInteger>(at offset: Int, _ value: T) {
        let size = MemoryLayout<T>.size
        for i in 0..<size {
            bytes[offset + i] = UInt8(truncatingIfNeeded: value >> ((size - 1 - i) * 8))
        }
    }
}

/// Reads big-endian integers from a byte slice; every read is bounds-checked and a short
/// read throws `WireError.truncated` instead of trapping.
public struct ByteReader: Sendable {
    private let bytes: ArraySlice<UInt8>
    public private(set) var offset: Int

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.offset = bytes.startIndex
    }

    public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    public var remaining: Int { bytes.endIndex - offset }

    public mutating func read<T: FixedWidthInteger>(_: T.Type = T.self) throws(WireError) -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw .truncated }
        var value: T = 0
        for i in 0..<size {
            value = (value << 8) | T(bytes[offset + i])
        }
        offset += size
        return value
    }

    public mutating func read(count: Int) throws(WireError) -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else { throw .truncated }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }
}
