/// An IP address and port.
public struct Endpoint: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var ip: String
    public var port: UInt16

    public init(ip: String, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    public var description: String { ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)" }
    public static func < (a: Endpoint, b: Endpoint) -> Bool { (a.ip, a.port) < (b.ip, b.port) }
}

/// A TCP segment's header fields replay needs.
public struct TCPSegment: Sendable, Equatable {
    public static let fin: UInt8 = 0x01, syn: UInt8 = 0x02, rst: UInt8 = 0x04, ack: UInt8 = 0x10
    public var seq: UInt32
    public var ack: UInt32
    public var flags: UInt8
    public var payload: [UInt8]

    public func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
}

/// A captured packet read down to TCP or UDP.
public struct Packet: Sendable, Equatable {
    public enum Transport: Sendable, Equatable {
        case tcp(TCPSegment)
        case udp([UInt8])
    }

    /// Nanoseconds since the Unix epoch.
    public var time: Int64
    public var source: Endpoint
    public var destination: Endpoint
    public var transport: Transport

    /// DLT_NULL, DLT_EN10MB, DLT_RAW (and its BSD numbers), DLT_LINUX_SLL, DLT_IPV4, DLT_IPV6,
    /// DLT_LINUX_SLL2.
    static let supportedLinkTypes: Set<UInt32> = [0, 1, 12, 14, 101, 113, 228, 229, 276]

    /// Reads one record. Returns nil (and why) for a packet that is not TCP or UDP over IP, or
    /// is cut short; never traps on bytes.
    public static func parse(_ captured: CapturedPacket, linkType: UInt32) -> Result<Packet, Skipped> {
        ipBytes(captured, linkType: linkType).flatMap { parseIP($0, time: captured.time) }
    }

    /// The record's IP packet, below its link-layer header.
    static func ipBytes(_ captured: CapturedPacket, linkType: UInt32) -> Result<ArraySlice<UInt8>, Skipped> {
        let d = captured.data
        var ip: ArraySlice<UInt8>
        switch linkType {
        case 0: // BSD loopback: a 4-byte address family in the writer's byte order
            guard d.count >= 4 else { return .failure(.short("null header")) }
            ip = d[4...]
        case 1:
            guard d.count >= 14 else { return .failure(.short("Ethernet header")) }
            var type = Int(d[12]) << 8 | Int(d[13]), at = 14
            while type == 0x8100 || type == 0x88a8 { // VLAN tags
                guard d.count >= at + 4 else { return .failure(.short("VLAN tag")) }
                type = Int(d[at + 2]) << 8 | Int(d[at + 3])
                at += 4
            }
            guard type == 0x0800 || type == 0x86dd else { return .failure(.notIP) }
            ip = d[at...]
        case 113:
            guard d.count >= 16 else { return .failure(.short("Linux cooked header")) }
            ip = d[16...]
        case 276:
            guard d.count >= 20 else { return .failure(.short("Linux cooked v2 header")) }
            ip = d[20...]
        default: // raw IP
            ip = d[...]
        }
        return .success(ip)
    }

    /// Why a record was not read as TCP or UDP.
    public enum Skipped: Error, Sendable, Equatable, CustomStringConvertible {
        case short(String)
        case notIP
        case notTCPOrUDP(UInt8)
        case fragment
        case ipv6Fragment

        /// Not ours and not a fault: ARP and the like, ICMP, IGMP, ICMPv6 (neighbour discovery, MLD).
        public var isOther: Bool {
            switch self {
            case .notIP: true
            case let .notTCPOrUDP(p): [1, 2, 58].contains(p)
            default: false
            }
        }

        public var description: String {
            switch self {
            case let .short(what): "cut short in its \(what)"
            case .notIP: "not IP"
            case let .notTCPOrUDP(p): "IP protocol \(p), neither TCP nor UDP"
            case .fragment: "an IP fragment"
            case .ipv6Fragment: "an IPv6 fragment whose Fragment header is cut short: its stream is incomplete"
            }
        }
    }

