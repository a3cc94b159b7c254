import Testing
import TicTacTestSupport
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacNet
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore

/// A peer still listed after it left (a DNS-SD record, an ANNOUNCE not yet expired): inviting
/// it is refused, and the player is told "ghost has left", once and by name, not the system's
/// "Connection refused (errno 111)"; the lobby no longer lists it.
@Suite(.serialized) struct GhostPeerTests {
    @Test func aRefusedDialToAListedPeerSaysItHasLeft() throws {
        let reactor = try Reactor()
        let human = try Daemon(reactor: reactor, config: config("hal", seed: 31))
        // A daemon that has gone: nothing listens where it was seen (port 1: no test listens
        // there, and the system never hands it out, so no other test's daemon can take it).
        let gone = config("ghost", seed: 32).instanceID, port: UInt16 = 1
        let log = Log()
        human.onEvent = { log.events.append($0) }
        try human.startDiscovery(broadcast: false, random: SplitMix64(seed: 3))
        let agent = FakeDNSSDAgent()
        human.startDNSSD(agent) { _ in }
        agent.emit(.up(DNSSDSighting(instanceName: "ghost", instanceID: gone, hostTarget: "h.local",
                                     addresses: ["127.0.0.1"], port: port, versions: 1...2, state: .idle, games: [.tictactoe])))
        #expect(human.core.peers.map(\.name) == ["ghost"])

        try human.command(.invite("ghost"))
        let told = { log.has { if case .peerLost = $0 { true } else if case .connectFailed = $0 { true } else { false } } }
        #expect(try run(reactor, for: .seconds(5), until: told))
        let lost = log.events.compactMap { if case let .peerLost(p, reason) = $0 { (p.name, reason) } else { nil } }
        #expect(lost.count == 1 && lost.first?.0 == "ghost" && lost.first?.1 == "ghost has left", "\(log.events)")
        #expect(!log.has { if case .connectFailed = $0 { true } else { false } }, "\(log.events)")
        #expect(human.core.peers.isEmpty)
        #expect(human.core.presenceState == .idle, "the invitation is over")
        // It is back as soon as it is seen again.
        agent.emit(.up(DNSSDSighting(instanceName: "ghost", instanceID: gone, hostTarget: "h.local",
                                     addresses: ["127.0.0.1"], port: port &+ 1, versions: 1...2, state: .idle, games: [.tictactoe])))
        #expect(human.core.peers.map(\.name) == ["ghost"])
        human.leave()
    }
}
