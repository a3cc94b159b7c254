import Testing
import TicTacEngine
import TicTacTestSupport
@testable import TicTacField
@testable import TicTacFieldCore
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacNet
import TicTacTime
import TicTacWire

/// The field found by DNS-SD alone (Protocol.md §11, `_spherenet._udp`): a fake agent stands for
/// Avahi, broadcast is off, the spheres travel over loopback.
@Suite(.serialized) struct FieldDNSSDTests {
    final class Node {
        let id: ID128
        let discovery: PresenceService
        let field: FieldShell
        let agent = FakeDNSSDAgent()
        let dnssd: FieldDNSSD
        var seen: [SphereKey: FieldSphere] = [:]
        var notices: [String] = []

        init(_ n: UInt64, reactor: Reactor) throws {
            id = ID128(high: n, low: n)
            let core = FieldCore(id: id, name: name("p\(n)"), x: Int32(n) * 100, y: 500, color: RGB(UInt8(n * 60), 0, 0))
            field = try FieldShell(reactor: reactor, core: core, address: "127.0.0.1")
            let local = LocalPresence(id: id, name: name("p\(n)"), port: 1, fieldPort: field.port, capabilities: [.field])
            discovery = try PresenceService(reactor: reactor, local: local, broadcast: false, random: SplitMix64(seed: n))
            dnssd = FieldDNSSD(agent: agent, presence: discovery)
            discovery.onEvent = { [unowned self] e in field.presence(e) }
            dnssd.onNotice = { [unowned self] in notices.append($0) }
            field.onEvent = { [unowned self] e in
                switch e {
                case let .joined(s), let .changed(s): seen[s.key] = s
                case let .left(k, _, _): seen[k] = nil
                }
            }
        }

        /// What the other node's agent would report of us.
        func sighting(as instance: String) -> DNSSDSighting {
            DNSSDSighting(instanceName: instance, instanceID: id, hostTarget: "h.local.", addresses: ["127.0.0.1"],
                          port: field.port, versions: 1...1, state: .idle, games: [.field])
        }
    }

    @Test func participantsFoundByDNSSDExchangeSpheresAndStopRemovesThem() throws {
        let reactor = try Reactor()
        let a = try Node(1, reactor: reactor), b = try Node(2, reactor: reactor)
        for n in [a, b] {
            n.field.start()
            n.dnssd.start(name: "p\(n.id.high)", id: n.id, fieldPort: n.field.port)
        }
        // What each publishes: the field's port, a record with our id (Protocol.md §11).
        #expect(a.agent.published?.port == a.field.port && a.agent.published?.txt.instanceID == a.id)
        #expect(a.agent.published?.txt.games == [.field])
        a.agent.emit(.up(b.sighting(as: "p2")))
        b.agent.emit(.up(a.sighting(as: "p1")))
        let peer = try #require(a.discovery.core.peer(b.id))
        #expect(peer.via == .fieldDNSSD && peer.fieldPort == b.field.port && peer.capabilities == [.field])
        #expect(try run(reactor, for: .seconds(3)) { a.seen[.peer(b.id)] != nil && b.seen[.peer(a.id)] != nil })
        b.field.moveTo(x: 7, y: 8)
        #expect(try run(reactor, for: .seconds(3)) { a.seen[.peer(b.id)]?.x == 7 && a.seen[.peer(b.id)]?.y == 8 })

        // A rename of the other's service: a second name for one id; its removal keeps the peer.
        a.agent.emit(.up(b.sighting(as: "p2 #2")))
        a.agent.emit(.down(instanceName: "p2", instanceID: b.id))
        #expect(a.discovery.core.peer(b.id) != nil)
        // Stopping takes every participant it found out of the presence table, and unpublishes.
        a.dnssd.stop()
        #expect(a.agent.published == nil)
        #expect(a.discovery.core.peer(b.id) == nil && a.field.core.participantIDs.isEmpty)
        // Restarted, it publishes again; the other's removal takes it out.
        a.dnssd.start(name: "p1", id: a.id, fieldPort: a.field.port)
        a.agent.emit(.up(b.sighting(as: "p2")))
        #expect(a.field.core.participantIDs == [b.id])
        a.agent.emit(.down(instanceName: "p2", instanceID: b.id))
        #expect(a.discovery.core.peer(b.id) == nil)
        // Notices: a rename and an outage, none for the name asked for.
        a.agent.emit(.registered("p1"))
        a.agent.emit(.registered("p1 #2"))
        #expect(a.notices == ["The field is published by DNS-SD as \"p1 #2\" (the name was taken)"])
        for n in [a, b] { n.dnssd.stop(); n.field.leave() }
    }
}
