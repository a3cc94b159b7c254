import Glibc
import Testing
import TicTacEngine
import TicTacNet
import TicTacTestSupport
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

/// A busy daemon is shared fairly (Protocol.md §5): by network prefix and peer id as well as
/// by address, room made at the greediest source's expense, and requests that only cost a
/// refusal held to a budget. Real sockets from several loopback addresses, bounded.
@Suite(.serialized) struct FairShareTests {
    @Test func prefixesAreSlash24AndSlash64() {
        #expect(SourcePrefix.of("192.168.1.7") == "192.168.1")
        #expect(SourcePrefix.of("::ffff:10.0.0.1") == "10.0.0")
        #expect(SourcePrefix.of("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2")
        #expect(SourcePrefix.of("fe80::1%eth0") == "fe80:0:0:0")
        #expect(SourcePrefix.of("2001:db8::") == "2001:db8:0:0")
        #expect(SourcePrefix.of("not an address") == "not an address")
    }

    /// IPv4 text is read in its bytes when it has the usual form: the answer is the general
    /// reading's (split at the dots, each part a UInt8, the first three joined) for every text,
    /// usual or not: leading zeros, signs, four digits, empty parts, values past 255.
    @Test func dottedQuadsReadInBytesAsInParts() {
        func reference(_ a: String) -> String {
            let parts = a.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return a }
            return parts.prefix(3).joined(separator: ".")
        }
        var texts = ["1.2.3.4", "10.0.0.255", "001.002.003.004", "0001.2.3.4", "+1.2.3.4", "256.1.1.1",
                     "1.2.3.256", "1.2.3", "1..2.3", "1.2.3.4.", ".1.2.3", "1.2.3.4.5", "", "a.b.c.d", "1.2.3.0x1"]
        var random = SplitMix64(seed: 0x7163)
        let alphabet = Array("0123456789.+-a")
        for _ in 0..<2_000 {
            let n = Int(random.next() % 16)
            texts.append(String((0..<n).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }))
        }
        for t in texts { #expect(SourcePrefix.of(t) == reference(t), "\(t)") }
        // An IPv4-mapped address the same way, and what the general reading makes of the others.
        #expect(SourcePrefix.of("::ffff:192.168.1.7") == "192.168.1")
        #expect(SourcePrefix.of("::ffff:0001.2.3.4") == "0001.2.3")
        #expect(SourcePrefix.of("::ffff:256.1.1.1") == "::ffff:256.1.1.1")
    }

    /// Raw clients from `source`, each with its own identity, shaken hands and playing a game.
    func players(_ n: Int, from source: String, seed: UInt64, daemon: Daemon, reactor: Reactor) throws -> [RawClient] {
        var clients: [RawClient] = []
        let games = daemon.core.gameCount + n
        for i in 0..<n {
            let c = try RawClient(port: daemon.port, source: source)
            try #require(try c.shakeHands(reactor, seed: seed + UInt64(i)))
            c.send(.invite(Invite(gameID: ID128(high: seed, low: UInt64(i)))))
            clients.append(c)
        }
        let started = try run(reactor, for: .seconds(2)) { daemon.core.gameCount == games }
        for c in clients { c.poll() }
        try #require(started, "games: \(daemon.core.gameCount)")
        return clients
    }

    @Test func atTheLimitTheGreediestSourceMakesRoomEvenWithItsGames() throws {
        let reactor = try Reactor()
        let daemon = try Daemon(reactor: reactor, config: config("target", seed: 7, bot: .perfect))
        daemon.maxConnections = 3
        let greedy = try players(3, from: "127.0.0.1", seed: 100, daemon: daemon, reactor: reactor)
        // Same /24, another address: the greediest address there (3 links) gives one up.
        let neighbour = try RawClient(port: daemon.port, source: "127.0.0.2")
        try #require(try run(reactor, for: .seconds(2)) { neighbour.poll(); return neighbour.peerHello != nil || neighbour.closedByPeer })
        #expect(neighbour.peerHello != nil, "refused: \(neighbour.messages)")
        for c in greedy { c.poll() }
        #expect(greedy.filter { $0.errorCode == .busy }.count == 1, "one of the greedy address's links made room")
        // Another /24: the greediest prefix (127.0.0, three links) gives one up, from its
        // greediest address (127.0.0.1, two), never the neighbour's only link.
        let stranger = try RawClient(port: daemon.port, source: "127.0.1.1")
        try #require(try run(reactor, for: .seconds(2)) { stranger.poll(); return stranger.peerHello != nil || stranger.closedByPeer })
        #expect(stranger.peerHello != nil, "refused: \(stranger.messages)")
        for c in greedy { c.poll() }
        neighbour.poll()
        #expect(greedy.filter { $0.errorCode == .busy }.count == 2)
        #expect(!neighbour.closedByPeer, "the neighbour's only link stays")
        #expect(daemon.core.gameCount == 1, "the greedy address keeps its share: one link, one game")
    }

    @Test func onePrefixGetsAtMostItsShare() throws {
        let reactor = try Reactor()
        let daemon = try Daemon(reactor: reactor, config: config("target", seed: 7, bot: .perfect))
        daemon.maxLinksPerAddress = 2
        daemon.maxLinksPerPrefix = 3
        var clients = [try RawClient(port: daemon.port, source: "127.0.0.1"), try RawClient(port: daemon.port, source: "127.0.0.1"),
                       try RawClient(port: daemon.port, source: "127.0.0.2")]
        try #require(try run(reactor, for: .seconds(2)) { daemon.connectionCount == 3 })
        let fourth = try RawClient(port: daemon.port, source: "127.0.0.3")
        try #require(try run(reactor, for: .seconds(2)) { fourth.poll(); return fourth.closedByPeer })
        #expect(fourth.errorCode == .busy && fourth.peerHello == nil, "a fourth link from 127.0.0.0/24")
        let other = try RawClient(port: daemon.port, source: "127.0.1.1")
        #expect(try other.shakeHands(reactor), "another /24 has its own share")
        clients.removeLast()
        try #require(try run(reactor, for: .seconds(2)) { daemon.connectionCount == 3 })
        let again = try RawClient(port: daemon.port, source: "127.0.0.3")
        #expect(try again.shakeHands(reactor), "the prefix's place freed is used again")
    }

    @Test func onePeerIDHoldsAtMostTwoLinks() throws {
        let reactor = try Reactor()
        let target = config("target", seed: 7, bot: .perfect)
        // The daemon keeps a spare link only when its id is the higher (Protocol.md §4).
        let seed = try #require((1...200).map(UInt64.init).first { RawClient.identity(seed: $0).instanceID < target.instanceID })
        let daemon = try Daemon(reactor: reactor, config: target)
        let first = try RawClient(port: daemon.port), second = try RawClient(port: daemon.port)
        try #require(try first.shakeHands(reactor, seed: seed))
        try #require(try second.shakeHands(reactor, seed: seed))
        let third = try RawClient(port: daemon.port)
        _ = try third.shakeHands(reactor, seed: seed)
        try #require(try run(reactor, for: .seconds(2)) { third.poll(); return third.closedByPeer })
        #expect(third.errorCode == .busy, "a third link proving the same id: \(third.messages)")
        first.poll()
        second.poll()
        #expect(!first.closedByPeer && !second.closedByPeer)
    }

    @Test func declinedInvitationsHaveABudgetPerLinkAndPerAddress() throws {
        let reactor = try Reactor()
        var c = config("target", seed: 7, bot: .perfect)
        c.maxDeclinesPerAddressPerSecond = 12
        let daemon = try Daemon(reactor: reactor, config: c)
        let clients = try players(2, from: "127.0.0.1", seed: 300, daemon: daemon, reactor: reactor)
        // Each link has a game: every further INVITE is declined busy, 8 a second per link.
        for i in 0..<20 { clients[0].send(.invite(Invite(gameID: ID128(high: 1, low: UInt64(i))))) }
        try #require(try run(reactor, for: .seconds(2)) { clients[0].poll(); return clients[0].closedByPeer })
        let declines = { (c: RawClient) in c.messages.count { if case .decline = $0 { true } else { false } } }
        #expect(declines(clients[0]) == 8)
        #expect(clients[0].errorCode == .unexpectedMessage)
        // The second link, same address, same second: the address has 4 declines left.
        for i in 0..<8 { clients[1].send(.invite(Invite(gameID: ID128(high: 2, low: UInt64(i))))) }
        try #require(try run(reactor, for: .seconds(2)) { clients[1].poll(); return clients[1].closedByPeer })
        #expect(declines(clients[1]) == 4)
        #expect(clients[1].errorCode == .unexpectedMessage)
    }

    @Test func aBotPlaysAtMostItsGamesPerPeerPerMinute() throws {
        let reactor = try Reactor()
        var c = config("target", seed: 7, bot: .perfect)
        c.maxGamesPerPeerPerMinute = 3
        c.rematchDelay = .zero
        let target = try Daemon(reactor: reactor, config: c)
        var a = config("rusher", seed: 8, bot: .random)
        a.rematchDelay = .zero
        let rusher = try Daemon(reactor: reactor, config: a)
        let log = Log(), rusherLog = Log()
        target.onEvent = { log.events.append($0) }
        rusher.onEvent = { rusherLog.events.append($0) }
        rusher.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: target.port)))
        // Bot against bot, rematching at once: after 3 games the target ends the match.
        try #require(try run(reactor, for: .seconds(5)) {
            log.has { if case .matchEnded(_, byUs: true) = $0 { true } else { false } }
        })
        _ = try run(reactor, for: .milliseconds(500)) { false }
        #expect(log.results.count == 3, "games played: \(log.results.count)")
        _ = rusherLog
    }

    @Test func pastItsGamesAPeersInvitationIsDeclinedBusy() throws {
        let reactor = try Reactor()
        var c = config("target", seed: 7, bot: .perfect)
        c.maxGamesPerPeerPerMinute = 1
        let daemon = try Daemon(reactor: reactor, config: c)
        let peer = try players(1, from: "127.0.0.1", seed: 400, daemon: daemon, reactor: reactor)[0]
        peer.send(.cancel(gameID: ID128(high: 400, low: 0))) // leaves the match
        try #require(try run(reactor, for: .seconds(2)) { daemon.core.gameCount == 0 })
        peer.send(.invite(Invite(gameID: ID128(high: 400, low: 1))))
        try #require(try run(reactor, for: .seconds(2)) {
            peer.poll()
            return peer.messages.contains { if case .decline = $0 { true } else { false } }
        })
        #expect(peer.messages.contains { if case .decline(_, .busy) = $0 { true } else { false } })
        #expect(daemon.core.gameCount == 0)
    }

    @Test func aPeerWhoseInvitationWasDeclinedIsHeldOffForAWhile() throws {
        let reactor = try Reactor()
        var c = config("human", seed: 7)
        c.reinviteQuiet = .seconds(1)
        let daemon = try Daemon(reactor: reactor, config: c)
        let log = Log()
        daemon.onEvent = { log.events.append($0) }
        let invitations = { log.events.count { if case .invited = $0 { true } else { false } } }
        let peer = try RawClient(port: daemon.port)
        try #require(try peer.shakeHands(reactor, seed: 500))
        peer.send(.invite(Invite(gameID: ID128(high: 500, low: 1))))
        try #require(try run(reactor, for: .seconds(2)) { invitations() == 1 })
        try daemon.command(.decline)
        // Invited again at once: declined busy without asking the player.
        peer.send(.invite(Invite(gameID: ID128(high: 500, low: 2))))
        try #require(try run(reactor, for: .seconds(2)) {
            peer.poll()
            return peer.messages.contains { if case .decline(ID128(high: 500, low: 2), _) = $0 { true } else { false } }
        })
        #expect(peer.messages.contains { if case .decline(ID128(high: 500, low: 2), .busy) = $0 { true } else { false } })
        #expect(invitations() == 1, "the player was not asked again")
        // After the quiet time the player is asked again.
        _ = try run(reactor, for: .milliseconds(1100)) { false }
        peer.send(.invite(Invite(gameID: ID128(high: 500, low: 3))))
        try #require(try run(reactor, for: .seconds(2)) { invitations() == 2 })
    }
}
