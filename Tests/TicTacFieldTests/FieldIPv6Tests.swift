import Testing
@testable import TicTacField
@testable import TicTacFieldCore
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacNet
import TicTacTestSupport
import TicTacTime
import TicTacWire

/// The field over IPv6 (Protocol.md §11): participants known only by an IPv6 address exchange
/// SPHERE datagrams through the second socket, on the same port as IPv4.
@Suite(.serialized) struct FieldIPv6Tests {
    @Test func participantsAtIPv6AddressesSeeEachOther() throws {
        let reactor = try Reactor()
        var shells: [FieldShell] = []
        var seen: [[SphereKey: FieldSphere]] = [[:], [:]]
        for n in 0..<2 {
            let id = ID128(high: 7, low: UInt64(n))
            let core = FieldCore(id: id, name: name("v\(n)"), x: 10, y: 20, color: RGB(1, 2, 3))
            let shell = try FieldShell(reactor: reactor, core: core)
            #expect(shell.hasIPv6, "no IPv6 socket: is IPv6 off in this namespace?")
            shell.onEvent = { e in
                switch e {
                case let .joined(s), let .changed(s): seen[n][s.key] = s
                case let .left(k, _, _): seen[n][k] = nil
                }
            }
            shells.append(shell)
        }
        for (n, shell) in shells.enumerated() {
            let other = shells[1 - n]
            shell.start(peers: [PresencePeer(id: other.core.id, name: "v\(1 - n)", addresses: ["::1"], port: 1,
                                             fieldPort: other.port, capabilities: [.field], versions: 1...1,
                                             state: .idle, via: .broadcast)])
        }
        shells[1].moveTo(x: 600, y: 700)
        #expect(try run(reactor, for: .seconds(3)) {
            seen[0][.peer(shells[1].core.id)]?.x == 600 && seen[1][.peer(shells[0].core.id)] != nil
        }, "both saw the other over IPv6")
        #expect(seen[0][.peer(shells[1].core.id)]?.x == 600 && seen[0][.peer(shells[1].core.id)]?.y == 700)
        #expect(seen[1][.peer(shells[0].core.id)]?.x == 10)
        // Nothing was dropped: the datagrams came from the addresses and ports announced.
        #expect(shells[0].core.counters.dropped == 0 && shells[1].core.counters.dropped == 0)
        for s in shells { s.leave() }
    }
}
