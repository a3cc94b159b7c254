import Testing
import TicTacEngine
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacTime
import TicTacWire

func local(_ n: UInt64, _ name: String, port: UInt16 = 40000) -> LocalPresence {
    LocalPresence(id: ID128(high: n, low: n), name: name.display,
                  port: port, capabilities: [.tictactoe])
}

func core(_ n: UInt64, _ name: String, interval: Duration = .seconds(2), seed: UInt64 = 1) -> DiscoveryCore {
    var config = DiscoveryConfig()
    config.interval = interval
    return DiscoveryCore(local: local(n, name), config: config, random: SplitMix64(seed: seed &+ n))
}

extension DiscoveryCore {
    /// Drains the actions: datagrams broadcast, and events.
    mutating func drain() -> (sent: [Message], events: [DiscoveryEvent]) {
        var sent: [Message] = [], events: [DiscoveryEvent] = []
        for action in pollActions() {
            switch action {
            case let .broadcast(bytes): if let m = try? Message(datagram: bytes) { sent.append(m) }
            case let .event(e): events.append(e)
            }
        }
        return (sent, events)
    }
}

extension String {
    /// A display name for tests (the callers pass valid ones).
    var display: DisplayName {
        do { return try DisplayName(self) } catch { preconditionFailure("bad test name \(self)") }
    }
}

func at(_ ms: Int64) -> Instant { Instant(nanoseconds: ms * 1_000_000) }

@Suite struct DiscoveryCoreTests {
    @Test func startAnnouncesThenQueries() throws {
        var a = core(1, "ann")
        a.handle(.start, now: at(0))
        let sent = a.drain().sent
        #expect(sent.count == 2)
        guard case let .announce(an) = sent.first, case let .query(from) = sent.last else {
            Issue.record("expected ANNOUNCE then QUERY, got \(sent)")
            return
        }
        #expect(an.instanceID == a.local.id && an.tcpPort == 40000 && an.intervalMillis == 2000 && an.state == 0)
        #expect(from == a.local.id)
    }

    @Test func anAnnouncementMakesAPeerAtItsSourceAddress() throws {
        var a = core(1, "ann"), b = core(2, "ben")
        b.handle(.start, now: at(0))
        for m in b.drain().sent { a.handle(.datagram(m.encoded(), from: "198.18.0.2"), now: at(1)) }
        let events = a.drain().events
        #expect(events.count == 1)
        guard case let .found(p) = events.first else { Issue.record("no peer found: \(events)"); return }
        #expect(p.id == b.local.id && p.name == "ben" && p.addresses == ["198.18.0.2"] && p.port == 40000)
        #expect(p.via == .broadcast && p.state == .idle)
    }

    @Test func aSilentPeerExpiresAfterThreeOfItsOwnIntervals() throws {
        var a = core(1, "ann"), b = core(2, "ben", interval: .seconds(1))
        b.handle(.start, now: at(0))
        for m in b.drain().sent { a.handle(.datagram(m.encoded(), from: "198.18.0.2"), now: at(0)) }
        _ = a.drain()
        a.handleTimeout(now: at(2999))
        #expect(a.drain().events.isEmpty)
        #expect(a.pollTimeout().map { $0 <= at(3000) } == true)
        a.handleTimeout(now: at(3000))
        let events = a.drain().events
        guard case let .lost(p, reason) = events.first else { Issue.record("not lost: \(events)"); return }
        #expect(p.id == b.local.id && reason.contains("3.0 seconds"))
        #expect(a.peers.isEmpty)
    }

    @Test func goodbyeRemovesAtOnceButOnlyFromWhereThePeerWasHeard() throws {
        var a = core(1, "ann"), b = core(2, "ben")
        b.handle(.start, now: at(0))
        for m in b.drain().sent { a.handle(.datagram(m.encoded(), from: "198.18.0.2"), now: at(0)) }
        _ = a.drain()
        b.handle(.stop, now: .zero)
        let bye = b.drain().sent
        #expect(bye == [.goodbye(b.local.id)])
        a.handle(.datagram(bye[0].encoded(), from: "198.18.0.66"), now: at(10)) // a copy of its id, elsewhere
        #expect(a.drain().events.isEmpty && a.counters.spoofedGoodbye == 1 && a.peers.count == 1)
        a.handle(.datagram(bye[0].encoded(), from: "198.18.0.2"), now: at(20))
        guard case let .lost(_, reason) = a.drain().events.first else { Issue.record("not lost"); return }
        #expect(reason == "ben left")
    }

