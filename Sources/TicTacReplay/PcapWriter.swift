#if canImport(Glibc)
import Glibc
#endif

/// Writes a capture's connections and datagrams as a new classic pcap (raw IP, link type 101,
/// nanosecond times): `tictac replay --write-plain`, after OpenedStreams made the streams plain.
/// Each connection gets its handshake (when the capture saw it), one segment per stream event
/// with sequence numbers counted anew (the plain frames are shorter than the sealed ones), and
/// its FIN or RST; a hole in a stream stays a hole. Checksums are computed; packets neither TCP
/// nor UDP are not written.
public enum PcapWriter {
    /// The file's bytes; `written` is how many packets it holds.
    public static func write(_ capture: Capture) -> (bytes: [UInt8], written: Int) {
        var packets: [(time: Int64, packet: Int, order: Int, ip: [UInt8])] = []
        func add(_ time: Int64, _ packet: Int, _ ip: [UInt8]?) {
            if let ip { packets.append((time, packet, packets.count, ip)) }
        }
        for d in capture.datagrams {
            add(d.time, d.packet, ip(17, from: d.source, to: d.destination, udp(d)))
        }
        for c in capture.connections { tcp(c, add) }
        packets.sort { ($0.time, $0.packet, $0.order) < ($1.time, $1.packet, $1.order) }
        var out: [UInt8] = []
        out += le32(0xa1b2_3c4d) + le16(2) + le16(4) + le32(0) + le32(0) + le32(262_144) + le32(101)
        for p in packets {
            out += le32(UInt32(truncatingIfNeeded: p.time / 1_000_000_000)) + le32(UInt32(p.time % 1_000_000_000))
            out += le32(UInt32(p.ip.count)) + le32(UInt32(p.ip.count)) + p.ip
        }
        return (out, packets.count)
    }

    private static let syn: UInt8 = 0x02, fin: UInt8 = 0x01, rst: UInt8 = 0x04, psh: UInt8 = 0x08, ack: UInt8 = 0x10
    /// Bytes of stream per segment at most (an IP packet's length field holds 65535).
    private static let maxSegment = 32_768

    private static func tcp(_ c: CapturedConnection, _ add: (Int64, Int, [UInt8]?) -> Void) {
        var next: [UInt32] = [1000, 5000] // the client's and the server's next sequence number
        let ends = [c.client, c.server]
        func segment(_ side: Int, _ flags: UInt8, _ payload: ArraySlice<UInt8> = [], time: Int64, packet: Int) {
            var h = be16(ends[side].port) + be16(ends[1 - side].port) + be32(next[side])
            h += be32(flags & ack != 0 ? next[1 - side] : 0) + [0x50, flags] + be16(65_535) + [0, 0, 0, 0]
            add(time, packet, ip(6, from: ends[side], to: ends[1 - side], h + payload))
            next[side] &+= UInt32(payload.count) + (flags & (syn | fin) != 0 ? 1 : 0)
        }
        if c.sawSYN {
            next = [999, 4999]
            segment(0, syn, time: c.established, packet: c.establishedPacket)
            segment(1, syn | ack, time: c.established, packet: c.establishedPacket)
        }
        for e in c.events {
            let side = e.fromClient ? 0 : 1
            switch e.kind {
            case let .data(bytes):
                for start in stride(from: 0, to: bytes.count, by: maxSegment) {
                    segment(side, psh | ack, bytes[start..<min(bytes.count, start + maxSegment)], time: e.time, packet: e.packet)
                }
            case .fin: segment(side, fin | ack, time: e.time, packet: e.packet)
            case .reset: segment(side, rst | ack, time: e.time, packet: e.packet)
            case let .gap(missing, _): next[side] &+= UInt32(truncatingIfNeeded: missing)
            }
        }
    }

    private static func udp(_ d: Capture.Datagram) -> [UInt8] {
        be16(d.source.port) + be16(d.destination.port) + be16(UInt16(truncatingIfNeeded: 8 + d.payload.count)) + [0, 0] + d.payload
    }

    /// An IPv4 or IPv6 packet around `body` (TCP or UDP, its checksum filled in); nil for an
    /// address that does not parse or a body too long.
    private static func ip(_ proto: UInt8, from: Endpoint, to: Endpoint, _ body: [UInt8]) -> [UInt8]? {
        var body = body
        let checksumAt = proto == 6 ? 16 : 6
        if let a = address(from.ip, v6: false), let b = address(to.ip, v6: false), body.count <= 65_515 {
            let pseudo = a + b + [0, proto] + be16(UInt16(body.count))
            put(checksum(pseudo + body, udp: proto == 17), into: &body, at: checksumAt)
            var h: [UInt8] = [0x45, 0] + be16(UInt16(20 + body.count)) + [0, 0, 0x40, 0, 64, proto, 0, 0] + a + b
            put(checksum(h), into: &h, at: 10)
            return h + body
        }
        if let a = address(from.ip, v6: true), let b = address(to.ip, v6: true), body.count <= 65_535 {
            let pseudo = a + b + be32(UInt32(body.count)) + [0, 0, 0, proto]
            put(checksum(pseudo + body, udp: proto == 17), into: &body, at: checksumAt)
            return [0x60, 0, 0, 0] + be16(UInt16(body.count)) + [proto, 64] + a + b + body
        }
        return nil
    }

    private static func address(_ text: String, v6: Bool) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: v6 ? 16 : 4)
        let ok = bytes.withUnsafeMutableBytes { inet_pton(v6 ? AF_INET6 : AF_INET, text, $0.baseAddress) }
        return ok == 1 ? bytes : nil
    }

    /// The Internet checksum (RFC 1071); a UDP checksum of 0 is sent as 0xffff.
    private static func checksum(_ bytes: [UInt8], udp: Bool = false) -> UInt16 {
        var sum: UInt32 = 0
        for i in stride(from: 0, to: bytes.count, by: 2) {
            sum += UInt32(bytes[i]) << 8 | (i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0)
        }
        while sum > 0xffff { sum = (sum & 0xffff) + (sum >> 16) }
        let value = ~UInt16(sum)
        return udp && value == 0 ? 0xffff : value
    }

    private static func put(_ value: UInt16, into bytes: inout [UInt8], at offset: Int) {
        bytes[offset] = UInt8(value >> 8)
        bytes[offset + 1] = UInt8(value & 0xff)
    }

    private static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xff)] }
    private static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)] }
    private static func le16(_ v: UInt16) -> [UInt8] { be16(v).reversed() }
    private static func le32(_ v: UInt32) -> [UInt8] { be32(v).reversed() }
}
