/// One TCP connection of a capture, reassembled: what each side sent, in stream order.
public struct CapturedConnection: Sendable {
    /// Something that happened on one direction of the connection, in capture order.
    public struct Event: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// New stream bytes (retransmitted ones are not repeated).
            case data([UInt8])
            /// The sender closed its side; every byte before it was delivered.
            case fin
            case reset
            /// `missing` bytes from sequence number `seq` on were never captured, and never
            /// filled: nothing after them can be read in order (told where the hole first showed).
            case gap(missing: Int, seq: UInt32)
        }

        /// Nanoseconds since the Unix epoch: when the packet that completed these bytes was seen.
        public var time: Int64
        /// The packet's index in the file (orders events of equal time).
        public var packet: Int
        /// Sent by the client (the side that sent SYN).
        public var fromClient: Bool
        public var kind: Kind
    }

    /// The side that opened the connection (sent SYN); without one, the side ConnectionSides finds
    /// dialled (the first PROOF's sender, else not a listener), else the first sender seen.
    public var client: Endpoint
    public var server: Endpoint
    /// The SYN was seen (else the capture started in the middle of the connection).
    public var sawSYN = false
    /// When the connection was up: the SYN-ACK (else the first packet).
    public var established: Int64
    public var establishedPacket: Int
    public var events: [Event] = []
    /// Segments that carried only bytes already delivered (or partly), per direction.
    public var retransmissions = (client: 0, server: 0)
    /// Segments that arrived before a gap before them was filled.
    public var outOfOrder = (client: 0, server: 0)
    /// Bytes never delivered because a segment before them is missing from the capture.
    public var missing = (client: 0, server: 0)

    /// Every byte the client (`true`) or the server sent, in order.
    public func bytes(fromClient: Bool) -> [UInt8] {
        events.reduce(into: []) { all, e in
            if e.fromClient == fromClient, case let .data(b) = e.kind { all += b }
        }
    }

    /// Whether that side closed with FIN (a clean end) or RST.
    public func ended(fromClient: Bool) -> Event.Kind? {
        for e in events.reversed() where e.fromClient == fromClient {
            if case .data = e.kind { continue }
            return e.kind
        }
        return nil
    }
}

/// Reassembles every TCP connection of a capture, per direction (RFC 793 sequence numbers):
/// a segment holding only bytes already delivered is a retransmission and is dropped, one that
/// overlaps delivers only its new bytes, one beyond a gap waits until the gap is filled.
public struct TCPStreams {
    public private(set) var connections: [CapturedConnection] = []
    private var current: [Set<Endpoint>: Int] = [:]
    /// Each connection's two directions, by the same index as `connections` (appended together,
    /// so every index of one is an index of the other).
    private var sides: [(client: Direction, server: Direction)] = []

    private struct Direction {
        var base: UInt32?
        var next: UInt64 = 0
        var pending: [(at: UInt64, bytes: [UInt8], packet: Int, time: Int64)] = []
        var finAt: UInt64?
        var finDelivered = false
    }

    public init() {}

    /// Adds one segment, in capture order.
    public mutating func add(_ packet: Packet, index: Int) {
        guard case let .tcp(seg) = packet.transport else { return }
        let key: Set<Endpoint> = [packet.source, packet.destination]
        let opening = seg.has(TCPSegment.syn) && !seg.has(TCPSegment.ack)
        var c: Int
        if let existing = current[key], !(opening && Self.isUsed(connections[existing], sides[existing])) {
            c = existing
        } else {
            c = connections.count
            connections.append(CapturedConnection(client: packet.source, server: packet.destination,
                                                  established: packet.time, establishedPacket: index))
            sides.append((Direction(), Direction()))
            current[key] = c
        }
        let fromClient = packet.source == connections[c].client
        if opening { connections[c].sawSYN = true }
        if seg.has(TCPSegment.syn), seg.has(TCPSegment.ack) {
            connections[c].established = packet.time
            connections[c].establishedPacket = index
        }
        var dir = fromClient ? sides[c].client : sides[c].server
        var out: [CapturedConnection.Event] = []
        Self.receive(seg, into: &dir, conn: &connections[c], fromClient: fromClient, packet: index, time: packet.time) { kind in
            out.append(.init(time: packet.time, packet: index, fromClient: fromClient, kind: kind))
        }
        connections[c].events += out
        if fromClient { sides[c].client = dir } else { sides[c].server = dir }
    }

    /// Counts what never arrived (bytes held behind a gap at the end of the capture) and puts
    /// each direction's first unfilled gap among the events, at the packet that revealed it.
    public mutating func finish() {
        for (c, s) in sides.enumerated() {
            connections[c].missing = (s.client.pending.reduce(0) { $0 + $1.bytes.count },
                                      s.server.pending.reduce(0) { $0 + $1.bytes.count })
            for (fromClient, d) in [(true, s.client), (false, s.server)] {
                guard let after = d.pending.min(by: { $0.at < $1.at }),
                      let seen = d.pending.min(by: { $0.packet < $1.packet }) else { continue }
                let gap = CapturedConnection.Event(time: seen.time, packet: seen.packet, fromClient: fromClient,
                                                   kind: .gap(missing: Int(after.at - d.next), seq: (d.base ?? 0) &+ UInt32(truncatingIfNeeded: d.next)))
                let at = connections[c].events.firstIndex { $0.packet > seen.packet } ?? connections[c].events.endIndex
                connections[c].events.insert(gap, at: at)
            }
        }
    }

