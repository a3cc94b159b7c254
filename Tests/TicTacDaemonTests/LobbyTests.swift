import Testing
import TicTacAPI
import TicTacEngine
import TicTacNet
import TicTacTestSupport
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

@Suite(.serialized) struct LobbyTests {
    private func pair(_ a: String, _ b: String, botB: BotLevel? = nil, tweak: (inout DaemonConfig) -> Void = { _ in })
        throws -> (Reactor, Daemon, Daemon, Log, Log) {
        let reactor = try Reactor()
        var ca = config(a, seed: 21), cb = config(b, seed: 22, bot: botB)
        tweak(&ca)
        tweak(&cb)
        let da = try Daemon(reactor: reactor, config: ca), db = try Daemon(reactor: reactor, config: cb)
        let la = Log(), lb = Log()
        da.onEvent = { la.events.append($0) }
        db.onEvent = { lb.events.append($0) }
        return (reactor, da, db, la, lb)
    }

    private func found(_ log: Log) -> Int { log.events.count { if case .peerFound = $0 { true } else { false } } }

    @Test func dialingEachOtherAtOnceLeavesOneConnection() throws {
        let (reactor, a, b, la, lb) = try pair("ann", "ben")
        a.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: b.port)))
        b.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: a.port)))
        try #require(try run(reactor, for: .seconds(3)) { a.core.linkCount == 1 && b.core.linkCount == 1 && found(la) == 1 && found(lb) == 1 })
        try turn(reactor, for: .milliseconds(300)) // let any late close settle
        #expect(a.connectionCount == 1 && b.connectionCount == 1)
        #expect(found(la) == 1 && found(lb) == 1)
        #expect(!la.has { if case .peerLost = $0 { true } else { false } })
        try a.command(.invite("ben"))
        try #require(try run(reactor, for: .seconds(2)) { b.core.peers.count == 1 && lb.has { if case .invited = $0 { true } else { false } } })
        try b.command(.accept)
        #expect(try run(reactor, for: .seconds(2)) { a.core.gameCount == 1 && b.core.gameCount == 1 && a.core.currentGame?.state != .rollingDice })
    }

    @Test func dialTriesEachAddressInTurn() throws {
        let (reactor, a, b, la, lb) = try pair("ann", "ben")
        let closed = try #require(SocketAddress(ip: "127.0.0.1", port: 1)) // refused: nothing listens
        let failed = { la.events.count { if case .connectFailed = $0 { true } else { false } } }
        a.connect(to: [closed, closed, try #require(SocketAddress(ip: "127.0.0.1", port: b.port))])
        #expect(try run(reactor, for: .seconds(3)) { found(la) == 1 && found(lb) == 1 })
        #expect(failed() == 0, "a later address worked: no failure to report")
        a.connect(to: [closed, closed])
        #expect(try run(reactor, for: .seconds(3)) { failed() == 1 })
        try turn(reactor, for: .milliseconds(200))
        #expect(failed() == 1, "one report when every address failed")
        #expect(a.connectionCount == 1 && a.core.linkCount == 1)
    }

    @Test func crossingInvitationsMakeOneGame() throws {
        let (reactor, a, b, la, lb) = try pair("ann", "ben")
        a.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: b.port)))
        try #require(try run(reactor, for: .seconds(2)) { found(la) == 1 && found(lb) == 1 })
        try a.command(.invite("ben"))
        try b.command(.invite("ann")) // before either INVITE has arrived
        #expect(try run(reactor, for: .seconds(2)) {
            [a, b].allSatisfy { $0.core.currentGame.map { $0.state == .myTurn || $0.state == .opponentTurn } ?? false }
        })
        #expect(a.core.gameCount == 1 && b.core.gameCount == 1)
        #expect(!la.has { if case .invited = $0 { true } else { false } } || !lb.has { if case .invited = $0 { true } else { false } })
        #expect(Set([a.core.currentGame?.piece, b.core.currentGame?.piece]) == [.o, .x])
    }

    @Test func aPlayerInAGameAnswersBusy() throws {
        let (reactor, human, bot, lh, _) = try pair("hana", "botty", botB: .random)
        human.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: bot.port)))
        try #require(try run(reactor, for: .seconds(2)) { found(lh) == 1 })
        try human.command(.invite("botty"))
        try #require(try run(reactor, for: .seconds(2)) { human.core.gameCount == 1 })
        let third = try Daemon(reactor: reactor, config: config("third", seed: 23))
        let lt = Log()
        third.onEvent = { lt.events.append($0) }
        third.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: human.port)))
        try #require(try run(reactor, for: .seconds(2)) { found(lt) == 1 })
        try third.command(.invite("hana"))
        #expect(try run(reactor, for: .seconds(2)) { lt.has { $0 == .declined(by: third.core.peers[0], reason: .busy) } })
        #expect(human.core.gameCount == 1, "the running game was not replaced")
        #expect(!lh.has { if case .invited = $0 { true } else { false } })
        #expect(throws: CommandError.busy) { try human.command(.invite("third")) }
    }

    /// A DECLINE over real sockets. The invitation's 30 s deadline is checked on virtual time
    /// (CoreTimerTests).
    @Test func aDeclineIsShownAndFreesBoth() throws {
        let (reactor, a, b, la, lb) = try pair("ann", "ben")
        a.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: b.port)))
        try #require(try run(reactor, for: .seconds(2)) { found(la) == 1 && found(lb) == 1 })
        try a.command(.invite("ben"))
        try #require(try run(reactor, for: .seconds(2)) { lb.has { if case .invited = $0 { true } else { false } } })
        try b.command(.decline)
        #expect(try run(reactor, for: .seconds(2)) { la.has { if case .declined(_, .declined) = $0 { true } else { false } } })
        #expect(throws: CommandError.noInvitation) { try b.command(.accept) }
        #expect(a.core.gameCount == 0 && b.core.gameCount == 0)
        #expect(a.core.presenceState == .idle && b.core.presenceState == .idle)
    }

    @Test func leaveIsSeenAtOnce() throws {
        let (reactor, human, bot, lh, _) = try pair("hana", "botty", botB: .random)
        human.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: bot.port)))
        try #require(try run(reactor, for: .seconds(2)) { found(lh) == 1 })
        try human.command(.invite("botty"))
        try #require(try run(reactor, for: .seconds(2)) { human.core.gameCount == 1 })
        let start = reactor.now
        bot.leave()
        // Before the 5 s liveness limit (with room for a loaded machine), and for the LEAVE.
        #expect(try run(reactor, for: .seconds(4)) { lh.has { if case .disconnected = $0 { true } else { false } } })
        #expect(reactor.now - start < .seconds(4), "LEAVE is not a timeout")
        #expect(lh.has { if case let .disconnected(_, reason) = $0 { reason.contains("left") } else { false } })
        #expect(human.core.gameCount == 0)
    }

    /// Real-socket smoke test of the liveness timers (short ones here); their rules, to the
    /// millisecond, are checked on virtual time (CoreTimerTests).
    @Test func aSilentPeerIsPingedThenDropped() throws {
        let reactor = try Reactor()
        var c = config("watch", seed: 31)
        c.pingAfter = .milliseconds(100)
        c.deadAfter = .milliseconds(500)
        let d = try Daemon(reactor: reactor, config: c)
        let log = Log()
        d.onEvent = { log.events.append($0) }
        let raw = try RawClient(port: d.port)
        try #require(try raw.shakeHands(reactor)) // then never a word more
        try #require(try run(reactor, for: .seconds(3)) { raw.poll(); return raw.closedByPeer })
        #expect(raw.closedByPeer && raw.errorCode == .timeout, "ERROR timeout, then the close")
        #expect(raw.messages.count { if case .ping = $0 { true } else { false } } >= 3)
        #expect(log.has { if case let .peerLost(_, reason) = $0 { reason.contains("no answer") } else { false } })
    }

    @Test func aDaemonConnectedToItselfRefuses() throws {
        let reactor = try Reactor()
        let d = try Daemon(reactor: reactor, config: config("narcissus", seed: 41))
        let log = Log(), logged = Lines()
        d.onEvent = { log.events.append($0) }
        d.onLog = { logged.lines.append($0) }
        d.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: d.port)))
        try #require(try run(reactor, for: .seconds(2)) { d.core.strangerFaults >= 1 && d.connectionCount == 0 })
        #expect(d.core.peers.isEmpty)
        // Never proven: logged for the operator, not shown to the player.
        #expect(!log.has { if case .protocolError = $0 { true } else { false } })
        #expect(logged.lines.contains { $0.contains("unexpected-message") && $0.contains("itself") }, "\(logged.lines)")
    }

    /// HELLO field 9 (Protocol.md §6): a peer known only by its link (`--connect`, no
    /// discovery) shows the program playing under its name; a daemon without one says none.
    @Test func aLinkedPeerShowsTheProgramItsHelloNames() throws {
        let (reactor, a, b, la, lb) = try pair("ann", "gomoku", botB: .perfect) { c in
            if c.name.value == "gomoku" { c.program = try? DisplayName("pbrain-tiny 1.0") }
        }
        a.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: b.port)))
        try #require(try run(reactor, for: .seconds(2)) { found(la) == 1 && found(lb) == 1 })
        let seen = la.events.compactMap { if case let .peerFound(p) = $0 { p } else { nil } }
        #expect(seen.first?.program == "pbrain-tiny 1.0" && seen.first?.name == "gomoku")
        #expect(a.core.peers.first?.program == "pbrain-tiny 1.0")
        let back = lb.events.compactMap { if case let .peerFound(p) = $0 { p } else { nil } }
        #expect(back.first?.name == "ann" && back.first?.program == nil)
    }
}
