import Testing
import TicTacEngine
@testable import TicTacDiscoveryCore
import TicTacTime
import TicTacWire

/// Nobody can fill the presence table (Protocol.md §7), and DNS-SD is a hint (§10).
@Suite struct TableFillTests {
    /// A forged id per datagram, each from its own spoofed /24.
    private func flood(_ a: inout DiscoveryCore, from first: Int, count: Int, start: Int64, perSecond: Int64) {
        for i in first..<(first + count) {
            let id = ID128(high: 0xf00d, low: UInt64(i))
            a.handle(.datagram(forgedAnnounce(id, interval: 60_000), from: "10.\(i / 250 % 250).\(i % 250).1"),
                     now: at(start + Int64(i - first) * 1000 / perSecond))
        }
    }

    @Test func aFloodOfForgedIdsLeavesRoomForANewPeer() throws {
        var a = core(1, "ann")
        flood(&a, from: 0, count: 6000, start: 0, perSecond: 6000)
        #expect(a.peers.count == 1024)
        _ = a.drain()
        // A signed newcomer starts while the flood goes on (3,000 forged ids a second).
        var b = signedCore(2, "ben")
        b.handle(.start, now: at(1000))
        var seenAt: Instant?
        var t: Int64 = 1000
        var next = 6000
        while t <= 3000 {
            for bytes in b.drainRaw().sent { a.handle(.datagram(bytes, from: "198.18.0.2"), now: at(t)) }
            if seenAt == nil, a.peer(b.local.id) != nil { seenAt = at(t) }
            flood(&a, from: next, count: 300, start: t, perSecond: 3000)
            next += 300
            t += 100
            b.handleTimeout(now: at(t))
        }
        #expect(seenAt.map { $0 <= at(3000) } == true, "seen within 2 s")
        #expect(a.peer(b.local.id)?.signed == true, "and still there: a signed peer outlasts forged hints")
        // A version-1 newcomer (unsigned, a hint) is seen at once too.
        a.handle(.datagram(forgedAnnounce(ID128(high: 5, low: 5), name: "old"), from: "198.18.0.5"), now: at(3001))
        #expect(a.peer(ID128(high: 5, low: 5)) != nil)
    }

    @Test func oneHostCannotFillTheTableSlowly() throws {
        var a = core(1, "ann")
        // One host, unspoofed, a new id every 60 ms (under the 20/s rate), each claiming 60 s.
        for i in 0..<1000 {
            a.handle(.datagram(forgedAnnounce(ID128(high: 0xbad, low: UInt64(i)), interval: 60_000), from: "198.18.0.66"),
                     now: at(Int64(i) * 60))
        }
        #expect(a.counters.rateLimited == 0)
        #expect(a.peers.count == 16, "one address holds 16 ids at most")
        // Its neighbours in the /24 share 64.
        for i in 0..<100 {
            a.handle(.datagram(forgedAnnounce(ID128(high: 0xbee, low: UInt64(i))), from: "198.18.0.\(100 + i)"), now: at(60_000))
        }
        #expect(a.peers.count == 64)
        // Daemons sharing a host are signed: their own share (64), not the unsigned one's.
        var sharing = signedCore(3, "cat")
        sharing.handle(.start, now: at(60_000))
        for bytes in sharing.drainRaw().sent { a.handle(.datagram(bytes, from: "198.18.0.66"), now: at(60_000)) }
        #expect(a.peers.count == 65)
        // A new peer from elsewhere is seen at once.
        var b = signedCore(2, "ben")
        b.handle(.start, now: at(60_001))
        for bytes in b.drainRaw().sent { a.handle(.datagram(bytes, from: "198.51.100.2"), now: at(60_001)) }
        #expect(a.peer(b.local.id) != nil)
        // The 60 s claimed counts as 10 s: the forged ones are gone 30 s after their last ANNOUNCE.
        a.handleTimeout(now: at(90_001))
        #expect(!a.peers.contains { $0.id.high == 0xbad || $0.id.high == 0xbee })
    }

    @Test func prefixesAreSlash24AndSlash64() {
        #expect(DiscoveryCore.prefix(of: "198.18.0.66") == "198.18.0")
        #expect(DiscoveryCore.prefix(of: "fe80::1%2") == "fe80:0:0:0")
        #expect(DiscoveryCore.prefix(of: "2001:db8:1:2:3::4") == "2001:db8:1:2")
    }

    @Test func dnssdNeverOverridesASignedAnnounce() throws {
        var a = core(1, "ann"), b = signedCore(2, "ben")
        b.handle(.start, now: at(0))
        a.handle(.datagram(b.drainRaw().sent[0], from: "198.18.0.2"), now: at(0))
        _ = a.drain()
        let fake = PresencePeer(id: b.local.id, name: "mallory", addresses: ["198.18.0.66"], port: 6666,
                                capabilities: [.tictactoe, .field], versions: 1...1, state: .busy, via: .dnssd)
        a.handle(.sighted(fake), now: at(100))
        let p = try #require(a.peer(b.local.id))
        #expect(p.name == "ben" && p.port == 40000 && p.state == .idle && p.capabilities == [.tictactoe] && p.signed)
        // Its address is a hint to dial (the handshake proves who answers), and DNS-SD is named.
        #expect(p.addresses.contains("198.18.0.66") && p.via == [.broadcast, .dnssd])
    }

    @Test func withoutASignedAnnounceTheNewestSourceSaysPortAndState() throws {
        var a = core(1, "ann")
        let id = ID128(high: 3, low: 3)
        a.handle(.datagram(forgedAnnounce(id, name: "old", port: 1000, state: 0), from: "198.18.0.3"), now: at(0))
        a.handle(.sighted(PresencePeer(id: id, name: "old #2", addresses: ["198.18.0.3"], port: 2000,
                                       capabilities: [.tictactoe], versions: 1...1, state: .playing, via: .dnssd)), now: at(10))
        let p = try #require(a.peer(id))
        // The name as broadcast carries it (DNS-SD's may be renamed); port and state the newest.
        #expect(p.name == "old" && p.port == 2000 && p.state == .playing && !p.signed)
    }
}
