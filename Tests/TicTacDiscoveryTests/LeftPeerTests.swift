import Testing
import TicTacDiscoveryCore
import TicTacTime
import TicTacWire

/// A peer that left goes from the table at once: its signed GOODBYE takes every view (a DNS-SD
/// record lingers a second after its goodbye), and a refused dial takes it too ("ben has left")
/// unless it announced itself since the dial began.
@Suite struct LeftPeerTests {
    /// Ben, seen by a signed ANNOUNCE (at 1 ms) and by DNS-SD.
    static func seen() -> (a: DiscoveryCore, b: DiscoveryCore, hello: [UInt8]) {
        var a = core(1, "ann"), b = signedCore(2, "ben")
        b.handle(.start, now: at(0))
        let hello = b.drainRaw().sent[0]
        a.handle(.datagram(hello, from: "198.18.0.2"), now: at(1))
        a.handle(.sighted(PresencePeer(id: b.local.id, name: "ben", addresses: ["198.18.0.2"], port: 40000,
                                       capabilities: [.tictactoe], versions: 1...2, state: .idle, via: .dnssd)), now: at(2))
        _ = a.drain()
        return (a, b, hello)
    }

    @Test func aSignedGoodbyeRemovesThePeerSeenBothWays() throws {
        var (a, b, _) = Self.seen()
        #expect(a.peer(b.local.id)?.via == [.broadcast, .dnssd])
        b.handle(.stop, now: at(500))
        a.handle(.datagram(b.drainRaw().sent[0], from: "198.18.0.2"), now: at(510))
        let events = a.drain().events
        guard case let .lost(p, reason)? = events.first else { Issue.record("still listed: \(events)"); return }
        #expect(p.id == b.local.id && reason == "ben left")
        #expect(a.peers.isEmpty)
    }

    @Test func aRefusedDialTakesThePeerOffByName() throws {
        var (a, b, _) = Self.seen()
        a.handle(.refused(b.local.id, since: at(100)), now: at(101))
        let events = a.drain().events
        guard case let .lost(p, reason)? = events.first, events.count == 1 else { Issue.record("\(events)"); return }
        #expect(p.name == "ben" && reason == "ben has left")
        #expect(a.peers.isEmpty)
    }

    /// A signed ANNOUNCE heard after the dial began says the peer is there: it stays.
    @Test func aFreshSignedAnnounceOutweighsARefusal() throws {
        var (a, b, _) = Self.seen()
        b.handleTimeout(now: at(2500))
        let fresh = b.drainRaw().sent
        #expect(!fresh.isEmpty)
        for d in fresh { a.handle(.datagram(d, from: "198.18.0.2"), now: at(2501)) }
        _ = a.drain()
        a.handle(.refused(b.local.id, since: at(2400)), now: at(2502))
        #expect(a.drain().events.isEmpty)
        #expect(a.peer(b.local.id) != nil)
        // One heard before the dial began does not.
        a.handle(.refused(b.local.id, since: at(2600)), now: at(2601))
        #expect(a.peers.isEmpty)
    }
}

/// Our own process stopped past a peer's expiry: its ANNOUNCEs of that time wait in the socket,
/// so nothing expires before they are read (Protocol.md §9); a peer that said nothing meanwhile
/// expires one second later.
@Suite struct StalledPresenceTests {
    @Test func aPeerDoesNotExpireWhileWeWereStopped() throws {
        var (a, b, _) = LeftPeerTests.seen()
        a.handle(.unsighted(b.local.id, via: .dnssd, reason: "gone"), now: at(3)) // broadcast only
        _ = a.drain()
        // Stopped from 10 ms to 9 s (ben expires at about 6 s): on waking, before anything is read.
        a.handle(.stalled(.milliseconds(8990)), now: at(9000))
        #expect(try #require(a.pollTimeout()) >= at(10000))
        a.handleTimeout(now: at(9000))
        #expect(a.drain().events.isEmpty, "not expired on the silence of our own stop")
        // Ben's ANNOUNCE of 8 s is read: he stays.
        b.handleTimeout(now: at(8000))
        for d in b.drainRaw().sent { a.handle(.datagram(d, from: "198.18.0.2"), now: at(9001)) }
        a.handleTimeout(now: at(10000))
        #expect(a.peer(b.local.id) != nil)
        // Without it, one second after waking he is gone.
        var (c, d, _) = LeftPeerTests.seen()
        c.handle(.unsighted(d.local.id, via: .dnssd, reason: "gone"), now: at(3))
        c.handle(.stalled(.milliseconds(8990)), now: at(9000))
        c.handleTimeout(now: at(9999))
        #expect(c.peer(d.local.id) != nil)
        c.handleTimeout(now: at(10000))
        #expect(c.peer(d.local.id) == nil)
    }
}
