import Testing
@testable import TicTacField
@testable import TicTacFieldCore
import TicTacTime
import TicTacWire

func at(_ ms: Int64) -> Instant { Instant(nanoseconds: ms * 1_000_000) }

func name(_ s: String) -> DisplayName {
    do { return try DisplayName(s) } catch { preconditionFailure("bad test name \(s)") }
}

let alice = ID128(high: 1, low: 1)
let bob = ID128(high: 2, low: 2)
let carol = ID128(high: 3, low: 3)
let aliceAt = FieldEndpoint(address: "198.18.0.1", port: 40001)
let bobAt = FieldEndpoint(address: "198.18.0.2", port: 40002)
let carolAt = FieldEndpoint(address: "198.18.0.3", port: 40003)

extension FieldCore {
    /// Drains the actions: datagrams (decoded, with where they go) and events.
    mutating func drain() -> (sent: [(Message, FieldEndpoint)], events: [FieldEvent]) {
        var sent: [(Message, FieldEndpoint)] = [], events: [FieldEvent] = []
        for action in pollActions() {
            switch action {
            case let .send(bytes, to):
                if let m = try? Message(datagram: bytes) { sent.append((m, to)) } else { Issue.record("undecodable send") }
            case let .event(e): events.append(e)
            }
        }
        return (sent, events)
    }
}

/// Alice's core, knowing Bob as a participant at `bobAt`.
func aliceCore(knowsBob: Bool = true) -> FieldCore {
    var c = FieldCore(id: alice, name: name("alice"), x: 100, y: 100, color: RGB(255, 0, 0))
    if knowsBob { c.handle(.participant(bob, addresses: [bobAt.address], port: bobAt.port), now: at(0)) }
    c.handle(.start, now: at(0))
    return c
}

/// A SPHERE from Bob.
func bobSays(_ seq: UInt32, x: Int32 = 500, y: Int32 = 500, id: ID128 = bob) -> [UInt8] {
    Message.sphere(Sphere(instanceID: id, sequence: seq, x: x, y: y, red: 0, green: 0, blue: 255, name: name("bob"))).encoded()
}

@Suite struct FieldCoreSendingTests {
    @Test func aParticipantJustGoneFromThePresenceTableStillGetsOurFieldLeave() throws {
        // Its announcements were late (a loaded host): the presence table dropped it, but it
        // may still show our sphere, so our FIELD_LEAVE goes to it (Protocol.md §11, Leaving).
        var a = aliceCore()
        _ = a.drain()
        a.handle(.participantGone(bob), now: .zero)
        a.handle(.leave, now: .zero)
        let sent = a.drain().sent
        #expect(sent.map(\.1) == [bobAt])
        guard case .fieldLeave? = sent.first?.0 else { Issue.record("expected FIELD_LEAVE"); return }
        // Sent to last more than the expiry ago: nothing of ours is on its screen any more.
        var b = aliceCore()
        _ = b.drain()
        b.handle(.participantGone(bob), now: .zero)
        b.handleTimeout(now: at(10_001))
        b.handle(.leave, now: .zero)
        #expect(b.drain().sent.isEmpty)
    }

