import Testing
import TicTacDaemonCore
import TicTacDiscoveryCore
import TicTacEngine
import TicTacFieldCore
import TicTacTime
import TicTacWire

/// Every sans-I/O core speaks the same verbs (SansIOCore), so one driver serves them all: here
/// the rule that a timeout handled before the deadline the core gave changes nothing.
@Suite struct CoreConventionTests {
    /// Drains `core`, then handles a timeout one nanosecond before its deadline.
    func earlyTimeoutChangesNothing<Core: SansIOCore>(_ core: inout Core, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let due = core.pollTimeout() else {
            Issue.record("no deadline to test", sourceLocation: sourceLocation)
            return
        }
        _ = core.pollActions()
        core.handleTimeout(now: Instant(nanoseconds: due.nanoseconds - 1))
        #expect(core.pollActions().isEmpty, sourceLocation: sourceLocation)
        #expect(core.pollTimeout() == due, sourceLocation: sourceLocation)
    }

    @Test func theGameSession() {
        var game = GameSession(rng: SplitMix64(seed: 1))
        game.handle(.start, now: .zero)
        earlyTimeoutChangesNothing(&game)
    }

    @Test func theDaemonCore() {
        var core = DaemonCore(config: config("ann", seed: 2))
        core.handle(.linkOpened(1, outgoing: false, address: "198.18.0.2", port: nil), now: .zero)
        earlyTimeoutChangesNothing(&core)
    }

    @Test func theDiscoveryCore() throws {
        let local = LocalPresence(id: ID128(high: 1, low: 1), name: try DisplayName("ann"), port: 1, capabilities: [.tictactoe])
        var core = DiscoveryCore(local: local, random: SplitMix64(seed: 3))
        core.handle(.start, now: .zero)
        earlyTimeoutChangesNothing(&core)
    }

    @Test func theDNSSDCore() {
        var core = DNSSDCore()
        core.handle(.start(name: "ann", port: 1, txt: DNSSDTXT(instanceID: ID128(high: 1, low: 1))), now: .zero)
        core.handle(.failed(.register, code: DNSSDCode.unknown), now: .zero) // unavailable: a retry is due
        earlyTimeoutChangesNothing(&core)
    }

    @Test func theFieldCore() throws {
        var core = FieldCore(id: ID128(high: 1, low: 1), name: try DisplayName("ann"), x: 1, y: 1, color: RGB(1, 2, 3))
        core.handle(.participant(ID128(high: 2, low: 2), addresses: ["198.18.0.2"], port: 9000), now: .zero)
        core.handle(.start, now: .zero)
        earlyTimeoutChangesNothing(&core)
    }
}
