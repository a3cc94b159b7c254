import Testing
import TicTacWire
@testable import TicTacReplay

/// IPv6 fragments (a Fragment extension header, next header 44) are reassembled like IPv4's;
/// a datagram whose pieces never all came leaves its stream incomplete, never a false story.
@Suite struct IPv6FragmentTests {
    typealias Record = NarratorTruthTests.Record

    /// The draw of NarratorTruthTests over IPv6 (fe80::1 and fe80::2), every segment cut into
    /// two fragments; `hopByHop` puts a hop-by-hop options header before the Fragment header.
    static func game(hopByHop: Bool = false) -> [Record] {
        NarratorTruthTests.game().enumerated().flatMap { i, r in
            PcapBuilder.ipv6Fragments(r.data, id: UInt32(0x1000 + i), hopByHop: hopByHop).map { (r.time, $0) }
        }
    }

    @Test func ipv6FragmentsAreReassembled() throws {
        for hopByHop in [false, true] {
            let stories = try NarratorTruthTests.stories(Self.game(hopByHop: hopByHop))
            #expect(stories.filter { $0.event == "move" }.count == 9, "hop-by-hop \(hopByHop)")
            #expect(stories.contains { $0.event == "game-over" && $0.text.contains("a draw") }, "hop-by-hop \(hopByHop)")
            #expect(!stories.contains { $0.abnormal }, "\(stories.filter(\.abnormal).map(\.text))")
            #expect(stories.first?.text.contains("[fe80::1]:5000 -> [fe80::2]:80") == true, "\(stories.first?.text ?? "")")
        }
    }

    /// One fragment of a MOVE segment lost: said where its datagram began, the stream stops at
    /// the hole, and no result is told.
    @Test func aLostIPv6FragmentMakesTheStreamIncomplete() throws {
        var records = Self.game()
        // The second piece of the client's third MOVE (records: SYN, SYN-ACK, INVITE, ACCEPT, then moves, two pieces each).
        let moveSegment = 2 + 2 + 4
        records.remove(at: moveSegment * 2 + 1)
        let stories = try NarratorTruthTests.stories(records)
        let skipped = try #require(stories.first { $0.event == "skipped" })
        #expect(skipped.abnormal && skipped.text.contains("IPv6 fragments") && skipped.text.contains("never completed"), "\(skipped.text)")
        #expect(stories.contains { $0.event == "gap" })
        #expect(!stories.contains { $0.event == "game-over" })
        #expect(stories.contains { $0.event == "unfinished" })
    }

    /// `--json` carries the mark the text shows as `!!` (and the summary counts).
    @Test func jsonSaysWhichStoriesAreAbnormal() throws {
        var records = Self.game()
        records.remove(at: (2 + 2 + 4) * 2 + 1)
        let stories = try NarratorTruthTests.stories(records)
        #expect(stories.contains { $0.abnormal })
        for s in stories {
            #expect(s.json.contains(s.abnormal ? #""abnormal":true"# : #""abnormal":false"#), "\(s.json)")
            #expect(s.line.contains("!! ") == s.abnormal, "\(s.line)")
        }
    }
}

extension PcapBuilder {
    /// An Ethernet + IPv4 packet of `tcp(...)` carried over IPv6 instead (10.0.0.N becomes
    /// fe80::N) and cut into two fragments: the first 8 bytes of its payload, then the rest.
    static func ipv6Fragments(_ packet: [UInt8], id: UInt32, hopByHop: Bool) -> [[UInt8]] {
        let ip = Array(packet[14...])
        let proto = ip[9], body = Array(ip[20...])
        let address: (UInt8) -> [UInt8] = { last in [0xfe, 0x80] + [UInt8](repeating: 0, count: 13) + [last] }
        let options: [UInt8] = hopByHop ? [44, 0, 1, 4, 0, 0, 0, 0] : [] // next: Fragment; PadN
        func piece(_ bytes: ArraySlice<UInt8>, offset: Int, more: Bool) -> [UInt8] {
            let fragment = [proto, 0] + be16(UInt16(offset | (more ? 1 : 0))) + be32(id)
            let payload = options + fragment + bytes
            let header = [0x60, 0, 0, 0] + be16(UInt16(payload.count)) + [hopByHop ? 0 : 44, 64] + address(ip[15]) + address(ip[19])
            return [UInt8](repeating: 0, count: 12) + [0x86, 0xdd] + header + payload
        }
        return [piece(body[..<8], offset: 0, more: true), piece(body[8...], offset: 8, more: false)]
    }
}
