import Testing
@testable import TicTacReplay

/// Builds pcap files by hand: little-endian, microseconds, the given link type.
enum PcapBuilder {
    static func file(linkType: UInt32 = 1, records: [(time: Int64, data: [UInt8])]) -> [UInt8] {
        var out = le32(0xa1b2_c3d4) + le16(2) + le16(4) + le32(0) + le32(0) + le32(65535) + le32(linkType)
        for r in records {
            out += le32(UInt32(r.time / 1_000_000_000)) + le32(UInt32(r.time % 1_000_000_000 / 1000))
            out += le32(UInt32(r.data.count)) + le32(UInt32(r.data.count)) + r.data
        }
        return out
    }

    /// An Ethernet + IPv4 + TCP packet from 10.0.0.A:PA to 10.0.0.B:PB.
    static func tcp(from a: UInt8, _ pa: UInt16, to b: UInt8, _ pb: UInt16, seq: UInt32, flags: UInt8,
                    payload: [UInt8] = []) -> [UInt8] {
        let tcp = be16(pa) + be16(pb) + be32(seq) + be32(0) + [0x50, flags] + be16(65535) + [0, 0, 0, 0] + payload
        return ethernet(ipv4(proto: 6, from: a, to: b, body: tcp))
    }

    static func udp(from a: UInt8, _ pa: UInt16, to b: UInt8, _ pb: UInt16, payload: [UInt8]) -> [UInt8] {
        ethernet(ipv4(proto: 17, from: a, to: b, body: be16(pa) + be16(pb) + be16(UInt16(8 + payload.count)) + [0, 0] + payload))
    }

    static func ipv4(proto: UInt8, from a: UInt8, to b: UInt8, body: [UInt8]) -> [UInt8] {
        [0x45, 0] + be16(UInt16(20 + body.count)) + [0, 0, 0x40, 0, 64, proto, 0, 0, 10, 0, 0, a, 10, 0, 0, b] + body
    }

    static func ethernet(_ ip: [UInt8]) -> [UInt8] { [UInt8](repeating: 0, count: 12) + [0x08, 0x00] + ip }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { le16(UInt16(v & 0xffff)) + le16(UInt16(v >> 16)) }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xff)] }
    static func be32(_ v: UInt32) -> [UInt8] { be16(UInt16(v >> 16)) + be16(UInt16(v & 0xffff)) }
}

@Suite struct PcapTests {
    let records: [(time: Int64, data: [UInt8])] = [
        (1_000_000_000, PcapBuilder.tcp(from: 1, 5000, to: 2, 80, seq: 100, flags: TCPSegment.syn)),
        (1_000_500_000, PcapBuilder.udp(from: 1, 51515, to: 255, 51515, payload: [1, 2, 3])),
    ]

    @Test func readsRecordsAndTimes() throws {
        let file = try PcapFile(bytes: PcapBuilder.file(records: records))
        #expect(file.linkType == 1)
        #expect(file.packets.map(\.time) == [1_000_000_000, 1_000_500_000])
        #expect(file.packets[1].data == records[1].data)
    }

    @Test func bigEndianNanosecondFile() throws {
        var bytes: [UInt8] = [0xa1, 0xb2, 0x3c, 0x4d, 0, 2, 0, 4] + [UInt8](repeating: 0, count: 8) + [0, 0, 0xff, 0xff, 0, 0, 0, 113]
        bytes += [0, 0, 0, 2, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 1, 0xaa] // t = 2 s + 7 ns, one byte
        let file = try PcapFile(bytes: bytes)
        #expect(file.linkType == 113)
        #expect(file.packets == [CapturedPacket(time: 2_000_000_007, data: [0xaa], originalLength: 1)])
    }

    /// A file cut in its header is an error; one cut inside a record (a capture stopped
    /// mid-write) is read up to that record and says where it was cut.
    @Test func everyTruncationIsReadUpToItsCutOrAnError() throws {
        let whole = PcapBuilder.file(records: records)
        let boundaries = [24, 24 + 16 + records[0].data.count] // a file may end after any record
        for cut in 0..<24 {
            #expect(throws: CaptureError.self) { try PcapFile(bytes: Array(whole[..<cut])) }
        }
        for cut in 24..<whole.count {
            let file = try PcapFile(bytes: Array(whole[..<cut]))
            #expect(file.packets.count == (cut >= boundaries[1] ? 1 : 0))
            #expect((file.cutShort != nil) == !boundaries.contains(cut), "cut at \(cut)")
        }
        #expect(try PcapFile(bytes: whole).cutShort == nil)
    }

    @Test func refusesWhatIsNotPcap() {
        #expect(throws: CaptureError.notPcap("unknown magic number 47455420")) { try PcapFile(bytes: Array("GET / HTTP/1.0\r\n".utf8)) }
        #expect(throws: CaptureError.unsupportedLinkType(147)) { try PcapFile(bytes: PcapBuilder.file(linkType: 147, records: [])) }
        let pcapng: [UInt8] = [0x0a, 0x0d, 0x0d, 0x0a] + [UInt8](repeating: 0, count: 28)
        #expect(throws: CaptureError.self) { try PcapFile(bytes: pcapng) }
    }

    @Test func refusesAHugeRecordLength() {
        var bytes = PcapBuilder.file(records: [records[0]])
        bytes[24 + 8] = 0xff; bytes[24 + 9] = 0xff; bytes[24 + 10] = 0xff; bytes[24 + 11] = 0x7f
        #expect(throws: CaptureError.self) { try PcapFile(bytes: bytes) }
    }