    @Test func aParticipantHeardAtOneOfItsAddressesIsSentOneCopyThereUntilItFallsSilent() throws {
        // Bob's host has IPv4 and IPv6: until Bob is heard, each state goes to both addresses.
        let bobV6 = FieldEndpoint(address: "fe80::2%2", port: bobAt.port)
        var a = FieldCore(id: alice, name: name("alice"), x: 100, y: 100, color: RGB(255, 0, 0))
        a.handle(.participant(bob, addresses: [bobAt.address, bobV6.address], port: bobAt.port), now: at(0))
        a.handle(.start, now: at(0))
        #expect(Set(a.drain().sent.map(\.1.address)) == [bobAt.address, bobV6.address])
        // Heard over IPv6: the next states go there alone (Protocol.md §11, Sending).
        a.handle(.datagram(bobSays(1), from: bobV6), now: at(100))
        _ = a.drain()
        a.perform(.moveTo(x: 200, y: 200), now: at(200))
        #expect(a.drain().sent.map(\.1) == [bobV6])
        a.handleTimeout(now: at(1_300))
        #expect(a.drain().sent.map(\.1) == [bobV6], "the heartbeat too")
        // Bob silent past the expiry: his sphere goes, and our states go to every address again.
        a.handleTimeout(now: at(10_100))
        let after = a.drain()
        #expect(after.events.contains { if case .left = $0 { true } else { false } })
        a.perform(.moveTo(x: 300, y: 300), now: at(10_200))
        #expect(Set(a.drain().sent.map(\.1.address)) == [bobAt.address, bobV6.address])
        // A FIELD_LEAVE always goes everywhere, heard or not.
        a.handle(.datagram(bobSays(2), from: bobAt), now: at(10_300))
        _ = a.drain()
        a.handle(.leave, now: .zero)
        #expect(Set(a.drain().sent.map(\.1.address)) == [bobAt.address, bobV6.address])
    }

    @Test func startSendsOurStateRepeatsItThenHeartbeatsOneSecondAfterTheLatestSend() throws {
        var a = aliceCore()
        let first = a.drain().sent
        #expect(first.count == 1)
        guard case let .sphere(s)? = first.first?.0 else { Issue.record("expected SPHERE"); return }
        #expect(first.first?.1 == bobAt)
        #expect(s.instanceID == alice && s.x == 100 && s.y == 100 && s.red == 255 && s.name.value == "alice")
        // A new state goes once more 250 ms later (Protocol.md §11 "When"), then the heartbeat.
        #expect(a.pollTimeout() == at(250))
        a.handleTimeout(now: at(249))
        #expect(a.drain().sent.isEmpty)
        a.handleTimeout(now: at(250))
        let again = a.drain().sent
        guard case let .sphere(r)? = again.first?.0 else { Issue.record("expected the repeat"); return }
        #expect(again.count == 1 && r.x == 100 && r.sequence == 2)
        #expect(a.pollTimeout() == at(1250))
        a.handleTimeout(now: at(1249))
        #expect(a.drain().sent.isEmpty)
        a.perform(.move(dx: 5, dy: 0), now: at(1249)) // a move restarts the count: its repeat, then a second
        #expect(a.drain().sent.count == 1)
        a.handleTimeout(now: at(1250))
        #expect(a.drain().sent.isEmpty)
        #expect(a.pollTimeout() == at(1499))
        a.handleTimeout(now: at(1499))
        #expect(a.drain().sent.count == 1)
        #expect(a.pollTimeout() == at(2499))
        a.handleTimeout(now: at(2499))
        let beat = a.drain().sent
        guard case let .sphere(h)? = beat.first?.0 else { Issue.record("expected heartbeat"); return }
        // 1 start, 2 its repeat, 3 move, 4 its repeat, 5 heartbeat
        #expect(beat.count == 1 && h.x == 105 && h.sequence == 5)
        #expect(a.pollTimeout() == at(3499), "a heartbeat is not repeated")
    }

    @Test func aNewerStateBeforeTheRepeatReplacesIt() throws {
        var a = aliceCore()
        _ = a.drain()
        a.perform(.move(dx: 1, dy: 0), now: at(100))
        a.perform(.move(dx: 1, dy: 0), now: at(200))
        #expect(a.drain().sent.count == 2)
        #expect(a.pollTimeout() == at(450), "only the newest state is repeated, 250 ms after it went")
    }