    @Test func aQueryIsAnsweredWithinTheJitterAndOneAnnounceAnswersMany() throws {
        var a = core(1, "ann")
        a.handle(.start, now: at(0))
        _ = a.drain()
        let query = Message.query(from: ID128(high: 9, low: 9)).encoded()
        a.handle(.datagram(query, from: "198.18.0.9"), now: at(1000))
        a.handle(.datagram(query, from: "198.18.0.8"), now: at(1001))
        let due = try #require(a.pollTimeout())
        #expect(due >= at(1000) && due <= at(1100))
        a.handleTimeout(now: due)
        let sent = a.drain().sent
        #expect(sent.count == 1)
        if case .announce = sent.first {} else { Issue.record("expected ANNOUNCE, got \(sent)") }
        // Nothing more owed until the periodic one (1.8..2.2 s later).
        let next = try #require(a.pollTimeout())
        #expect(next >= due + .milliseconds(1800) && next <= due + .milliseconds(2200))
    }

    @Test func neverTwoAnnouncesWithin250ms() throws {
        var a = core(1, "ann")
        a.handle(.start, now: at(0))
        _ = a.drain()
        var changed = a.local
        changed.state = .playing
        a.handle(.update(changed), now: at(10))
        #expect(a.pollTimeout() == at(250))
        a.handleTimeout(now: at(100))
        #expect(a.drain().sent.isEmpty)
        a.handleTimeout(now: at(250))
        guard case let .announce(an) = a.drain().sent.first else { Issue.record("no ANNOUNCE"); return }
        #expect(an.state == PresenceState.playing.rawValue)
    }

    @Test func periodicAnnouncesKeepTheirRateAndDrift() throws {
        var a = core(1, "ann")
        a.handle(.start, now: at(0))
        var count = 0, t = at(0)
        var gaps: Set<Int64> = []
        while let next = a.pollTimeout(), next < at(60_000) {
            gaps.insert((next - t).components.seconds * 1000 + (next - t).components.attoseconds / 1_000_000_000_000_000)
            t = next
            a.handleTimeout(now: t)
            count += a.drain().sent.count
        }
        #expect(count >= 27 && count <= 34) // 60 s / (1.8..2.2 s)
        #expect(gaps.count > 5) // jittered, not a fixed period
        #expect(gaps.allSatisfy { $0 >= 1800 && $0 <= 2200 })
    }

    @Test func ownAndBadDatagramsMakeNoPeerAndAreCounted() throws {
        var a = core(1, "ann")
        a.handle(.start, now: at(0))
        for m in a.drain().sent { a.handle(.datagram(m.encoded(), from: "127.0.0.1"), now: at(1)) }
        #expect(a.counters.own == 2)
        var announce = Message.announce(Announce(instanceID: ID128(high: 5, low: 5), name: "x".display,
                                                 tcpPort: 1, capabilities: [])).encoded()
        let bad: [[UInt8]] = [
            [], [0x54, 0x54, 0x41], Array(repeating: 0xff, count: 100),
            Array(announce.dropLast()),                                   // truncated
            announce + [0],                                               // bytes after the frame
            { var b = announce; b[4] = 9; return b }(),                   // a future version
            Message.move(cell: 1).encoded(),                              // a TCP message
        ]
        for (i, bytes) in bad.enumerated() { a.handle(.datagram(bytes, from: "198.18.0.\(i + 10)"), now: at(2)) }
        a.handle(.datagram(Message.sphere(Sphere(instanceID: ID128(high: 5, low: 5), sequence: 1, x: 0, y: 0, red: 0, green: 0, blue: 0,
                                          name: try DisplayName("e"))).encoded(),
                   from: "198.18.0.20"), now: at(2))
        #expect(a.counters.malformed == bad.count - 1)
        #expect(a.counters.unexpected == 2) // the TCP message and the SPHERE: valid, but not discovery
        #expect(a.peers.isEmpty && a.drain().events.isEmpty)
        announce[announce.count - 1] = 0 // interval 0x0700 + 0 is still in range; make it 0 instead:
        announce.replaceSubrange((announce.count - 2)..., with: [0, 0])
        a.handle(.datagram(announce, from: "198.18.0.30"), now: at(3))
        #expect(a.counters.malformed == bad.count && a.peers.isEmpty)
    }

