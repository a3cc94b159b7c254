import Testing
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacEngine
import TicTacNet
import TicTacTestSupport
import TicTacTime
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore

/// The lobby's merge of discovery and links (Protocol.md §7): a proven link outweighs a hint,
/// and discovery never removes a peer a link carries.
@Suite struct SignedPresenceLobbyTests {
    @Test func discoverySigningKeyGivesTheHandshakesID() throws {
        var rng = SplitMix64(seed: 5)
        let identity = Identity(using: &rng)
        let key = try #require(PresenceKey(privateKey: identity.privateKey))
        #expect(key.publicKey == identity.publicKey && key.instanceID == identity.instanceID)
    }

    @Test func aLinkedPeerOutweighsAnUnsignedHintAndStaysWhenDiscoveryLosesIt() throws {
        let ann = config("ann", seed: 11), ben = config("ben", seed: 12)
        var net = CoreNet(ann, ben)
        _ = net.connect(dialler: 0, to: 1)
        net.settle()
        #expect(net.cores[0].peers.map(\.name) == ["ben"])
        // A forged, unsigned ANNOUNCE with ben's id and another name and port.
        let forged = PresencePeer(id: ben.instanceID, name: "mallory", addresses: ["198.18.0.66"], port: 6666,
                                  capabilities: [.tictactoe], versions: 1...1, state: .idle, via: .broadcast)
        net.presence(0, .found(forged))
        let shown = try #require(net.cores[0].peers.first)
        #expect(shown.name == "ben" && shown.port != 6666)
        // Discovery loses it: the link still carries it, no peer-lost.
        net.presence(0, .lost(forged, reason: "gone"))
        #expect(net.cores[0].peers.map(\.name) == ["ben"])
        #expect(!net.events[0].contains { if case .peerLost = $0 { true } else { false } })
        // Signed, discovery's word holds for name and port (the peer says what it is now).
        var signed = forged
        signed.signed = true
        signed.name = "ben2"
        net.presence(0, .found(signed))
        #expect(net.cores[0].peers.first?.name == "ben2")
    }

    @Test func theTXTsGamesFollowTheAnnounceWhenTheFieldOpens() throws {
        let reactor = try Reactor()
        let daemon = try Daemon(reactor: reactor, config: config("gil", seed: 31))
        try daemon.startDiscovery(broadcast: false, random: SplitMix64(seed: 1))
        let agent = FakeDNSSDAgent()
        daemon.startDNSSD(agent) { _ in }
        #expect(agent.published?.txt.games == [.tictactoe])
        // The field opens as FieldSession opens it: capability and port in what is announced.
        let presence = try #require(daemon.presence)
        var local = presence.local
        local.capabilities.insert(.field)
        local.fieldPort = 40_123
        presence.update(local)
        #expect(agent.updates.last?.games == [.tictactoe, .field])
        local.capabilities.remove(.field)
        presence.update(local)
        #expect(agent.updates.last?.games == [.tictactoe])
        daemon.leave()
    }
}