    @Test func keyRepeatIsCappedAtThirtyPerSecondAndTheNewestStateGoes() throws {
        var a = aliceCore()
        _ = a.drain()
        var sent: [Sphere] = []
        // A key held down: a move every 5 ms for one second, timers served as a shell would.
        for ms in stride(from: Int64(1), through: 1000, by: 5) {
            if let d = a.pollTimeout(), d <= at(ms) { a.handleTimeout(now: at(ms)) }
            a.perform(.move(dx: 1, dy: 0), now: at(ms))
            for (m, _) in a.drain().sent { if case let .sphere(s) = m { sent.append(s) } }
        }
        #expect(sent.count >= 28 && sent.count <= 31, "\(sent.count) sends in one second")
        // The gap between sends is never below 1/30 s: check on the sequence of send times by
        // replaying: 200 moves gave at most 31 datagrams, and the last state is not lost.
        if let d = a.pollTimeout() { a.handleTimeout(now: d) }
        for (m, _) in a.drain().sent { if case let .sphere(s) = m { sent.append(s) } }
        #expect(sent.last?.x == a.local.x && a.local.x == 300)
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $1.sequence == $0.sequence &+ 1 })
    }

    @Test func sendsToEveryAddressOfEveryParticipantAndANewcomerAtOnce() throws {
        var a = aliceCore()
        _ = a.drain()
        a.handle(.participant(carol, addresses: ["198.18.0.3", "198.18.1.3"], port: 40003), now: at(100))
        let sent = a.drain().sent
        #expect(Set(sent.map(\.1)) == [bobAt, carolAt, FieldEndpoint(address: "198.18.1.3", port: 40003)])
        a.handle(.participantGone(carol), now: .zero)
        a.perform(.move(dx: 1, dy: 1), now: at(300))
        #expect(a.drain().sent.map(\.1) == [bobAt])
        a.handle(.participant(bob, addresses: [bobAt.address], port: 0), now: at(400)) // no field port: not a participant
        a.perform(.move(dx: 1, dy: 1), now: at(500))
        #expect(a.drain().sent.isEmpty && a.participantIDs.isEmpty)
    }

    @Test func movesAreClampedToTheField() {
        var a = aliceCore()
        a.perform(.moveTo(x: -50, y: 5000), now: at(10))
        #expect(a.local.x == 0 && a.local.y == 999)
        a.perform(.move(dx: .min, dy: .max), now: at(100))
        #expect(a.local.x == 0 && a.local.y == 999)
    }

    @Test func leaveSaysFieldLeaveWithTheNextSequenceThenStops() throws {
        var a = aliceCore()
        _ = a.drain()
        a.handle(.leave, now: .zero)
        let sent = a.drain().sent
        guard case let .fieldLeave(id, seq)? = sent.first?.0 else { Issue.record("expected FIELD_LEAVE"); return }
        #expect(sent.count == 1 && id == alice && seq == 2)
        a.perform(.move(dx: 1, dy: 0), now: at(2000))
        a.handleTimeout(now: at(5000))
        #expect(a.drain().sent.isEmpty)
    }
}

@Suite struct FieldCoreReceivingTests {
    @Test func aSphereJoinsChangesAndExpiresTenSecondsAfterItsLastDatagram() {
        var a = aliceCore()
        _ = a.drain()
        a.handle(.datagram(bobSays(1), from: bobAt), now: at(0))
        #expect(a.drain().events == [.joined(FieldSphere(key: .peer(bob), name: "bob", x: 500, y: 500, color: RGB(0, 0, 255)))])
        a.handle(.datagram(bobSays(2), from: bobAt), now: at(1000)) // a heartbeat: same state, no event
        #expect(a.drain().events.isEmpty)
        a.handle(.datagram(bobSays(3, x: 501), from: bobAt), now: at(2000))
        #expect(a.drain().events.count == 1 && a.sphere(.peer(bob))?.x == 501)
        a.handleTimeout(now: at(11_999))
        #expect(a.sphere(.peer(bob)) != nil)
        #expect(a.pollTimeout() == at(12_000) || a.pollTimeout()! <= at(12_000))
        a.handleTimeout(now: at(12_000))
        #expect(a.drain().events == [.left(.peer(bob), name: "bob", reason: .timeout)])
        #expect(a.spheres.isEmpty)
    }

