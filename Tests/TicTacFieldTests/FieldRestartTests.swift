import Testing
@testable import TicTacFieldCore
import TicTacTime
import TicTacWire

/// Protocol.md §11: a participant that left and restarts shows at once; one round's copies share
/// a sequence; the original packet's screen points are scaled; a longer one is not the original's.
@Suite struct FieldRestartTests {
    /// Bob's own core, counting from the wall clock as the shell makes it.
    func bobCore(wall: UInt64) -> FieldCore {
        var c = FieldCore(id: bob, name: name("bob"), x: 500, y: 500, color: RGB(0, 0, 255))
        c.countFrom(wallClockMillis: wall)
        c.handle(.participant(alice, addresses: [aliceAt.address], port: aliceAt.port), now: at(0))
        return c
    }

    func deliver(_ from: inout FieldCore, to a: inout FieldCore, now: Instant) {
        for action in from.pollActions() {
            if case let .send(bytes, _) = action { a.handle(.datagram(bytes, from: bobAt), now: now) }
        }
    }

    @Test func aParticipantThatLeftAndRestartsShowsAtOnce() {
        var a = aliceCore()
        _ = a.drain()
        var b1 = bobCore(wall: 1_700_000_000_000)
        b1.handle(.start, now: at(0))
        for t in stride(from: 0, through: 5_000, by: 100) { // five busy seconds: 30 a second at most
            b1.perform(.move(dx: 1, dy: 0), now: at(Int64(t)))
            b1.handleTimeout(now: at(Int64(t)))
            deliver(&b1, to: &a, now: at(Int64(t)))
        }
        #expect(a.sphere(.peer(bob)) != nil)
        b1.handle(.leave, now: at(5_000))
        deliver(&b1, to: &a, now: at(5_000))
        #expect(a.spheres.isEmpty)
        // Restarted half a second later (its wall clock too): its first SPHERE shows.
        var b2 = bobCore(wall: 1_700_000_005_500)
        b2.handle(.start, now: at(5_500))
        deliver(&b2, to: &a, now: at(5_500))
        #expect(a.sphere(.peer(bob)) != nil && a.counters.stale == 0)
    }

    @Test func aVersion1SenderCountingFromOneAgainShowsAfterASecond() {
        var a = aliceCore()
        _ = a.drain()
        a.handle(.datagram(bobSays(700), from: bobAt), now: at(0))
        a.handle(.datagram(Message.fieldLeave(bob, sequence: 701).encoded(), from: bobAt), now: at(100))
        a.handle(.datagram(bobSays(1), from: bobAt), now: at(1_099)) // could still be a late one
        #expect(a.spheres.isEmpty && a.counters.stale == 1)
        a.handle(.datagram(bobSays(2), from: bobAt), now: at(1_100))
        #expect(a.sphere(.peer(bob)) != nil)
    }

    @Test func everyCopyOfOneRoundCarriesTheSameSequence() {
        var a = FieldCore(id: alice, name: name("alice"), x: 100, y: 100, color: RGB(255, 0, 0))
        a.handle(.participant(bob, addresses: [bobAt.address, "fe80::2%2"], port: bobAt.port), now: at(0))
        a.handle(.participant(carol, addresses: [carolAt.address], port: carolAt.port), now: at(0))
        a.handle(.start, now: at(0))
        let sequences = a.drain().sent.compactMap { if case let .sphere(s) = $0.0 { s.sequence } else { nil } }
        #expect(sequences.count == 3 && Set(sequences).count == 1)
    }

    @Test func theOriginalsScreenPointsAreScaledOntoTheField() {
        #expect(FieldCore.scaled(160, from: 320) == 500 && FieldCore.scaled(240, from: 480) == 500)
        #expect(FieldCore.scaled(0, from: 320) == 0 && FieldCore.scaled(319, from: 320) == 996)
        #expect(FieldCore.scaled(479, from: 480) == 997 && FieldCore.scaled(-5, from: 480) == 0)
        #expect(FieldCore.scaled(.max, from: 320) == 999)
    }

    @Test func anOriginalPacketLongerThan19BytesIsDropped() {
        var a = aliceCore()
        _ = a.drain()
        let seed = LegacySphere(x: 160, y: 240, red: 255, green: 128, blue: 0).bytes
        a.handle(.datagram(seed + [0], from: FieldEndpoint(address: "198.18.0.9", port: 5000)), now: at(0))
        #expect(a.spheres.isEmpty && a.counters.malformed == 1)
    }
}
