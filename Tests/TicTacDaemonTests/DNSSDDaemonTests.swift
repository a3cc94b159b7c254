import Testing
import TicTacTestSupport
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacEngine
import TicTacNet
import TicTacTime
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore

/// The daemon with a DNS-SD agent (the fake): what it publishes, how sightings reach the lobby,
/// and that its TXT follows the player's state (Protocol.md §10).
@Suite(.serialized) struct DNSSDDaemonTests {
    @Test func sightingsJoinTheLobbyAndTheTXTFollowsTheState() throws {
        let reactor = try Reactor()
        let human = try Daemon(reactor: reactor, config: config("erin", seed: 21))
        let bot = try Daemon(reactor: reactor, config: config("dnsbot", seed: 22, bot: .random))
        let log = Log()
        human.onEvent = { log.events.append($0) }
        // Broadcast off: DNS-SD is the only way the bot can be found.
        try human.startDiscovery(broadcast: false, random: SplitMix64(seed: 1))
        let agent = FakeDNSSDAgent()
        var notices: [String] = []
        human.startDNSSD(agent) { notices.append($0) }
        let published = try #require(agent.published)
        #expect(published.name == "erin" && published.port == human.port)
        #expect(published.txt.instanceID == human.core.config.instanceID && published.txt.state == .idle)

        agent.emit(.registered("erin #2"))
        #expect(notices == ["Published by DNS-SD as \"erin #2\" (the name was taken)"])
        let botID = bot.core.config.instanceID
        agent.emit(.up(DNSSDSighting(instanceName: "dnsbot", instanceID: botID, hostTarget: "h.local",
                                     addresses: ["127.0.0.1"], port: bot.port, versions: 1...1, state: .idle,
                                     games: [.tictactoe])))
        let peer = try #require(human.core.peers.first)
        #expect(peer.id == botID && peer.via == .dnssd && peer.addresses == ["127.0.0.1"])

        // Invite by name: the daemon dials the address DNS-SD gave and plays.
        try human.command(.invite("dnsbot"))
        #expect(try run(reactor, for: .seconds(5)) { human.core.currentGame != nil })
        #expect(agent.updates.last?.state == .playing, "the TXT says we are playing: \(agent.updates)")

        try human.command(.leaveMatch)
        #expect(agent.updates.last?.state == .idle)
        agent.emit(.down(instanceName: "dnsbot", instanceID: botID))
        // Still linked (the match ended, the connection stays): in the lobby until that goes.
        #expect(human.core.peers.first?.via == [])
        human.leave()
        #expect(agent.published == nil, "unpublished on leave")
        bot.leave()
    }
}

/// The daemon reads DNS-SD through the presence service's one adapter: a peer renamed by the
/// responder (two names for one id a while) stays in the lobby when its old name goes.
@Suite struct DNSSDDaemonRenameTests {
    @Test func aRenamedPeerStaysWhenItsOldNameGoes() throws {
        let reactor = try Reactor()
        let human = try Daemon(reactor: reactor, config: config("fay", seed: 23))
        try human.startDiscovery(broadcast: false, random: SplitMix64(seed: 2))
        let agent = FakeDNSSDAgent()
        human.startDNSSD(agent) { _ in }
        let id = ID128(high: 7, low: 7)
        for name in ["gus", "gus #2"] {
            agent.emit(.up(DNSSDSighting(instanceName: name, instanceID: id, hostTarget: "h.local", addresses: ["127.0.0.1"],
                                         port: 1, versions: 1...1, state: .idle, games: [.tictactoe])))
        }
        agent.emit(.down(instanceName: "gus", instanceID: id))
        #expect(human.core.peers.map(\.id) == [id])
        agent.emit(.down(instanceName: "gus #2", instanceID: id))
        #expect(human.core.peers.isEmpty)
        human.leave()
    }
}