    @Test func reorderedAndDuplicatedDatagramsNeverMoveASphereBack() {
        var a = aliceCore()
        a.handle(.datagram(bobSays(5, x: 50), from: bobAt), now: at(0))
        a.handle(.datagram(bobSays(4, x: 40), from: bobAt), now: at(10)) // overtaken
        a.handle(.datagram(bobSays(5, x: 50), from: bobAt), now: at(20)) // duplicate
        #expect(a.sphere(.peer(bob))?.x == 50)
        #expect(a.counters.stale == 2)
        a.handle(.datagram(bobSays(6, x: 60), from: bobAt), now: at(30))
        #expect(a.sphere(.peer(bob))?.x == 60)
        // Wrap-around: 0 comes after 2^32 - 1, and 2^31 steps ahead is not newer.
        #expect(FieldCore.newer(0, than: .max))
        #expect(!FieldCore.newer(.max, than: 0))
        #expect(!FieldCore.newer(1 << 31, than: 0))
        #expect(FieldCore.newer((1 << 31) - 1, than: 0))
    }

    @Test func aSenderSilentForThreeSecondsMayCountAfresh() {
        var a = aliceCore()
        a.handle(.datagram(bobSays(900, x: 90), from: bobAt), now: at(0))
        a.handle(.datagram(bobSays(1, x: 10), from: bobAt), now: at(2_999))
        #expect(a.sphere(.peer(bob))?.x == 90)
        a.handle(.datagram(bobSays(1, x: 10), from: bobAt), now: at(3_000)) // restarted with the same id
        #expect(a.sphere(.peer(bob))?.x == 10)
    }

    @Test func fieldLeaveRemovesAtOnceAndALateSphereDoesNotBringItBack() {
        var a = aliceCore()
        _ = a.drain()
        a.handle(.datagram(bobSays(7), from: bobAt), now: at(0))
        _ = a.drain()
        a.handle(.datagram(Message.fieldLeave(bob, sequence: 9).encoded(), from: bobAt), now: at(100))
        #expect(a.drain().events == [.left(.peer(bob), name: "bob", reason: .left)])
        a.handle(.datagram(bobSays(8), from: bobAt), now: at(150)) // sent before the leave, delivered after
        #expect(a.spheres.isEmpty && a.counters.stale == 1)
        a.handle(.datagram(bobSays(10), from: bobAt), now: at(200)) // a newer one: Bob is back
        #expect(a.sphere(.peer(bob)) != nil)
    }

    @Test func aFieldLeaveReadAfterItsSendersGoodbyeStillRemovesTheSphereAtOnce() {
        // Bob's discovery message (field off, or GOODBYE) travels on another socket and can be
        // read before his FIELD_LEAVE: the leave is still taken from where his sphere was heard.
        var a = aliceCore()
        _ = a.drain()
        a.handle(.datagram(bobSays(7), from: bobAt), now: at(0))
        _ = a.drain()
        a.handle(.participantGone(bob), now: .zero)
        let mallory = FieldEndpoint(address: "198.18.0.66", port: bobAt.port)
        a.handle(.datagram(Message.fieldLeave(bob, sequence: 8).encoded(), from: mallory), now: at(50))
        a.handle(.datagram(Message.fieldLeave(bob, sequence: 8).encoded(), from: FieldEndpoint(address: bobAt.address, port: 1)), now: at(50))
        #expect(a.counters.wrongSource == 2 && a.sphere(.peer(bob)) != nil)
        a.handle(.datagram(bobSays(8), from: bobAt), now: at(60)) // a SPHERE still needs the presence table
        #expect(a.counters.unknownSender == 1)
        a.handle(.datagram(Message.fieldLeave(bob, sequence: 8).encoded(), from: bobAt), now: at(100))
        #expect(a.drain().events == [.left(.peer(bob), name: "bob", reason: .left)])
        a.handle(.datagram(Message.fieldLeave(carol, sequence: 1).encoded(), from: carolAt), now: at(110)) // never shown
        #expect(a.counters.unknownSender == 2 && a.spheres.isEmpty)
    }

