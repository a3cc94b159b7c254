import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacReplay

/// Captures built here, each with one flaw or one kind of noise: the story tells what the
/// capture holds and nothing more.
@Suite struct NarratorTruthTests {
    typealias Record = (time: Int64, data: [UInt8])

    /// A 3 x 3 game that ends in a draw: O (the client) 1 9 8 3 4, X (the server) 5 2 7 6.
    static let drawCells: [(fromClient: Bool, cell: UInt16)] = [
        (true, 0), (false, 4), (true, 8), (false, 1), (true, 7), (false, 6), (true, 2), (false, 5), (true, 3),
    ]

    /// The game as segments on 10.0.0.1:5000 -> 10.0.0.2:80 (SYN, SYN-ACK, then the frames),
    /// each direction's data from sequence number 1001; `keep` decides which MOVE is captured.
    static func game(keep: (Int) -> Bool = { _ in true }, split: Bool = false) -> [Record] {
        var records: [Record] = [
            (1_000_000_000, PcapBuilder.tcp(from: 1, 5000, to: 2, 80, seq: 1000, flags: TCPSegment.syn)),
            (1_000_100_000, PcapBuilder.tcp(from: 2, 80, to: 1, 5000, seq: 1000, flags: TCPSegment.syn | TCPSegment.ack)),
        ]
        var seq: [UInt32] = [1001, 1001]
        var t: Int64 = 1_001_000_000
        func send(_ fromClient: Bool, _ message: Message, keep: Bool = true) {
            let bytes = message.encoded()
            let side = fromClient ? 0 : 1
            if keep {
                let packet = fromClient
                    ? PcapBuilder.tcp(from: 1, 5000, to: 2, 80, seq: seq[side], flags: TCPSegment.ack, payload: bytes)
                    : PcapBuilder.tcp(from: 2, 80, to: 1, 5000, seq: seq[side], flags: TCPSegment.ack, payload: bytes)
                if split {
                    for piece in PcapBuilder.fragments(packet, id: UInt16(records.count)) { records.append((t, piece)) }
                } else {
                    records.append((t, packet))
                }
            }
            seq[side] &+= UInt32(bytes.count)
            t += 10_000_000
        }
        send(true, .invite(Invite(gameID: ID128(high: 1, low: 2))))
        send(false, .accept(gameID: ID128(high: 1, low: 2)))
        for (i, m) in drawCells.enumerated() { send(m.fromClient, .move(cell: m.cell), keep: keep(i)) }
        return records
    }

    static func stories(_ records: [Record]) throws -> [Story] {
        Narrator.tell(try Capture(pcap: PcapBuilder.file(records: records)))
    }

    @Test func theWholeGameIsADraw() throws {
        let stories = try Self.stories(Self.game())
        #expect(stories.filter { $0.event == "move" }.count == 9)
        #expect(stories.contains { $0.event == "game-over" && $0.text.contains("a draw") })
        #expect(!stories.contains { $0.event == "unfinished" })
    }