    @Test func aFloodFromOneSourceIsRateLimited() throws {
        var a = core(1, "ann")
        let b = Message.announce(Announce(instanceID: ID128(high: 2, low: 2), name: "x".display,
                                          tcpPort: 7, capabilities: [])).encoded()
        for i in 0..<10_000 { a.handle(.datagram(b, from: "198.18.0.2"), now: at(Int64(i / 10))) } // 10,000 in 1 s
        #expect(a.counters.rateLimited >= 10_000 - 40 - 21)
        #expect(a.counters.rateLimited < 10_000)
        #expect(a.peers.count == 1) // the legitimate first ones still count
    }

    @Test func forgedSourcesCostBoundedMemory() throws {
        var config = DiscoveryConfig()
        config.maxSources = 100
        var a = DiscoveryCore(local: local(1, "ann"), config: config, random: SplitMix64(seed: 1))
        let junk: [UInt8] = [1, 2, 3]
        for i in 0..<1000 { a.handle(.datagram(junk, from: "10.0.\(i / 250).\(i % 250)"), now: at(0)) }
        // Every bucket is fresh and busy at t = 0: past the bound, new sources are refused.
        #expect(a.counters.rateLimited == 900)
        for i in 0..<10 { a.handle(.datagram(junk, from: "10.9.9.\(i)"), now: at(10_000)) } // idle ones forgotten
        #expect(a.counters.rateLimited == 900 && a.counters.malformed == 110)
    }

    @Test func forgedIdsFromManySourcesCannotGrowThePresenceTablePastItsBound() throws {
        var config = DiscoveryConfig()
        config.maxPeers = 50
        var a = DiscoveryCore(local: local(1, "ann"), config: config, random: SplitMix64(seed: 1))
        func announce(_ n: UInt64) -> [UInt8] {
            Message.announce(Announce(instanceID: ID128(high: 100 + n, low: n), name: "x".display,
                                      tcpPort: 7, capabilities: [.tictactoe])).encoded()
        }
        // A peer heard twice (renewed) before the flood.
        a.handle(.datagram(announce(999), from: "198.18.0.5"), now: at(0))
        a.handle(.datagram(announce(999), from: "198.18.0.5"), now: at(0))
        for n in 0..<200 as Range<UInt64> { a.handle(.datagram(announce(n), from: "10.\(n).0.1"), now: at(0)) }
        // The bound holds: each newcomer pushed out the least recently heard of those heard once.
        #expect(a.peers.count == 50 && a.counters.evicted == 151 && a.counters.tableFull == 0)
        #expect(a.peer(ID128(high: 1099, low: 999)) != nil, "a renewed peer outlasts a flood of ids heard once")
        // A DNS-SD sighting is held to the same bound, and finds room the same way.
        a.handle(.sighted(PresencePeer(id: ID128(high: 9, low: 9), name: "late", addresses: ["198.18.0.9"], port: 1,
                  capabilities: [.tictactoe], versions: 1...1, state: .idle, via: .dnssd)), now: at(1))
        #expect(a.peers.count == 50 && a.peers.contains { $0.name == "late" })
    }

    @Test func dnssdAndBroadcastMergeByInstanceID() throws {
        var a = core(1, "ann"), b = core(2, "ben", interval: .seconds(1))
        a.handle(.sighted(PresencePeer(id: b.local.id, name: "ben #2", addresses: ["198.18.0.2"], port: 40000,
                  capabilities: [.tictactoe], versions: 1...1, state: .idle, via: .dnssd)), now: at(0))
        guard case let .found(p0) = a.drain().events.first else { Issue.record("not found"); return }
        #expect(p0.via == .dnssd && p0.name == "ben #2")
        b.handle(.start, now: at(0))
        for m in b.drain().sent { a.handle(.datagram(m.encoded(), from: "198.18.1.2"), now: at(5)) }
        guard case let .updated(p1) = a.drain().events.first else { Issue.record("not updated"); return }
        #expect(p1.via == [.broadcast, .dnssd] && p1.name == "ben" && Set(p1.addresses) == ["198.18.0.2", "198.18.1.2"])
        a.handle(.unsighted(b.local.id, via: .dnssd, reason: "removed"), now: at(10))
        guard case let .updated(p2) = a.drain().events.first else { Issue.record("not updated"); return }
        #expect(p2.via == .broadcast)
        a.handleTimeout(now: at(3005))
        guard case .lost = a.drain().events.first else { Issue.record("not lost"); return }
    }

