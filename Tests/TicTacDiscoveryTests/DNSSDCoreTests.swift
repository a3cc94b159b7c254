import Testing
import TicTacTestSupport
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacTime
import TicTacWire

/// The DNS-SD core on virtual time: every input and the actions it yields.
private struct Harness {
    var core = DNSSDCore()
    var now = Instant(nanoseconds: 1_000_000_000)
    let ownTXT = DNSSDTXT(instanceID: ID128(high: 1, low: 1))

    mutating func feed(_ input: DNSSDInput) -> [DNSSDAction] {
        core.handle(input, now: now)
        return core.pollActions()
    }

    /// The timer fires now.
    mutating func timeout() -> [DNSSDAction] {
        core.handleTimeout(now: now)
        return core.pollActions()
    }

    /// Advances virtual time to `t` seconds after the start and feeds `.timeout` if one is due.
    mutating func advance(by d: Duration) -> [DNSSDAction] {
        now = now + d
        guard let next = core.pollTimeout(), next <= now else { return [] }
        core.handleTimeout(now: now)
        return core.pollActions()
    }

    mutating func started() {
        _ = feed(.start(name: "Ann", port: 4000, txt: ownTXT))
        _ = feed(.registered(name: "Ann"))
    }

    /// Browses, resolves and addresses `name` with `txt` in one go; returns the last actions.
    mutating func sight(_ name: String, _ txt: DNSSDTXT, port: UInt16 = 5000, ip: String = "198.18.200.2") -> [DNSSDAction] {
        _ = feed(.browsed(instance: name, added: true, moreComing: false))
        _ = feed(.resolved(instance: name, host: "h.local.", port: port, txt: txt.encoded()))
        return feed(.address(instance: name, ip: ip, added: true))
    }
}

private func events(_ actions: [DNSSDAction]) -> [DNSSDEvent] {
    actions.compactMap { if case let .emit(e) = $0 { e } else { nil } }
}

private let peerID = ID128(high: 2, low: 2)
private let peerTXT = DNSSDTXT(instanceID: peerID, versions: 1...1, state: .idle, games: [.tictactoe])

private func sighting(_ name: String = "Bob", id: ID128 = peerID, port: UInt16 = 5000,
                      addresses: [String] = ["198.18.200.2"], state: PresenceState = .idle) -> DNSSDSighting {
    DNSSDSighting(instanceName: name, instanceID: id, hostTarget: "h.local.", addresses: addresses, port: port,
                  versions: 1...1, state: state, games: [.tictactoe])
}