    @Test func anIdIsAcceptedOnlyFromTheAddressAndPortThePresenceTableGives() {
        var a = aliceCore()
        _ = a.drain()
        let mallory = FieldEndpoint(address: "198.18.0.66", port: bobAt.port)
        a.handle(.datagram(bobSays(1), from: mallory), now: at(0))                                   // Bob's id, another host
        a.handle(.datagram(bobSays(2), from: FieldEndpoint(address: bobAt.address, port: 1)), now: at(0)) // Bob's host, another port
        a.handle(.datagram(Message.fieldLeave(bob, sequence: 3).encoded(), from: mallory), now: at(0))
        #expect(a.counters.wrongSource == 3)
        a.handle(.datagram(bobSays(1, id: alice), from: bobAt), now: at(0))                          // our own id
        #expect(a.counters.spoofedOwn == 1)
        a.handle(.datagram(bobSays(1, id: carol), from: carolAt), now: at(0))                        // not a participant
        #expect(a.counters.unknownSender == 1)
        #expect(a.spheres.isEmpty && a.drain().events.isEmpty)
        a.handle(.datagram(bobSays(4), from: bobAt), now: at(0))
        #expect(a.spheres.count == 1)
        // Mallory's LEAVE in Bob's name did nothing.
        a.handle(.datagram(Message.fieldLeave(bob, sequence: 5).encoded(), from: mallory), now: at(10))
        #expect(a.spheres.count == 1)
    }

    @Test func badDatagramsAreDroppedAndCountedNeverShown() {
        var a = aliceCore()
        _ = a.drain()
        let garbage: [[UInt8]] = [[], [0x54], Array(repeating: 0xff, count: 200), Array("SpHn".utf8),
                                  Array(bobSays(1).dropLast()), bobSays(1) + [0]]
        for g in garbage { a.handle(.datagram(g, from: bobAt), now: at(0)) }
        #expect(a.counters.malformed == garbage.count)
        a.handle(.datagram(Message.goodbye(bob).encoded(), from: bobAt), now: at(0))
        #expect(a.counters.unexpected == 1)
        #expect(a.spheres.isEmpty && a.drain().events.isEmpty)
        #expect(a.counters.dropped == garbage.count + 1)
    }

    @Test func aFloodFromOneSourceIsCutToItsRate() {
        var a = aliceCore()
        for i in 0..<1000 { a.handle(.datagram(bobSays(UInt32(i + 1)), from: bobAt), now: at(0)) }
        #expect(a.counters.rateLimited == 1000 - 60)
        #expect(a.sphere(.peer(bob)) != nil)
        // Other sources are not starved by it.
        a.handle(.participant(carol, addresses: [carolAt.address], port: carolAt.port), now: at(0))
        a.handle(.datagram(bobSays(1, id: carol), from: carolAt), now: at(0))
        #expect(a.sphere(.peer(carol)) != nil)
        // A second later the source has its rate back.
        a.handle(.datagram(bobSays(2000, x: 7), from: bobAt), now: at(1000))
        #expect(a.sphere(.peer(bob))?.x == 7)
    }

    @Test func theOriginalAppsPacketShowsUpKeyedByItsSource() throws {
        var a = aliceCore()
        _ = a.drain()
        let seed = LegacySphere(x: 160, y: 240, red: 255, green: 128, blue: 0).bytes
        let from = FieldEndpoint(address: "198.18.0.9", port: 5000)
        a.handle(.datagram(seed, from: from), now: at(0))
        // The seed's centre (160, 240 of its 320 x 480 points) is the field's centre.
        #expect(a.drain().events == [.joined(FieldSphere(key: .original(from), name: "198.18.0.9:5000", x: 500, y: 500,
                                                         color: RGB(255, 128, 0)))])
        a.handle(.datagram(LegacySphere(x: 5000, y: -3, red: 1, green: 2, blue: 3).bytes, from: from), now: at(10))
        #expect(a.sphere(.original(from))?.x == 999 && a.sphere(.original(from))?.y == 0)
        for i in 0..<20 { a.handle(.datagram(seed, from: FieldEndpoint(address: "198.18.2.\(i)", port: 5000)), now: at(20)) }
        #expect(a.spheres.count == 16 && a.counters.rateLimited == 5)
        a.handleTimeout(now: at(10_020))
        #expect(a.spheres.isEmpty)
    }
}