    /// A peer heard by broadcast that falls silent without GOODBYE (its host cut off) is lost when
    /// its broadcast view expires, DNS-SD view and all: Avahi would keep its records to their TTL
    /// (120 s) and the lobby would list a peer nobody can reach. One seen by DNS-SD alone (across
    /// a router) stays until DNS-SD says it is gone.
    @Test func aSilentPeerHeardByBroadcastTakesItsDNSSDViewWithIt() throws {
        var a = core(1, "ann"), b = core(2, "ben")
        b.handle(.start, now: at(0))
        let announce = try #require(b.drain().sent.first { if case .announce = $0 { true } else { false } })
        a.handle(.datagram(announce.encoded(), from: "198.18.0.2"), now: at(0))
        a.handle(.sighted(PresencePeer(id: b.local.id, name: "ben", addresses: ["fe80::2%2"], port: 40000,
                  capabilities: [.tictactoe], versions: 1...2, state: .playing, via: .dnssd)), now: at(100))
        let far = ID128(high: 77, low: 77)
        a.handle(.sighted(PresencePeer(id: far, name: "far", addresses: ["198.18.1.7"], port: 40000,
                  capabilities: [.tictactoe], versions: 1...2, state: .idle, via: .dnssd)), now: at(100))
        _ = a.drain()
        a.handleTimeout(now: at(5_999))
        #expect(a.peers.count == 2)
        a.handleTimeout(now: at(6_000)) // three of ben's 2 s intervals
        let events = a.drain().events
        guard case let .lost(p, reason) = events.first else { Issue.record("not lost: \(events)"); return }
        #expect(p.id == b.local.id && reason == "not heard from for 6.0 seconds")
        #expect(a.peers.map(\.name) == ["far"])
        a.handleTimeout(now: at(600_000))
        #expect(a.peers.map(\.name) == ["far"], "DNS-SD alone: no liveness to expire it")
    }

    @Test func heardByTurnsAtTwoAddressesIsNotAnUpdateEachTime() throws {
        // IPv4 by broadcast, IPv6 link-local by DNS-SD, by turns (as on a LAN with Avahi): the
        // order of the addresses (freshest first) moves every time, and is kept, but only a
        // change a reader can see (a new address, a new state) is told.
        var a = core(1, "ann"), b = core(2, "ben")
        let v6 = "fe80::2%2"
        func dnssd(_ ms: Int64, state: PresenceState = .idle) {
            a.handle(.sighted(PresencePeer(id: b.local.id, name: "ben", addresses: [v6], port: 40000,
                      capabilities: [.tictactoe], versions: ProtocolVersion.supported, state: state, via: .dnssd)), now: at(ms))
        }
        b.handle(.start, now: at(0))
        let announce = try #require(b.drain().sent.first { if case .announce = $0 { true } else { false } })
        a.handle(.datagram(announce.encoded(), from: "198.18.0.2"), now: at(0))
        dnssd(100)
        #expect(a.drain().events.count == 2) // found, then updated with its second address and source
        for round in 1...5 {
            a.handle(.datagram(announce.encoded(), from: "198.18.0.2"), now: at(Int64(round) * 1000))
            #expect(a.peers.first?.addresses == ["198.18.0.2", v6])
            dnssd(Int64(round) * 1000 + 500)
            #expect(a.peers.first?.addresses == [v6, "198.18.0.2"])
        }
        #expect(a.drain().events.isEmpty, "ten sightings that changed only the order")
        dnssd(6000, state: .playing)
        guard case let .updated(p) = a.drain().events.first else { Issue.record("a new state is an update"); return }
        #expect(p.state == .playing && p.addresses == [v6, "198.18.0.2"])
        a.handle(.datagram(announce.encoded(), from: "198.18.0.9"), now: at(7000))
        #expect(a.drain().events.count == 1, "a new address is an update")
    }