@Suite struct DNSSDCoreTests {
    @Test func startRegistersAndBrowsesAndReportsTheFinalNameOnce() {
        var h = Harness()
        #expect(h.feed(.start(name: "Ann", port: 4000, txt: h.ownTXT))
            == [.register(name: "Ann", port: 4000, txt: h.ownTXT.encoded()), .browse])
        #expect(h.feed(.start(name: "Again", port: 1, txt: h.ownTXT)) == []) // one registration per agent
        #expect(events(h.feed(.registered(name: "Ann #2"))) == [.registered("Ann #2")])
        #expect(h.feed(.registered(name: "Ann #2")) == [])
        #expect(h.core.currentName == "Ann #2")
    }

    @Test func aLookThatOnlyBrowsesRegistersNothingAndStillSeesPeers() {
        // `tictac peers`: browse, resolve, addresses, as a daemon does; no record of its own.
        var h = Harness()
        h.core = DNSSDCore(publishes: false)
        #expect(h.feed(.start(name: "peers", port: 1, txt: h.ownTXT)) == [.browse])
        #expect(h.feed(.update(h.ownTXT)) == [])
        #expect(events(h.sight("Bob", peerTXT)) == [.up(sighting())])
        // After an outage it browses again, still without registering.
        let outage = h.feed(.failed(.browse, code: DNSSDCode.unknown))
        #expect(!outage.contains { if case .register = $0 { true } else { false } })
        let retry = h.advance(by: .seconds(60))
        #expect(retry.contains(.browse) && !retry.contains { if case .register = $0 { true } else { false } })
    }

    @Test func aLocalNameConflictTriesTheNextNameAndLongNamesAreCut() {
        var h = Harness()
        let long = String(repeating: "é", count: 40) // 80 bytes of UTF-8
        let first = h.feed(.start(name: long, port: 4000, txt: h.ownTXT))
        let cut = String(repeating: "é", count: 31) // 62 bytes: the last whole character within 63
        #expect(first.first == .register(name: cut, port: 4000, txt: h.ownTXT.encoded()))
        let second = h.feed(.failed(.register, code: DNSSDCode.nameConflict))
        // 63 - " #2".count = 60 bytes: 30 characters.
        #expect(second == [.cancel(.register),
                           .register(name: String(repeating: "é", count: 30) + " #2", port: 4000, txt: h.ownTXT.encoded())])
        #expect(h.feed(.failed(.register, code: DNSSDCode.nameConflict)).last
            == .register(name: String(repeating: "é", count: 30) + " #3", port: 4000, txt: h.ownTXT.encoded()))
        #expect(DNSSDCore.instanceName("") == "tictac")
    }

    @Test func browseResolveAddressGivesASighting() {
        var h = Harness()
        h.started()
        #expect(h.feed(.browsed(instance: "Bob", added: true, moreComing: false))
            == [.cancel(.resolve("Bob")), .cancel(.addresses("Bob")), .resolve(instance: "Bob")])
        #expect(h.feed(.resolved(instance: "Bob", host: "h.local.", port: 5000, txt: peerTXT.encoded()))
            == [.cancel(.addresses("Bob")), .queryAddresses(instance: "Bob", host: "h.local.")])
        #expect(events(h.feed(.address(instance: "Bob", ip: "198.18.200.2", added: true))) == [.up(sighting())])
        // Every address is kept, sorted; a change is reported as a new .up.
        #expect(events(h.feed(.address(instance: "Bob", ip: "fe80::1%2", added: true)))
            == [.up(sighting(addresses: ["198.18.200.2", "fe80::1%2"]))])
        #expect(events(h.feed(.address(instance: "Bob", ip: "fe80::1%2", added: true))) == []) // no change
        #expect(h.core.pollTimeout() == nil) // answered: no timer left
    }

    @Test func moreComingDefersResolvesToTheEndOfTheBatch() {
        var h = Harness()
        h.started()
        #expect(h.feed(.browsed(instance: "Bob", added: true, moreComing: true)) == [])
        #expect(h.feed(.browsed(instance: "Cat", added: true, moreComing: true)) == [])
        let end = h.feed(.browsed(instance: "Dan", added: true, moreComing: false))
        #expect(end.filter { if case .resolve = $0 { true } else { false } }
            == [.resolve(instance: "Bob"), .resolve(instance: "Cat"), .resolve(instance: "Dan")])
        // Added and removed within one batch: never resolved, never reported.
        _ = h.feed(.browsed(instance: "Eve", added: true, moreComing: true))
        #expect(events(h.feed(.browsed(instance: "Eve", added: false, moreComing: false))) == [])
    }

    @Test func selfIsFilteredByIdNotByName() {
        var h = Harness()
        h.started()
        // Our own id under another name (renamed by a conflict): not a peer, and no retry timer.
        #expect(events(h.sight("Ann #2", h.ownTXT)) == [])
        #expect(h.core.pollTimeout() == nil)
        // Another daemon with our name: a peer.
        #expect(events(h.sight("Ann", peerTXT)) == [.up(sighting("Ann"))])
    }

    @Test func removalGuardsAndCounts() {
        var h = Harness()
        h.started()
        #expect(h.feed(.browsed(instance: "Nobody", added: false, moreComing: false)) == [])
        _ = h.sight("Bob", peerTXT)
        // Avahi reports the instance once per protocol: two adds, so two removes end it.
        _ = h.feed(.browsed(instance: "Bob", added: true, moreComing: false))
        #expect(events(h.feed(.browsed(instance: "Bob", added: false, moreComing: false))) == [])
        #expect(h.feed(.browsed(instance: "Bob", added: false, moreComing: false))
            == [.cancel(.resolve("Bob")), .cancel(.addresses("Bob")), .emit(.down(instanceName: "Bob", instanceID: peerID))])
        #expect(h.feed(.browsed(instance: "Bob", added: false, moreComing: false)) == []) // again: ignored
        // A resolve answer arriving for a forgotten instance changes nothing.
        #expect(h.feed(.resolved(instance: "Bob", host: "h.local.", port: 1, txt: peerTXT.encoded())) == [])
    }

    @Test func txtPortAndIdChangesAreReported() {
        var h = Harness()
        h.started()
        _ = h.sight("Bob", peerTXT)
        var busy = peerTXT
        busy.state = .busy
        #expect(events(h.feed(.resolved(instance: "Bob", host: "h.local.", port: 5000, txt: busy.encoded())))
            == [.up(sighting(state: .busy))])
        #expect(events(h.feed(.resolved(instance: "Bob", host: "h.local.", port: 6000, txt: busy.encoded())))
            == [.up(sighting(port: 6000, state: .busy))])
        // Another daemon took the name: the old one goes down, the new one comes up.
        let otherID = ID128(high: 3, low: 3)
        var other = busy
        other.instanceID = otherID
        #expect(events(h.feed(.resolved(instance: "Bob", host: "h.local.", port: 6000, txt: other.encoded())))
            == [.down(instanceName: "Bob", instanceID: peerID), .up(sighting(id: otherID, port: 6000, state: .busy))])
        // Its TXT turns invalid: no longer a peer, and why (for a debug log).
        #expect(events(h.feed(.resolved(instance: "Bob", host: "h.local.", port: 6000, txt: [0])))
            == [.down(instanceName: "Bob", instanceID: otherID), .dropped(instanceName: "Bob", reason: "TXT key txtvers missing")])
    }

    @Test func removedAndAddedInOneBatchIsResolvedAfresh() {
        var h = Harness()
        h.started()
        _ = h.sight("Bob", peerTXT)
        _ = h.feed(.browsed(instance: "Bob", added: false, moreComing: true))
        let back = h.feed(.browsed(instance: "Bob", added: true, moreComing: false))
        #expect(back == [.cancel(.resolve("Bob")), .cancel(.addresses("Bob")), .resolve(instance: "Bob")])
        // The new answer with a new port replaces the old sighting without a down.
        _ = h.feed(.resolved(instance: "Bob", host: "h.local.", port: 7000, txt: peerTXT.encoded()))
        #expect(events(h.feed(.address(instance: "Bob", ip: "198.18.200.2", added: true))) == [.up(sighting(port: 7000))])
    }

    @Test func aResolveThatNeverAnswersTimesOutAndIsRetriedWithBackoff() {
        var h = Harness()
        h.started()
        let t0 = h.now
        _ = h.feed(.browsed(instance: "Bob", added: true, moreComing: false))
        #expect(h.core.pollTimeout() == t0 + .seconds(5))
        #expect(h.advance(by: .seconds(5)) == [.cancel(.resolve("Bob")), .cancel(.addresses("Bob"))])
        #expect(h.core.pollTimeout() == t0 + .seconds(10))
        #expect(h.advance(by: .seconds(5)).last == .resolve(instance: "Bob"))
        _ = h.advance(by: .seconds(5)) // times out again
        #expect(h.core.pollTimeout() == t0 + .seconds(25)) // retry delay doubled to 10 s
        // A resolve without an address is no answer either.
        _ = h.advance(by: .seconds(10))
        _ = h.feed(.resolved(instance: "Bob", host: "h.local.", port: 5000, txt: peerTXT.encoded()))
        #expect(h.advance(by: .seconds(5)) == [.cancel(.resolve("Bob")), .cancel(.addresses("Bob"))])
        // Once answered, the retry delay starts over.
        _ = h.advance(by: .seconds(20))
        _ = h.feed(.resolved(instance: "Bob", host: "h.local.", port: 5000, txt: peerTXT.encoded()))
        #expect(events(h.feed(.address(instance: "Bob", ip: "198.18.200.2", added: true))) == [.up(sighting())])
        #expect(h.core.pollTimeout() == nil)
    }

    @Test func aFailedResolveTakesThePeerDownAndRetries() {
        var h = Harness()
        h.started()
        _ = h.sight("Bob", peerTXT)
        let failed = h.feed(.failed(.resolve("Bob"), code: DNSSDCode.unknown))
        #expect(failed == [.cancel(.resolve("Bob")), .cancel(.addresses("Bob")),
                           .emit(.down(instanceName: "Bob", instanceID: peerID))])
        #expect(h.advance(by: .seconds(5)).last == .resolve(instance: "Bob"))
    }

    @Test func anOutageIsReportedOnceAndRetriedWithBackoffUntilTheDaemonIsBack() {
        var h = Harness()
        _ = h.feed(.start(name: "Ann", port: 4000, txt: h.ownTXT))
        let line = DNSSDEvent.unavailable("DNS-SD unavailable: avahi-daemon is not running; using broadcast discovery only")
        let first = h.feed(.failed(.register, code: DNSSDCode.unknown))
        #expect(first == [.cancel(.register), .cancelAll, .emit(line)])
        #expect(h.feed(.failed(.browse, code: DNSSDCode.unknown)) == []) // the same outage
        var delays: [Duration] = []
        for _ in 0..<7 {
            guard let next = h.core.pollTimeout() else { break }
            delays.append(next - h.now)
            h.now = next
            #expect(h.timeout() == [.register(name: "Ann", port: 4000, txt: h.ownTXT.encoded()), .browse])
            #expect(events(h.feed(.failed(.browse, code: DNSSDCode.unknown))).isEmpty) // no second line
        }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30), .seconds(30)])
        // The daemon is back: the retry registers, and a TXT changed meanwhile is the one published.
        var busy = h.ownTXT
        busy.state = .busy
        #expect(h.feed(.update(busy)) == [])
        h.now = h.core.pollTimeout() ?? h.now
        #expect(h.timeout().first == .register(name: "Ann", port: 4000, txt: busy.encoded()))
        #expect(events(h.feed(.registered(name: "Ann"))) == [.registered("Ann")])
        // A later outage is a new one: reported again, retried after 1 s again.
        _ = h.sight("Bob", peerTXT)
        let again = h.feed(.failed(.browse, code: DNSSDCode.unknown))
        #expect(events(again) == [.down(instanceName: "Bob", instanceID: peerID), line])
        #expect(h.core.pollTimeout() == h.now + .seconds(1))
    }

    @Test func updateRepublishesAndStopCancelsEverything() {
        var h = Harness()
        h.started()
        var playing = h.ownTXT
        playing.state = .playing
        #expect(h.feed(.update(playing)) == [.updateTXT(playing.encoded())])
        _ = h.sight("Bob", peerTXT)
        #expect(h.feed(.stop) == [.cancelAll]) // no downs: the owner is stopping
        #expect(!h.core.isStarted)
        #expect(h.feed(.address(instance: "Bob", ip: "1.2.3.4", added: true)) == [])
        #expect(h.core.pollTimeout() == nil)
    }

    @Test func anInstanceNameNoPlayerCouldShowIsNotAPeer() {
        var h = Harness()
        h.started()
        #expect(events(h.sight("Evil\u{1B}[2J", peerTXT)) == [])
    }
}

