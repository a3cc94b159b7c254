import Testing
import TicTacEngine
import TicTacTestSupport
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacNet
import TicTacTime
import TicTacWire

private let bob = ID128(high: 2, low: 2), cat = ID128(high: 3, low: 3)

private func seen(_ name: String, _ id: ID128 = bob, port: UInt16 = 5000, games: Capabilities = [.tictactoe]) -> DNSSDSighting {
    DNSSDSighting(instanceName: name, instanceID: id, hostTarget: "h.local.", addresses: ["198.18.0.2"], port: port,
                  versions: 1...1, state: .idle, games: games)
}

/// The one adapter from DNS-SD events to the presence table's inputs.
@Suite struct DNSSDSightingsTests {
    @Test func eachServiceSaysWhichPortIsWhich() {
        var game = DNSSDSightings(service: .tictactoe), field = DNSSDSightings(service: .field)
        #expect(game.inputs(for: .up(seen("bob"))) == [.sighted(PresencePeer(
            id: bob, name: "bob", addresses: ["198.18.0.2"], port: 5000, fieldPort: 0,
            capabilities: [.tictactoe], versions: 1...1, state: .idle, via: .dnssd))])
        #expect(field.inputs(for: .up(seen("bob", port: 9000, games: [.field]))) == [.sighted(PresencePeer(
            id: bob, name: "bob", addresses: ["198.18.0.2"], port: 0, fieldPort: 9000,
            capabilities: [.field], versions: 1...1, state: .idle, via: .fieldDNSSD))])
        #expect(game.inputs(for: .registered("ann #2")).isEmpty && game.inputs(for: .unavailable("no")).isEmpty)
    }

    @Test func aPeerUnderTwoNamesStaysUntilBothAreGone() {
        var a = DNSSDSightings(service: .tictactoe)
        _ = a.inputs(for: .up(seen("bob")))
        _ = a.inputs(for: .up(seen("bob #2")))
        #expect(a.inputs(for: .down(instanceName: "bob", instanceID: bob)) == [])
        #expect(a.inputs(for: .down(instanceName: "bob #2", instanceID: bob))
            == [.unsighted(bob, via: .dnssd, reason: "bob #2 is no longer published")])
    }

    @Test func aNameTakenOverByAnotherPeerTakesTheFirstOut() {
        var a = DNSSDSightings(service: .field)
        _ = a.inputs(for: .up(seen("p", games: [.field])))
        let inputs = a.inputs(for: .up(seen("p", cat, games: [.field])))
        #expect(inputs.first == .unsighted(bob, via: .fieldDNSSD, reason: "p is another peer now"))
        #expect(inputs.count == 2)
    }

    @Test func forgetAllTakesOutEachPeerOnce() {
        var a = DNSSDSightings(service: .field)
        for s in [seen("b"), seen("b #2"), seen("c", cat)] { _ = a.inputs(for: .up(s)) }
        #expect(a.forgetAll(reason: "stopped") == [.unsighted(bob, via: .fieldDNSSD, reason: "b: stopped"),
                                                   .unsighted(cat, via: .fieldDNSSD, reason: "c: stopped")])
        #expect(a.forgetAll(reason: "stopped").isEmpty)
    }
}

/// The presence service without broadcast: no socket, one table both DNS-SD services feed.
@Suite struct PresenceServiceDNSSDTests {
    @Test func withoutBroadcastBothServicesFeedOneTable() throws {
        let reactor = try Reactor()
        let presence = try PresenceService(reactor: reactor, local: local(1, "ann"), broadcast: false, random: SplitMix64(seed: 1))
        #expect(!presence.broadcasts)
        let game = FakeDNSSDAgent(), field = FakeDNSSDAgent()
        var notices: [DNSSDEvent] = []
        presence.attach(game, service: .tictactoe) { notices.append($0) }
        presence.attach(field, service: .field)
        presence.start()
        for agent in [game, field] { agent.start(name: "ann", port: 1, txt: DNSSDTXT(instanceID: presence.local.id)) }
        game.emit(.up(seen("bob")))
        field.emit(.up(seen("bob", port: 9000, games: [.field])))
        game.emit(.unavailable("DNS-SD unavailable"))
        let peer = try #require(presence.peers.first)
        #expect(presence.peers.count == 1 && peer.via == [.dnssd, .fieldDNSSD])
        #expect(peer.port == 5000 && peer.fieldPort == 9000 && peer.capabilities == [.tictactoe, .field])
        #expect(notices == [.unavailable("DNS-SD unavailable")])
        // One agent's views go; the other's stay.
        presence.forgetSightings(of: field, reason: "field browsing stopped")
        #expect(presence.peers.first?.via == .dnssd && presence.peers.first?.fieldPort == 0)
        // Stopped, the table takes nothing more.
        presence.stop()
        game.emit(.up(seen("cat", cat)))
        #expect(presence.peers.count == 1)
    }
}