    private static func isUsed(_ c: CapturedConnection, _ s: (client: Direction, server: Direction)) -> Bool {
        !c.events.isEmpty || s.client.next > 0 || s.server.next > 0
    }

    private static func receive(_ seg: TCPSegment, into d: inout Direction, conn: inout CapturedConnection,
                                fromClient: Bool, packet: Int, time: Int64, emit: (CapturedConnection.Event.Kind) -> Void) {
        if seg.has(TCPSegment.syn) {
            if d.base == nil { d.base = seg.seq &+ 1 }
            return // a SYN carries no data here (no TCP Fast Open on our sockets)
        }
        if seg.has(TCPSegment.rst) { return emit(.reset) }
        let base = d.base ?? seg.seq
        d.base = base
        let at = UInt64(seg.seq &- base)
        let end = at + UInt64(seg.payload.count)
        if !seg.payload.isEmpty {
            if end <= d.next {
                if fromClient { conn.retransmissions.client += 1 } else { conn.retransmissions.server += 1 }
            } else if at > d.next {
                if fromClient { conn.outOfOrder.client += 1 } else { conn.outOfOrder.server += 1 }
                d.pending.append((at, seg.payload, packet, time))
            } else {
                if at < d.next { if fromClient { conn.retransmissions.client += 1 } else { conn.retransmissions.server += 1 } }
                emit(.data(Array(seg.payload[Int(d.next - at)...])))
                d.next = end
            }
            // Segments that waited behind a gap now filled.
            var progress = true
            while progress {
                progress = false
                for (i, p) in d.pending.enumerated() where p.at <= d.next {
                    let pEnd = p.at + UInt64(p.bytes.count)
                    if pEnd > d.next {
                        emit(.data(Array(p.bytes[Int(d.next - p.at)...])))
                        d.next = pEnd
                    }
                    d.pending.remove(at: i)
                    progress = true
                    break
                }
            }
        }
        if seg.has(TCPSegment.fin), d.finAt == nil { d.finAt = end }
        if let fin = d.finAt, !d.finDelivered, d.next >= fin {
            d.finDelivered = true
            emit(.fin)
        }
    }
}

/// A whole capture, read: its TCP connections and UDP datagrams, and what could not be read.
public struct Capture: Sendable {
    /// A UDP datagram as captured.
    public struct Datagram: Sendable, Equatable {
        public var time: Int64
        public var packet: Int
        public var source: Endpoint
        public var destination: Endpoint
        public var payload: [UInt8]
    }

    public var linkType: UInt32
    public var packetCount: Int
    /// The file ended inside a record (`PcapFile.cutShort`): told up to the record before it.
    public var cutShort: String?
    public var connections: [CapturedConnection]
    public var datagrams: [Datagram]
    /// Records that could not be read as TCP or UDP over IP: (packet index, its time, why).
    public var skipped: [(packet: Int, time: Int64, reason: String)]
    /// Records that are not ours and not a fault (ICMP, ICMPv6, IGMP, not IP): (index, time, what).
    public var others: [(packet: Int, time: Int64, what: String)]

    /// Reads a pcap file's bytes.
    public init(pcap bytes: [UInt8]) throws(CaptureError) {
        let file = try PcapFile(bytes: bytes)
        linkType = file.linkType
        packetCount = file.packets.count
        cutShort = file.cutShort
        var streams = TCPStreams()
        datagrams = []
        skipped = []
        others = []
        var fragments = IPFragments()
        for (i, captured) in file.packets.enumerated() {
            let parsed: Result<Packet, Packet.Skipped>
            switch Packet.ipBytes(captured, linkType: file.linkType) {
            case let .success(ip) where IPFragments.isFragment(ip):
                guard let whole = fragments.add(ip, packet: i, time: captured.time) else { continue }
                parsed = Packet.parseIP(whole[...], time: captured.time)
            case let .success(ip): parsed = Packet.parseIP(ip, time: captured.time)
            case let .failure(why): parsed = .failure(why)
            }
            switch parsed {
            case let .success(p):
                switch p.transport {
                case .tcp: streams.add(p, index: i)
                case let .udp(payload):
                    datagrams.append(Datagram(time: p.time, packet: i, source: p.source, destination: p.destination, payload: payload))
                }
            case let .failure(why) where why.isOther:
                others.append((i, captured.time, why.description))
            case let .failure(why):
                skipped.append((i, captured.time, why.description))
            }
        }
        skipped += fragments.incomplete
        skipped.sort { $0.packet < $1.packet }
        streams.finish()
        connections = ConnectionSides.orient(streams.connections)
    }
}