/// A core for the field's service publishes and reads the records of Protocol.md §11.
@Suite struct FieldDNSSDCoreTests {
    @Test func theFieldServicePublishesItsRecordAndReadsAnIdOnlyRecord() {
        var core = DNSSDCore(service: .field)
        func feed(_ input: DNSSDInput, _ now: Instant) -> [DNSSDAction] {
            core.handle(input, now: now)
            return core.pollActions()
        }
        let now = Instant(nanoseconds: 1_000_000_000)
        let own = DNSSDTXT(instanceID: ID128(high: 1, low: 1), games: [.field])
        #expect(feed(.start(name: "Ann", port: 4000, txt: own), now)
            == [.register(name: "Ann", port: 4000, txt: own.encodedForField()), .browse])
        _ = feed(.browsed(instance: "Bob", added: true, moreComing: false), now)
        _ = feed(.resolved(instance: "Bob", host: "b.local.", port: 5000, txt: [35] + Array("id=\(peerID)".utf8)), now)
        let up = events(feed(.address(instance: "Bob", ip: "198.18.1.2", added: true), now))
        #expect(up == [.up(DNSSDSighting(instanceName: "Bob", instanceID: peerID, hostTarget: "b.local.",
                                          addresses: ["198.18.1.2"], port: 5000, versions: 1...1, state: .idle,
                                          games: [.field]))])
        // Our own record, heard back under another name: skipped by its id.
        _ = feed(.browsed(instance: "Ann #2", added: true, moreComing: false), now)
        _ = feed(.resolved(instance: "Ann #2", host: "a.local.", port: 4000, txt: own.encodedForField()), now)
        #expect(events(feed(.address(instance: "Ann #2", ip: "198.18.0.1", added: true), now)) == [])
    }
}