    static func parseIP(_ b: ArraySlice<UInt8>, time: Int64) -> Result<Packet, Skipped> {
        guard let first = b.first else { return .failure(.short("IP header")) }
        let s = b.startIndex
        var proto: UInt8, body: ArraySlice<UInt8>
        let src: String, dst: String
        switch first >> 4 {
        case 4:
            let ihl = Int(first & 0x0f) * 4
            guard ihl >= 20, b.count >= ihl else { return .failure(.short("IPv4 header")) }
            let total = Int(b[s + 2]) << 8 | Int(b[s + 3])
            guard total >= ihl else { return .failure(.short("IPv4 header")) }
            let flagsOffset = Int(b[s + 6]) << 8 | Int(b[s + 7])
            if flagsOffset & 0x3fff != 0 { return .failure(.fragment) } // MF or an offset
            proto = b[s + 9]
            src = b[(s + 12)..<(s + 16)].map(String.init).joined(separator: ".")
            dst = b[(s + 16)..<(s + 20)].map(String.init).joined(separator: ".")
            body = b[(s + ihl)..<(s + min(total, b.count))]
        case 6:
            guard b.count >= 40 else { return .failure(.short("IPv6 header")) }
            let length = Int(b[s + 4]) << 8 | Int(b[s + 5])
            proto = b[s + 6]
            src = ipv6(b[(s + 8)..<(s + 24)])
            dst = ipv6(b[(s + 24)..<(s + 40)])
            body = b[(s + 40)..<(s + 40 + min(length, b.count - 40))]
            // Hop-by-hop (MLD carries one), routing and destination options come before the payload.
            while [0, 43, 60].contains(proto) {
                guard body.count >= 8 else { return .failure(.short("IPv6 extension header")) }
                let next = body[body.startIndex], size = (Int(body[body.startIndex + 1]) + 1) * 8
                guard body.count >= size else { return .failure(.short("IPv6 extension header")) }
                proto = next
                body = body.dropFirst(size)
            }
            if proto == 44 { return .failure(.ipv6Fragment) }
        default:
            return .failure(.notIP)
        }
        let t = body.startIndex
        switch proto {
        case 6:
            guard body.count >= 20 else { return .failure(.short("TCP header")) }
            let offset = Int(body[t + 12] >> 4) * 4
            guard offset >= 20, body.count >= offset else { return .failure(.short("TCP header")) }
            let segment = TCPSegment(seq: u32(body, t + 4), ack: u32(body, t + 8), flags: body[t + 13],
                                     payload: Array(body[(t + offset)...]))
            return .success(Packet(time: time, source: Endpoint(ip: src, port: u16(body, t)),
                                   destination: Endpoint(ip: dst, port: u16(body, t + 2)), transport: .tcp(segment)))
        case 17:
            guard body.count >= 8 else { return .failure(.short("UDP header")) }
            let length = Int(u16(body, t + 4))
            guard length >= 8, body.count >= length else { return .failure(.short("UDP datagram")) }
            return .success(Packet(time: time, source: Endpoint(ip: src, port: u16(body, t)),
                                   destination: Endpoint(ip: dst, port: u16(body, t + 2)),
                                   transport: .udp(Array(body[(t + 8)..<(t + length)]))))
        default:
            return .failure(.notTCPOrUDP(proto))
        }
    }

    private static func u16(_ b: ArraySlice<UInt8>, _ at: Int) -> UInt16 { UInt16(b[at]) << 8 | UInt16(b[at + 1]) }
    private static func u32(_ b: ArraySlice<UInt8>, _ at: Int) -> UInt32 {
        UInt32(u16(b, at)) << 16 | UInt32(u16(b, at + 2))
    }

    /// RFC 5952 text (the longest run of zero groups, if two or more, becomes "::").
    private static func ipv6(_ b: ArraySlice<UInt8>) -> String {
        let groups = stride(from: b.startIndex, to: b.endIndex, by: 2).map { Int(b[$0]) << 8 | Int(b[$0 + 1]) }
        var best = (start: -1, count: 0), run = (start: -1, count: 0)
        for (i, g) in groups.enumerated() {
            if g == 0 { run = run.start < 0 ? (i, 1) : (run.start, run.count + 1) } else { run = (-1, 0) }
            if run.count > best.count { best = run }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.count >= 2 else { return hex.joined(separator: ":") }
        return hex[..<best.start].joined(separator: ":") + "::" + hex[(best.start + best.count)...].joined(separator: ":")
    }
}
