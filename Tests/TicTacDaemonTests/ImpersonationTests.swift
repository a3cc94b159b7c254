import Testing
import TicTacEngine
import TicTacNet
import TicTacTestSupport
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

/// Claiming an id that is not ours, over real sockets (Protocol.md §4): refused with
/// `bad-identity`, and nobody's game is touched.
@Suite(.serialized) struct ImpersonationTests {
    /// A human playing a bot it dialled, the bot's id the lower one (before ids were proven, a
    /// stranger's copy of the bot's HELLO then replaced the human's link to the bot, game and all).
    @Test func aCopiedHelloIsRefusedAndTheVictimsGameGoesOn() throws {
        let reactor = try Reactor()
        let hc = config("human", seed: 51)
        var seed: UInt64 = 52
        while !(config("bot", seed: seed).instanceID < hc.instanceID) { seed += 1 }
        let human = try Daemon(reactor: reactor, config: hc)
        let bot = try Daemon(reactor: reactor, config: config("bot", seed: seed, bot: .random))
        let log = Log()
        human.onEvent = { log.events.append($0) }
        human.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: bot.port)))
        try #require(try run(reactor, for: .seconds(3)) { human.core.peers.count == 1 })
        try human.command(.invite("bot"))
        try #require(try run(reactor, for: .seconds(3)) { human.core.currentGame?.state == .myTurn })
        let botID = bot.core.config.instanceID

        // The stranger reads the bot's HELLO on a connection of its own (the bot, which did not
        // dial, sends no PROOF to a peer that has not proven itself)...
        let spy = try RawClient(port: bot.port)
        try #require(try run(reactor, for: .seconds(2)) { spy.poll(); return spy.peerHello != nil })
        let botHello = try #require(spy.peerHello)
        #expect(botHello.instanceID == botID)
        // ...then offers it to the human, with the best proof it can make: the right transcript,
        // signed with a key of its own.
        let attacker = try RawClient(port: human.port)
        attacker.send(.hello(botHello))
        try #require(try run(reactor, for: .seconds(2)) { attacker.poll(); return attacker.peerHello != nil })
        let humanHello = try #require(attacker.peerHello)
        // Both daemons speak version 2: the transcript covers both HELLOs' ephemeral keys.
        let forged = RawClient.identity(seed: 77).proof(
            version: 2, ours: .init(id: botHello.instanceID, nonce: botHello.nonce, ephemeralKey: botHello.ephemeralKey),
            peer: .init(id: humanHello.instanceID, nonce: humanHello.nonce, ephemeralKey: humanHello.ephemeralKey))
        attacker.send(.proof(signature: try #require(forged)), version: 2)
        try #require(try run(reactor, for: .seconds(2)) { attacker.poll(); return attacker.closedByPeer })
        #expect(attacker.errorCode == .badIdentity)
        #expect(attacker.closedByPeer)
        spy.poll()
        #expect(spy.receivedProof == nil)

        // The human's game with the real bot goes on: one link, the same peer, and a move answered.
        #expect(human.connectionCount == 1)
        #expect(human.core.peers.map(\.id) == [botID])
        #expect(!log.has { if case .disconnected = $0 { true } else { false } })
        #expect(!log.has { if case .peerLost = $0 { true } else { false } })
        let game = try #require(human.core.currentGame)
        #expect(game.state == .myTurn)
        let cell = try #require(game.board.emptyCells.first)
        let before = game.board.filledCount
        try human.command(.move(cell))
        #expect(try run(reactor, for: .seconds(3)) {
            guard let g = human.core.currentGame else { return false }
            return g.board.filledCount >= before + 2 || g.state == .done
        }, "the bot answered")
    }

    @Test func aHelloWhoseKeyDoesNotGiveItsIdIsRefused() throws {
        let reactor = try Reactor()
        let d = try Daemon(reactor: reactor, config: config("target", seed: 53))
        let c = try RawClient(port: d.port)
        var hello = RawClient.helloMessage(name: "liar", seed: 1, nonce: ID128(high: 1, low: 1))
        hello.instanceID = RawClient.identity(seed: 2).instanceID // someone else's id, our key
        c.send(.hello(hello))
        try #require(try run(reactor, for: .seconds(2)) { c.poll(); return c.closedByPeer })
        #expect(c.errorCode == .badIdentity && c.closedByPeer)
        #expect(d.core.peers.isEmpty)
    }

    @Test func aProofWithABadSignatureIsRefused() throws {
        let reactor = try Reactor()
        let d = try Daemon(reactor: reactor, config: config("target", seed: 54))
        let log = Log(), logged = Lines()
        d.onEvent = { log.events.append($0) }
        d.onLog = { logged.lines.append($0) }
        let c = try RawClient(port: d.port)
        c.hello(seed: 3)
        try #require(try run(reactor, for: .seconds(2)) { c.poll(); return c.peerHello != nil })
        guard case var .proof(signature) = c.proof(for: try #require(c.peerHello)) else { Issue.record("no proof"); return }
        signature[0] ^= 0x80
        c.send(.proof(signature: signature))
        try #require(try run(reactor, for: .seconds(2)) { c.poll(); return c.closedByPeer })
        #expect(c.errorCode == .badIdentity && c.closedByPeer)
        #expect(c.receivedProof == nil, "the acceptor signs nothing for an unproven peer")
        #expect(!log.has { if case .peerFound = $0 { true } else { false } })
        // A stranger's fault is the operator's (logged, counted), not the player's.
        #expect(!log.has { if case .protocolError = $0 { true } else { false } })
        #expect(d.core.strangerFaults == 1 && logged.lines.contains { $0.contains("bad-identity") })
        // The same client with its true signature is welcome.
        let honest = try RawClient(port: d.port)
        #expect(try honest.shakeHands(reactor, seed: 3))
        #expect(d.core.peers.count == 1)
    }
}