    @Test func theFieldsServiceAddsItsPortAndTheFieldButNotItsState() throws {
        var a = core(1, "ann"), b = core(2, "ben", interval: .seconds(1))
        b.handle(.update(LocalPresence(id: b.local.id, name: b.local.name, port: 7000, capabilities: [.tictactoe, .bot],
                               state: .playing)), now: at(0))
        b.handle(.start, now: at(0))
        for m in b.drain().sent { a.handle(.datagram(m.encoded(), from: "198.18.0.2"), now: at(1)) }
        _ = a.drain()
        // `_spherenet._udp` (Protocol.md §11) says: the field, at UDP port 9000.
        a.handle(.sighted(PresencePeer(id: b.local.id, name: "ben #2", addresses: ["198.18.0.2"], port: 0, fieldPort: 9000,
                  capabilities: [.field], versions: 1...1, state: .idle, via: .fieldDNSSD)), now: at(2))
        guard case let .updated(p) = a.drain().events.first else { Issue.record("not updated"); return }
        #expect(p.fieldPort == 9000 && p.port == 7000 && p.capabilities == [.tictactoe, .bot, .field])
        #expect(p.state == .playing && p.name == "ben" && p.via == [.broadcast, .fieldDNSSD] && p.via.names == ["broadcast", "dns-sd"])
        a.handle(.unsighted(b.local.id, via: .fieldDNSSD, reason: "gone"), now: at(3))
        guard case let .updated(q) = a.drain().events.first else { Issue.record("not updated"); return }
        #expect(q.fieldPort == 0 && q.capabilities == [.tictactoe, .bot] && q.via == .broadcast)
        // A participant known only by the field's service: the field alone, no TCP port.
        let c = ID128(high: 3, low: 3)
        a.handle(.sighted(PresencePeer(id: c, name: "cat", addresses: ["198.18.1.3"], port: 0, fieldPort: 9001,
                  capabilities: [.field], versions: 1...1, state: .idle, via: .fieldDNSSD)), now: at(4))
        guard case let .found(r) = a.drain().events.first else { Issue.record("not found"); return }
        #expect(r.capabilities == [.field] && r.fieldPort == 9001 && r.port == 0 && r.via.names == ["dns-sd"])
    }

    /// Many cores on a virtual broadcast medium: everyone sees everyone within 2 s of a common
    /// start; traffic grows linearly with the number of daemons (no reply storm).
    @Test(arguments: [10, 50]) func aCrowdedLANConverges(n: Int) throws {
        var cores = (1...n).map { core(UInt64($0), "p\($0)", seed: 7) }
        var inFlight: [(at: Instant, from: Int, bytes: [UInt8])] = []
        var datagrams = 0
        func flush(_ i: Int, now: Instant) {
            for action in cores[i].pollActions() {
                if case let .broadcast(bytes) = action {
                    datagrams += 1
                    inFlight.append((now + .milliseconds(1), i, bytes))
                }
            }
        }
        // Everyone starts within the first 100 ms.
        for i in 0..<n { cores[i].handle(.start, now: at(Int64(i * 100 / n))); flush(i, now: at(Int64(i * 100 / n))) }
        // Event-driven virtual time: jump to the next delivery or deadline.
        var now = at(0), checked = false
        while true {
            var next = inFlight.map(\.at).min()
            for c in cores { if let t = c.pollTimeout() { next = next.map { min($0, t) } ?? t } }
            guard let t = next, t < at(10_000) else { break }
            if !checked, t > at(2000) {
                checked = true
                for i in 0..<n { #expect(cores[i].peers.count == n - 1, "core \(i) sees \(cores[i].peers.count)") }
            }
            now = t
            let due = inFlight.filter { $0.at <= now }
            inFlight.removeAll { $0.at <= now }
            for d in due {
                for j in 0..<n where j != d.from { cores[j].handle(.datagram(d.bytes, from: "198.18.0.\(d.from)"), now: now) }
            }
            for i in 0..<n {
                if let t = cores[i].pollTimeout(), t <= now { cores[i].handleTimeout(now: now) }
                flush(i, now: now)
            }
        }
        #expect(checked)
        // Per daemon: start (2), one answer to the QUERYs, one periodic per 1.8..2.2 s.
        let perDaemon = Double(datagrams) / Double(n)
        let bound: Double = 2 + 2 + 10_000.0 / 1800 + 1
        #expect(perDaemon <= bound, "\(perDaemon) datagrams per daemon in 10 s")
    }
}
