import Testing
import TicTacTime
@testable import TicTacDaemonCore

/// The core decides which accepted connections are taken (Protocol.md §5's shares); the shell
/// only says when one opened and when its socket is gone.
@Suite struct AdmissionTests {
    func core() -> DaemonCore {
        let core = DaemonCore(config: config("target", seed: 5))
        core.maxLinksPerAddress = 2
        core.maxLinksPerPrefix = 3
        return core
    }

    @Test func anAddressPastItsShareIsRefusedUntilOneOfItsConnectionsIsGone() {
        let core = core()
        core.handle(.linkOpened(1, outgoing: false, address: "198.18.0.1", port: 40001), now: .zero)
        #expect(core.admit(from: "198.18.0.1", connections: 1, maxConnections: 10) == .accept)
        core.handle(.linkOpened(2, outgoing: false, address: "198.18.0.1", port: 40002), now: .zero)
        #expect(core.admit(from: "198.18.0.1", connections: 2, maxConnections: 10)
                == .refuse("too many connections from 198.18.0.1 (at most 2)"))
        #expect(core.admit(from: "198.18.0.2", connections: 2, maxConnections: 10) == .accept)
        core.connectionGone(2)
        core.connectionGone(2) // told twice: counted once
        #expect(core.admit(from: "198.18.0.1", connections: 1, maxConnections: 10) == .accept)
    }

    @Test func aPrefixPastItsShareIsRefusedAndDialsDoNotCount() {
        let core = core()
        for (id, host) in [(1, 1), (2, 2), (3, 3)] {
            core.handle(.linkOpened(id, outgoing: false, address: "198.18.0.\(host)", port: 40000), now: .zero)
        }
        core.handle(.linkOpened(4, outgoing: true, address: "198.18.1.9", port: 7000), now: .zero)
        core.handle(.linkOpened(5, outgoing: true, address: "198.18.1.9", port: 7000), now: .zero)
        #expect(core.admit(from: "198.18.0.4", connections: 5, maxConnections: 10)
                == .refuse("too many connections from 198.18.0 (at most 3)"))
        #expect(core.admit(from: "198.18.1.9", connections: 5, maxConnections: 10) == .accept) // our two dials to it
    }

    @Test func atTheConnectionLimitTheGreediestSourceMakesRoom() {
        let core = core()
        core.maxLinksPerAddress = 8
        core.maxLinksPerPrefix = 8
        for id in 1...3 { core.handle(.linkOpened(id, outgoing: false, address: "198.18.0.1", port: 40000), now: .zero) }
        #expect(core.admit(from: "198.18.5.5", connections: 3, maxConnections: 3) == .acceptDropping(1))
    }
}