    /// The client's MOVE 8 (its third) is missing: its stream stops there, said at that point,
    /// and no result is told; the server's later moves are told without a board.
    @Test func aHoleStopsThatStreamWhereItIsAndNoResultIsInvented() throws {
        let stories = try Self.stories(Self.game { $0 != 4 })
        let gap = try #require(stories.firstIndex { $0.event == "gap" })
        let invite = Message.invite(Invite(gameID: ID128(high: 1, low: 2))).encoded().count, move = Message.move(cell: 7).encoded().count
        #expect(stories[gap].text == "10.0.0.1:5000 -> 10.0.0.2:80: \(move) bytes missing after seq \(1001 + invite + 2 * move): "
                + "the rest of this stream is not told")
        #expect(stories[gap].abnormal)
        // Told where the hole showed: before the server's next move, not at the end.
        let afterGap = stories[(gap + 1)...].filter { $0.event == "move" }
        #expect(!afterGap.isEmpty)
        #expect(afterGap.allSatisfy { $0.text.contains("not known") })
        #expect(!stories.contains { $0.event == "game-over" })
        #expect(stories.last { $0.event == "unfinished" }?.text == "the game's end is not known: part of a stream is missing")
    }

    /// Every segment split into two IPv4 fragments: reassembled, the game is the same draw.
    @Test func ipv4FragmentsAreReassembled() throws {
        let stories = try Self.stories(Self.game(split: true))
        #expect(stories.filter { $0.event == "move" }.count == 9)
        #expect(stories.contains { $0.event == "game-over" && $0.text.contains("a draw") })
        #expect(!stories.contains { $0.abnormal })
    }

    /// A fragment whose partner never came: said, and the stream it carried has a hole.
    @Test func aLostFragmentMakesTheStreamIncomplete() throws {
        var records = Self.game(split: true)
        let lost = records.firstIndex { PcapBuilder.fragmentOffset($0.data) > 0 && $0.time > 1_040_000_000 }
        records.remove(at: try #require(lost))
        let stories = try Self.stories(records)
        #expect(stories.contains { $0.event == "skipped" && $0.text.contains("never completed") && $0.abnormal })
        #expect(stories.contains { $0.event == "gap" })
        #expect(!stories.contains { $0.event == "game-over" })
    }

    /// `quick`: both HELLOs set capability bit 7, so the roll is hashed with BLAKE2b (Protocol.md §8).
    @Test(arguments: [false, true])
    func theRollsAndWhoMovesFirstAreTold(quick: Bool) throws {
        let nonces = [ID128(high: 3, low: 4), ID128(high: 5, low: 6)]
        let rolls: [UInt32] = [123_456, 654_321]
        var records = Array(Self.game().prefix(2))
        var seq: [UInt32] = [1001, 1001]
        var messages: [(Bool, Message)] = []
        let caps: Capabilities = quick ? [.tictactoe, .quickRoll] : .tictactoe
        for n in UInt64(1)...2 {
            messages.append((n == 1, .hello(Hello(instanceID: ID128(high: n, low: n), name: try DisplayName(n == 1 ? "ann" : "ben"),
                                                  capabilities: caps, publicKey: [UInt8](repeating: UInt8(n), count: 32),
                                                  nonce: ID128(high: n, low: 0)))))
        }
        for side in 0..<2 {
            messages.append((side == 0, .rollCommit(commitment: Commitment.make(roll: rolls[side], nonce: nonces[side], quick: quick))))
        }
        for side in 0..<2 { messages.append((side == 0, .roll(value: rolls[side], nonce: nonces[side]))) }
        for (i, (fromClient, m)) in messages.enumerated() {
            let side = fromClient ? 0 : 1, bytes = m.encoded()
            records.append((1_100_000_000 + Int64(i) * 1000, fromClient
                ? PcapBuilder.tcp(from: 1, 5000, to: 2, 80, seq: seq[side], flags: TCPSegment.ack, payload: bytes)
                : PcapBuilder.tcp(from: 2, 80, to: 1, 5000, seq: seq[side], flags: TCPSegment.ack, payload: bytes)))
            seq[side] &+= UInt32(bytes.count)
        }
        let stories = try Self.stories(records)
        let d = try #require(FirstMove.decide(
            ourCommitment: Commitment.make(roll: rolls[0], nonce: nonces[0], quick: quick), ourSecret: Commitment.secret(roll: rolls[0], nonce: nonces[0]),
            theirCommitment: Commitment.make(roll: rolls[1], nonce: nonces[1], quick: quick),
            theirSecret: Commitment.secret(roll: rolls[1], nonce: nonces[1]), quick: quick))
        #expect(!stories.contains { $0.abnormal }, "\(stories.filter(\.abnormal).map(\.text))")
        let start = try #require(stories.first { $0.event == "rolls" })
        let (ann, ben) = ("ann@10.0.0.1:5000", "ben@10.0.0.2:80")
        #expect(start.text == "game starts: \(ann) rolled \(d.ourRoll), \(ben) rolled \(d.theirRoll): "
                + "\(d.weMoveFirst ? ann : ben) moves first and plays O, \(d.weMoveFirst ? ben : ann) plays X")
        #expect(stories.last?.text == "the capture ends with the game unfinished")
    }

    @Test func mdnsAndTheOriginalSphereNetPacketAreOtherNotAbnormal() throws {
        let sphere = LegacySphere(x: 10, y: 20, red: 255, green: 0, blue: 16)
        let stories = try Self.stories([
            (1_000_000_000, PcapBuilder.udp(from: 1, 5353, to: 251, 5353, payload: [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0])),
            (1_100_000_000, PcapBuilder.udp(from: 3, 40000, to: 255, 5001, payload: sphere.bytes)),
        ])
        #expect(stories.count == 2)
        #expect(stories.allSatisfy { $0.other && !$0.abnormal })
        #expect(stories[1].text == "original SphereNet position from 10.0.0.3:40000: (10, 20), colour #ff0010")
        #expect(stories[0].line.hasPrefix("0.000s  -- mDNS"))
        #expect(Narrator.summary(stories) == "nothing abnormal; 2 other packet(s), not tictac and no fault (mDNS, SphereNet, ICMP), marked --")
    }

    @Test func fieldMessagesAreToldByName() throws {
        let id = ID128(high: 7, low: 8)
        let leave = Message.fieldLeave(id, sequence: 9).encoded()
        let stories = try Self.stories([(1_000_000_000, PcapBuilder.udp(from: 1, 5001, to: 255, 5001, payload: leave))])
        #expect(stories.map(\.text) == ["FIELD_LEAVE from 10.0.0.1:5001 (\(id.description.prefix(8))), sequence 9"])
    }

    @Test func aSignedAnnounceIsNormalAndSaysSigned() throws {
        let announce = Announce(instanceID: ID128(high: 1, low: 1), name: try DisplayName("ann"), tcpPort: 7000, capabilities: .tictactoe)
        let bytes = try #require(PresenceSeal.seal(.announce(announce), version: 2, publicKey: [UInt8](repeating: 9, count: 32),
                                                   timestamp: 1, sign: { _ in [UInt8](repeating: 1, count: 64) }))
        let stories = try Self.stories([(1_000_000_000, PcapBuilder.udp(from: 1, 51515, to: 255, 51515, payload: bytes))])
        #expect(stories.count == 1)
        #expect(!stories[0].abnormal)
        #expect(stories[0].text.contains(", signed) listens on TCP 7000"))
    }

    /// An ICMPv6 packet is told at its own time, as other.
    @Test func icmpv6IsOtherAtItsOwnTime() throws {
        let icmp = PcapBuilder.ethernetIPv6(next: 58, body: [135, 0, 0, 0] + [UInt8](repeating: 0, count: 20))
        let stories = try Self.stories([
            (1_000_000_000, PcapBuilder.udp(from: 1, 5353, to: 251, 5353, payload: [0, 0])),
            (3_500_000_000, icmp),
        ])
        let told = try #require(stories.last)
        #expect(told.at == 2.5)
        #expect(told.other && !told.abnormal)
    }

    /// Version 2: after each side's PROOF every frame is sealed; said once per stream.
    @Test func aSealedStreamIsSaidOnceAndNeverRead() throws {
        var records = Array(Self.game().prefix(2))
        var seq: [UInt32] = [1001, 1001]
        func hello(_ n: UInt64) throws -> Message {
            .hello(Hello(instanceID: ID128(high: n, low: n), name: try DisplayName(n == 1 ? "ann" : "ben"), capabilities: .tictactoe,
                         publicKey: [UInt8](repeating: UInt8(n), count: 32), nonce: ID128(high: n, low: 0),
                         ephemeralKey: [UInt8](repeating: UInt8(n + 2), count: 32)))
        }
        let sealed = SealedFrame.header(version: 2, type: 0x24, flags: 0, sealedLength: 20) + [UInt8](repeating: 0xa5, count: 20)
        let frames: [(Bool, [UInt8])] = [
            (true, try hello(1).encoded(version: 2)), (false, try hello(2).encoded(version: 2)),
            (true, Message.proof(signature: [UInt8](repeating: 1, count: 64)).encoded(version: 2)),
            (false, Message.proof(signature: [UInt8](repeating: 2, count: 64)).encoded(version: 2)),
            (true, sealed), (false, sealed), (true, sealed + sealed),
        ]
        for (i, (fromClient, bytes)) in frames.enumerated() {
            let side = fromClient ? 0 : 1
            records.append((1_100_000_000 + Int64(i) * 1000, fromClient
                ? PcapBuilder.tcp(from: 1, 5000, to: 2, 80, seq: seq[side], flags: TCPSegment.ack, payload: bytes)
                : PcapBuilder.tcp(from: 2, 80, to: 1, 5000, seq: seq[side], flags: TCPSegment.ack, payload: bytes)))
            seq[side] &+= UInt32(bytes.count)
        }
        records.append((1_200_000_000, PcapBuilder.tcp(from: 1, 5000, to: 2, 80, seq: seq[0], flags: TCPSegment.ack | TCPSegment.fin)))
        let stories = try Self.stories(records)
        let told = stories.filter { $0.event == "sealed" }.map(\.text)
        #expect(told == ["ann@10.0.0.1:5000: sealed (protocol version 2): not told", "ben@10.0.0.2:80: sealed (protocol version 2): not told"])
        #expect(!stories.contains { $0.abnormal })
        #expect(stories.last?.text == "ann@10.0.0.1:5000 closed (FIN)")
    }

    /// A capture that began after a version-2 handshake: a sealed frame is never read as a
    /// message, even one whose ciphertext happens to decode (here an empty-looking RESET).
    @Test func aSealedStreamSeenWithoutItsHandshakeIsStillSealed() throws {
        let tagOnly = SealedFrame.header(version: 2, type: Message.Kind.reset.rawValue, flags: 0, sealedLength: 16)
            + [9, 0, 13] + [UInt8](repeating: 0, count: 13) // one well-formed unknown field: RESET would decode
        #expect((try? Message(frame: Frame.decodeDatagram(tagOnly))) == .reset)
        let stories = try Self.stories([(1_000_000_000, PcapBuilder.tcp(from: 1, 5000, to: 2, 80, seq: 7, flags: TCPSegment.ack, payload: tagOnly))])
        #expect(stories.map(\.event) == ["connection", "sealed"])
    }
}

