/// Reassembles IPv4 fragments (RFC 791): the pieces of one datagram (same source, destination,
/// protocol and identification) are held until they cover it from offset 0 to the last
/// fragment's end, then given back as one unfragmented IPv4 packet. What never completes is
/// listed, so the stream it belonged to is told as incomplete, never as if whole.
struct IPv4Fragments {
    private struct Key: Hashable {
        var source: [UInt8]
        var destination: [UInt8]
        var id: UInt16
        var proto: UInt8
    }

    private struct Held {
        var header: [UInt8]?
        var pieces: [(offset: Int, bytes: ArraySlice<UInt8>)] = []
        var total: Int?
        var firstPacket: Int
        var firstTime: Int64
        var bytes = 0
    }

    private var held: [Key: Held] = [:]

    /// A datagram larger than IPv4 allows, or more datagrams held than this, is not reassembled:
    /// a hostile capture must not hold unbounded memory.
    static let maxHeld = 256

    /// Whether `ip` is an IPv4 fragment (more fragments follow, or a non-zero offset).
    static func isFragment(_ ip: ArraySlice<UInt8>) -> Bool {
        guard ip.count >= 20, let first = ip.first, first >> 4 == 4 else { return false }
        let s = ip.startIndex
        return (Int(ip[s + 6]) << 8 | Int(ip[s + 7])) & 0x3fff != 0
    }

    /// Adds one fragment; returns the whole packet once its last missing piece is in. A
    /// fragment cut short is dropped (its datagram then never completes).
    mutating func add(_ ip: ArraySlice<UInt8>, packet: Int, time: Int64) -> [UInt8]? {
        let s = ip.startIndex
        let ihl = Int(ip[s] & 0x0f) * 4
        let total = Int(ip[s + 2]) << 8 | Int(ip[s + 3])
        guard ihl >= 20, total >= ihl, ip.count >= total else { return nil }
        let flagsOffset = Int(ip[s + 6]) << 8 | Int(ip[s + 7])
        let offset = (flagsOffset & 0x1fff) * 8, more = flagsOffset & 0x2000 != 0
        let data = ip[(s + ihl)..<(s + total)]
        guard offset + data.count <= 65_535 - ihl else { return nil }
        let key = Key(source: Array(ip[(s + 12)..<(s + 16)]), destination: Array(ip[(s + 16)..<(s + 20)]),
                      id: UInt16(ip[s + 4]) << 8 | UInt16(ip[s + 5]), proto: ip[s + 9])
        guard held[key] != nil || held.count < Self.maxHeld else { return nil }
        var h = held[key] ?? Held(firstPacket: packet, firstTime: time)
        if offset == 0 { h.header = Array(ip[s..<(s + ihl)]) }
        if !more { h.total = offset + data.count }
        h.pieces.append((offset, data))
        h.bytes += data.count
        guard let end = h.total, let header = h.header, let whole = Self.join(h.pieces, end: end) else {
            held[key] = h
            return nil
        }
        held[key] = nil
        var out = header
        let length = header.count + whole.count
        out[2] = UInt8(length >> 8)
        out[3] = UInt8(length & 0xff)
        out[6] = 0 // no more fragments, offset 0: a whole datagram
        out[7] = 0
        return out + whole
    }

    /// The datagram's bytes when the pieces cover 0..<end without a hole, else nil.
    private static func join(_ pieces: [(offset: Int, bytes: ArraySlice<UInt8>)], end: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: end)
        var covered = 0
        for p in pieces.sorted(by: { $0.offset < $1.offset }) {
            guard p.offset <= covered else { return nil }
            let stop = min(end, p.offset + p.bytes.count)
            if stop > covered {
                out.replaceSubrange(covered..<stop, with: p.bytes.dropFirst(covered - p.offset).prefix(stop - covered))
                covered = stop
            }
        }
        return covered == end ? out : nil
    }

    /// The datagrams that never completed: where their first fragment was, and how much came.
    var incomplete: [(packet: Int, time: Int64, reason: String)] {
        held.values.sorted { $0.firstPacket < $1.firstPacket }.map {
            ($0.firstPacket, $0.firstTime,
             "IPv4 fragments (\($0.pieces.count), \($0.bytes) bytes) of a datagram never completed: its stream is incomplete")
        }
    }
}
