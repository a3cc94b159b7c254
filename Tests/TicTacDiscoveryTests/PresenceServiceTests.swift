import Testing
import TicTacEngine
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacNet
import TicTacTestSupport
import TicTacTime
import TicTacWire

/// Real sockets in the test's network namespace (tools/test): broadcast reaches the daemons of
/// this host through 127.255.255.255, the same-host case of Protocol.md §7.
@Suite(.serialized) struct PresenceServiceTests {
    final class Seen {
        var peers: [ID128: PresencePeer] = [:]
        var lost: [(ID128, String)] = []
    }

    @Test func threeDaemonsOnOneHostFindEachOtherAndSeeAGoodbyeAtOnce() throws {
        let reactor = try Reactor()
        let port: UInt16 = 52_101
        var nodes: [(PresenceService, Seen)] = []
        for n in 1...3 {
            let seen = Seen()
            let d = try PresenceService(reactor: reactor, local: local(UInt64(n), "p\(n)", port: UInt16(40_000 + n)),
                                        port: port, interfaces: ["lo"], random: SplitMix64(seed: UInt64(n)))
            d.onEvent = { e in
                switch e {
                case let .found(p), let .updated(p): seen.peers[p.id] = p
                case let .lost(p, reason): seen.peers[p.id] = nil; seen.lost.append((p.id, reason))
                }
            }
            nodes.append((d, seen))
        }
        let start = reactor.now
        for (d, _) in nodes { d.start() }
        let found = try run(reactor, for: .seconds(2)) { nodes.allSatisfy { $0.1.peers.count == 2 } }
        #expect(found, "after 2 s: \(nodes.map { $0.1.peers.count })")
        let took = reactor.now - start
        #expect(took < .seconds(1), "found in \(took)")
        let p2 = try #require(nodes[0].1.peers[ID128(high: 2, low: 2)])
        #expect(p2.port == 40_002 && p2.addresses == ["127.0.0.1"] && p2.via == .broadcast && p2.name == "p2")

        // A state change reaches the others well before the next periodic ANNOUNCE.
        var playing = nodes[1].0.core.local
        playing.state = .playing
        nodes[1].0.update(playing)
        let updated = try run(reactor, for: .seconds(1)) { nodes[0].1.peers[playing.id]?.state == .playing }
        #expect(updated)

        nodes[2].0.stop()
        let gone = try run(reactor, for: .seconds(3)) { // the GOODBYE, well before the 6 s expiry
            nodes[0].1.lost.contains { $0.0 == ID128(high: 3, low: 3) } && nodes[1].1.lost.contains { $0.0 == ID128(high: 3, low: 3) }
        }
        #expect(gone)
        #expect(nodes[0].1.lost.first?.1 == "p3 left")
        for (d, _) in nodes { d.stop() }
    }

    @Test func junkOnTheDiscoveryPortIsCountedAndMakesNoPeer() throws {
        let reactor = try Reactor()
        let port: UInt16 = 52_102
        let d = try PresenceService(reactor: reactor, local: local(1, "solo"), port: port, interfaces: ["lo"],
                                    random: SplitMix64(seed: 1))
        var events: [DiscoveryEvent] = []
        d.onEvent = { events.append($0) }
        d.start()
        let sender = try UDPSocket(reactor: reactor, bind: #require(SocketAddress(ip: "127.0.0.1", port: 0))) { _ in }
        defer { sender.close() }
        let target = try #require(SocketAddress(ip: "127.0.0.1", port: port))
        var rng = SplitMix64(seed: 99)
        for i in 0..<200 {
            let bytes = (0..<(i % 90)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            sender.send(bytes, to: target)
        }
        // Our own id, spoofed from another socket: skipped as our own.
        sender.send(Message.goodbye(d.core.local.id).encoded(), to: target)
        // 200 junk, the spoofed GOODBYE, and our own ANNOUNCE and QUERY heard back: every one
        // dropped as malformed, our own, or past the rate of the one source they share.
        #expect(try run(reactor, for: .seconds(3)) { d.core.counters.received >= 203 }, "every datagram read: \(d.core.counters)")
        #expect(events.isEmpty)
        let c = d.core.counters
        #expect(c.received == 203 && c.malformed + c.rateLimited + c.own == 203 && c.malformed > 0)
        #expect(d.core.peers.isEmpty)
        d.stop()
    }
}
