/// Reassembles IP fragments: IPv4's (RFC 791) and IPv6's Fragment extension header (RFC 8200
/// §4.5, next header 44). The pieces of one datagram (same source, destination and
/// identification, and for IPv4 the same protocol) are held until they cover it from offset 0
/// to the last fragment's end, then given back as one unfragmented packet. What never
/// completes is listed, so the stream it belonged to is told as incomplete, never as if whole.
struct IPFragments {
    private struct Key: Hashable {
        var source: [UInt8]
        var destination: [UInt8]
        var id: UInt32
        var proto: UInt8
    }

    private struct Held {
        var v6: Bool
        /// The first fragment's header, made whole (IPv4: offset and MF cleared; IPv6: the
        /// unfragmentable part, its last next-header naming what the Fragment header named).
        var header: [UInt8]?
        var pieces: [(offset: Int, bytes: ArraySlice<UInt8>)] = []
        var total: Int?
        var firstPacket: Int
        var firstTime: Int64
        var bytes = 0
    }

    /// Where an IPv6 packet's Fragment header is.
    private struct V6Fragment {
        /// Offset (from the packet's start) of the next-header byte that says 44.
        var nextHeaderAt: Int
        /// Offset of the Fragment header itself (the end of the unfragmentable part).
        var at: Int
        /// The packet's end by its payload length.
        var end: Int
    }

    private var held: [Key: Held] = [:]

    /// A datagram larger than IP allows, or more datagrams held than this, is not reassembled:
    /// a hostile capture must not hold unbounded memory.
    static let maxHeld = 256

    /// Whether `ip` is a fragment: IPv4 with more fragments or a non-zero offset, or IPv6 with a
    /// Fragment header.
    static func isFragment(_ ip: ArraySlice<UInt8>) -> Bool {
        guard let first = ip.first else { return false }
        switch first >> 4 {
        case 4:
            guard ip.count >= 20 else { return false }
            let s = ip.startIndex
            return (Int(ip[s + 6]) << 8 | Int(ip[s + 7])) & 0x3fff != 0
        case 6: return v6Fragment(ip) != nil
        default: return false
        }
    }

    /// The Fragment header of an IPv6 packet, after any hop-by-hop, routing and destination
    /// options headers; nil when there is none (or the headers are cut short).
    private static func v6Fragment(_ ip: ArraySlice<UInt8>) -> V6Fragment? {
        guard ip.count >= 40 else { return nil }
        let s = ip.startIndex
        let end = s + 40 + min(Int(ip[s + 4]) << 8 | Int(ip[s + 5]), ip.count - 40)
        var nextAt = s + 6, at = s + 40
        while [0, 43, 60].contains(ip[nextAt]) {
            guard at + 8 <= end else { return nil }
            nextAt = at
            at += (Int(ip[at + 1]) + 1) * 8
        }
        guard ip[nextAt] == 44, at + 8 <= end else { return nil }
        return V6Fragment(nextHeaderAt: nextAt - s, at: at - s, end: end - s)
    }

    /// Adds one fragment; returns the whole packet once its last missing piece is in. A
    /// fragment cut short is dropped (its datagram then never completes).
    mutating func add(_ ip: ArraySlice<UInt8>, packet: Int, time: Int64) -> [UInt8]? {
        guard let first = ip.first else { return nil }
        let s = ip.startIndex
        let key: Key, offset: Int, more: Bool, data: ArraySlice<UInt8>, header: [UInt8]
        if first >> 4 == 6 {
            guard let f = Self.v6Fragment(ip) else { return nil }
            let field = Int(ip[s + f.at + 2]) << 8 | Int(ip[s + f.at + 3])
            offset = field & 0xfff8
            more = field & 1 != 0
            data = ip[(s + f.at + 8)..<(s + f.end)]
            guard offset + data.count <= 65_535 else { return nil }
            let id = ip[(s + f.at + 4)..<(s + f.at + 8)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            key = Key(source: Array(ip[(s + 8)..<(s + 24)]), destination: Array(ip[(s + 24)..<(s + 40)]), id: id, proto: 44)
            var h = Array(ip[s..<(s + f.at)])
            h[f.nextHeaderAt] = ip[s + f.at] // the Fragment header's next header: what the datagram carries
            header = h
        } else {
            guard ip.count >= 20 else { return nil }
            let ihl = Int(first & 0x0f) * 4
            let total = Int(ip[s + 2]) << 8 | Int(ip[s + 3])
            guard ihl >= 20, total >= ihl, ip.count >= total else { return nil }
            let flagsOffset = Int(ip[s + 6]) << 8 | Int(ip[s + 7])
            offset = (flagsOffset & 0x1fff) * 8
            more = flagsOffset & 0x2000 != 0
            data = ip[(s + ihl)..<(s + total)]
            guard offset + data.count <= 65_535 - ihl else { return nil }
            key = Key(source: Array(ip[(s + 12)..<(s + 16)]), destination: Array(ip[(s + 16)..<(s + 20)]),
                      id: UInt32(ip[s + 4]) << 8 | UInt32(ip[s + 5]), proto: ip[s + 9])
            var h = Array(ip[s..<(s + ihl)])
            h[6] = 0 // no more fragments, offset 0: a whole datagram
            h[7] = 0
            header = h
        }
        guard held[key] != nil || held.count < Self.maxHeld else { return nil }
        var h = held[key] ?? Held(v6: first >> 4 == 6, firstPacket: packet, firstTime: time)
        if offset == 0 { h.header = header }
        if !more { h.total = offset + data.count }
        h.pieces.append((offset, data))
        h.bytes += data.count
        guard let end = h.total, var out = h.header, let whole = Self.join(h.pieces, end: end) else {
            held[key] = h
            return nil
        }
        held[key] = nil
        // IPv4's total length counts its header; IPv6's payload length does not count the fixed 40 bytes.
        let length = h.v6 ? out.count - 40 + whole.count : out.count + whole.count
        guard length <= 65_535 else { return nil }
        out[h.v6 ? 4 : 2] = UInt8(length >> 8)
        out[h.v6 ? 5 : 3] = UInt8(length & 0xff)
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
             "\($0.v6 ? "IPv6" : "IPv4") fragments (\($0.pieces.count), \($0.bytes) bytes) of a datagram never completed: its stream is incomplete")
        }
    }
}