    /// Corruption of every byte position: a typed error or a capture made of the file's own
    /// bytes (never a trap, never more packets or payload than the file holds); the magic
    /// number refuses, a payload byte changes only that payload.
    @Test func corruptBytesGiveAnErrorOrACaptureOfTheFile() throws {
        let whole = PcapBuilder.file(records: records)
        var refused = 0, read = 0
        for i in whole.indices {
            for value: UInt8 in [0x00, 0xff, 0x80] where whole[i] != value {
                var bytes = whole
                bytes[i] = value
                do throws(CaptureError) {
                    let capture = try Capture(pcap: bytes)
                    read += 1
                    #expect(capture.packetCount <= records.count, "byte \(i) = \(value)")
                    let payload = capture.datagrams.reduce(0) { $0 + $1.payload.count }
                        + capture.connections.flatMap(\.events).reduce(0) {
                            if case let .data(d) = $1.kind { $0 + d.count } else { $0 }
                        }
                    #expect(payload <= bytes.count, "byte \(i) = \(value)")
                } catch {
                    refused += 1
                }
            }
        }
        #expect(refused > 0 && read > 0, "both outcomes seen: \(refused) refused, \(read) read")
        var badMagic = whole
        badMagic[0] ^= 0xff
        #expect(throws: CaptureError.self) { try Capture(pcap: badMagic) }
        var badPayload = whole
        badPayload[badPayload.count - 1] ^= 0xff // the last datagram's last byte
        let changed = try Capture(pcap: badPayload)
        #expect(changed.datagrams.last?.payload.last == whole[whole.count - 1] ^ 0xff)
    }

    @Test func readsTCPAndUDPOverEthernet() throws {
        let capture = try Capture(pcap: PcapBuilder.file(records: records))
        #expect(capture.connections.count == 1)
        #expect(capture.connections[0].client == Endpoint(ip: "10.0.0.1", port: 5000))
        #expect(capture.connections[0].sawSYN)
        #expect(capture.datagrams.map(\.payload) == [[1, 2, 3]])
        #expect(capture.datagrams[0].destination == Endpoint(ip: "10.0.0.255", port: 51515))
    }
}

@Suite struct ReassemblyTests {
    /// Client 10.0.0.1:5000 -> server 10.0.0.2:80, ISN 1000 (data starts at 1001).
    func capture(_ segments: [(seq: UInt32, flags: UInt8, payload: [UInt8])]) throws -> CapturedConnection {
        var records: [(time: Int64, data: [UInt8])] = [(0, PcapBuilder.tcp(from: 1, 5000, to: 2, 80, seq: 1000, flags: TCPSegment.syn))]
        for (i, s) in segments.enumerated() {
            records.append((Int64(i + 1) * 1000, PcapBuilder.tcp(from: 1, 5000, to: 2, 80, seq: s.seq, flags: s.flags | TCPSegment.ack, payload: s.payload)))
        }
        let c = try Capture(pcap: PcapBuilder.file(records: records))
        try #require(c.connections.count == 1)
        return c.connections[0]
    }

    @Test func inOrder() throws {
        let c = try capture([(1001, 0, [1, 2, 3]), (1004, TCPSegment.fin, [4])])
        #expect(c.bytes(fromClient: true) == [1, 2, 3, 4])
        #expect(c.ended(fromClient: true) == .fin)
        #expect(c.retransmissions.client == 0)
    }

    @Test func duplicatedAndRetransmitted() throws {
        let c = try capture([(1001, 0, [1, 2, 3]), (1001, 0, [1, 2, 3]), (1004, 0, [4, 5]), (1003, 0, [3, 4, 5, 6])])
        #expect(c.bytes(fromClient: true) == [1, 2, 3, 4, 5, 6])
        #expect(c.retransmissions.client == 2)
    }

    @Test func outOfOrderWaitsForTheGap() throws {
        let c = try capture([(1004, 0, [4, 5]), (1006, TCPSegment.fin, [6]), (1001, 0, [1, 2, 3])])
        #expect(c.bytes(fromClient: true) == [1, 2, 3, 4, 5, 6])
        #expect(c.outOfOrder.client == 2)
        #expect(c.ended(fromClient: true) == .fin) // the FIN counts only once every byte is in
        #expect(c.events.last?.time == 3000)
    }

    @Test func aMissingSegmentIsCounted() throws {
        let c = try capture([(1001, 0, [1]), (1003, 0, [3, 4])])
        #expect(c.bytes(fromClient: true) == [1])
        #expect(c.missing.client == 2)
    }

    @Test func sequenceNumbersWrap() throws {
        var records: [(time: Int64, data: [UInt8])] = [(0, PcapBuilder.tcp(from: 1, 5000, to: 2, 80, seq: 0xffff_fffe, flags: TCPSegment.syn))]
        records.append((1, PcapBuilder.tcp(from: 1, 5000, to: 2, 80, seq: 0xffff_ffff, flags: TCPSegment.ack, payload: [1, 2])))
        records.append((2, PcapBuilder.tcp(from: 1, 5000, to: 2, 80, seq: 1, flags: TCPSegment.ack, payload: [3])))
        let c = try Capture(pcap: PcapBuilder.file(records: records))
        #expect(c.connections.first?.bytes(fromClient: true) == [1, 2, 3])
    }
}