extension PcapBuilder {
    /// An Ethernet + IPv4 packet cut into two fragments (the first 8 bytes of its payload, then
    /// the rest), with identification `id`.
    static func fragments(_ packet: [UInt8], id: UInt16) -> [[UInt8]] {
        let ether = Array(packet[..<14]), ip = Array(packet[14...])
        let header = Array(ip[..<20]), body = Array(ip[20...])
        func piece(_ bytes: ArraySlice<UInt8>, offset: Int, more: Bool) -> [UInt8] {
            var h = header
            h[2] = UInt8((20 + bytes.count) >> 8); h[3] = UInt8((20 + bytes.count) & 0xff)
            h[4] = UInt8(id >> 8); h[5] = UInt8(id & 0xff)
            let flags = (more ? 0x2000 : 0) | offset / 8
            h[6] = UInt8(flags >> 8); h[7] = UInt8(flags & 0xff)
            return ether + h + bytes
        }
        return [piece(body[..<8], offset: 0, more: true), piece(body[8...], offset: 8, more: false)]
    }

    /// The fragment offset of an Ethernet + IPv4 packet, in bytes.
    static func fragmentOffset(_ packet: [UInt8]) -> Int { ((Int(packet[20]) << 8 | Int(packet[21])) & 0x1fff) * 8 }

    /// Ethernet + IPv6 (fe80::1 -> ff02::1) with the given next header.
    static func ethernetIPv6(next: UInt8, body: [UInt8]) -> [UInt8] {
        let address: (UInt8) -> [UInt8] = { last in [0xfe, 0x80] + [UInt8](repeating: 0, count: 13) + [last] }
        let ip = [0x60, 0, 0, 0] + be16(UInt16(body.count)) + [next, 255] + address(1) + address(2) + body
        return [UInt8](repeating: 0, count: 12) + [0x86, 0xdd] + ip
    }
}
