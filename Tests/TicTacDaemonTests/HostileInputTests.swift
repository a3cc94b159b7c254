import Glibc
import Testing
import TicTacEngine
import TicTacNet
import TicTacTestSupport
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

/// Bad input over a real socket: each gets its documented outcome (Protocol.md §5: ERROR then
/// close, or a close after the handshake timeout), the daemon stays up, and a legitimate game
/// still completes afterwards.
@Suite(.serialized) struct HostileInputTests {
    let reactor: Reactor
    let daemon: Daemon
    let log = Log()

    init() throws {
        reactor = try Reactor()
        var c = config("target", seed: 7, bot: .perfect)
        c.handshakeTimeout = .milliseconds(500)
        daemon = try Daemon(reactor: reactor, config: c)
        daemon.onEvent = { [log] in log.events.append($0) }
    }

    /// Pumps until the client has been answered and closed (or the limit).
    private func settle(_ client: RawClient, limit: Duration = .seconds(3)) throws {
        try #require(try run(reactor, for: limit) {
            client.poll()
            return client.closedByPeer
        }, "the daemon closed the client")
    }

    /// A bot from another daemon plays one whole game against the target: it still works.
    private func legitimateGameCompletes(against target: Daemon? = nil) throws {
        let other = try Daemon(reactor: reactor, config: config("legit", seed: 8, bot: .random))
        let otherLog = Log()
        other.onEvent = { otherLog.events.append($0) }
        other.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: (target ?? daemon).port)))
        #expect(try run(reactor, for: .seconds(10)) { !otherLog.results.isEmpty })
        other.leave()
        try #require(try run(reactor, for: .seconds(2)) { other.connectionCount == 0 })
    }

    private func expectAnswer(_ client: RawClient, _ code: ErrorCode, _ note: Comment) throws {
        try settle(client)
        #expect(client.errorCode == code, note)
        #expect(client.closedByPeer, note)
        try legitimateGameCompletes()
    }

    @Test func garbageBytes() throws {
        let c = try RawClient(port: daemon.port)
        c.write(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        try expectAnswer(c, .badMagic, "garbage")
    }

    @Test func wrongMagic() throws {
        let c = try RawClient(port: daemon.port)
        var bytes = Message.leave.encoded()
        bytes[3] = 0x58
        c.write(bytes)
        try expectAnswer(c, .badMagic, "wrong magic")
    }

    @Test func hugeDeclaredLength() throws {
        let c = try RawClient(port: daemon.port)
        // Header only, declaring 4 GiB - 1: refused from the header, nothing allocated for it.
        c.write([0x54, 0x54, 0x41, 0x43, 1, 0x24, 0, 0, 0xff, 0xff, 0xff, 0xff])
        try expectAnswer(c, .frameTooLarge, "huge length")
    }

    @Test func truncatedHeaderThenSilence() throws {
        let c = try RawClient(port: daemon.port)
        c.write([0x54, 0x54, 0x41])
        try expectAnswer(c, .timeout, "no HELLO within the handshake timeout")
    }

    @Test func unsupportedVersionRange() throws {
        let c = try RawClient(port: daemon.port)
        var future = RawClient.helloMessage(name: "future", seed: 1, nonce: ID128(high: 1, low: 1))
        (future.minVersion, future.maxVersion) = (7, 9)
        c.send(.hello(future), version: 9)
        try expectAnswer(c, .unsupportedVersion, "no common version")
    }

    @Test func frameOfAnotherVersionAfterHandshake() throws {
        let c = try RawClient(port: daemon.port)
        try #require(try c.shakeHands(reactor))
        c.send(.ping(nonce: 1), version: 2)
        try expectAnswer(c, .unsupportedVersion, "version 2 frame on a version 1 link")
    }

    @Test func unknownTypeWithAndWithoutIgnorable() throws {
        let c = try RawClient(port: daemon.port)
        try #require(try c.shakeHands(reactor))
        c.write(Frame(version: 1, type: 0x7e, flags: Frame.ignorableFlag, payload: []).bytes) // skipped
        c.send(.ping(nonce: 42))
        try #require(try run(reactor, for: .seconds(2)) { c.poll(); return c.messages.contains(.pong(nonce: 42)) })
        #expect(c.messages.contains(.pong(nonce: 42)), "an IGNORABLE unknown frame is skipped")
        c.write(Frame(version: 1, type: 0x7e, payload: []).bytes)
        try expectAnswer(c, .unknownType, "unknown type without IGNORABLE")
    }

    @Test func messageBeforeHello() throws {
        let c = try RawClient(port: daemon.port)
        c.send(.move(cell: 4))
        try expectAnswer(c, .unexpectedMessage, "MOVE before HELLO")
        let other = try RawClient(port: daemon.port)
        other.send(.move(cell: 4), version: 2)
        try expectAnswer(other, .unexpectedMessage, "MOVE of another version before HELLO: still not a HELLO")
    }

    @Test func secondHelloOfAnotherVersion() throws {
        let c = try RawClient(port: daemon.port)
        try #require(try c.shakeHands(reactor))
        c.send(.hello(RawClient.helloMessage(name: "again", seed: 1, nonce: ID128(high: 1, low: 1))), version: 2)
        try expectAnswer(c, .unexpectedMessage, "a second HELLO, whatever its header's version")
    }

    // MARK: - Game faults: a scripted peer that plays the protocol by hand

    /// Invites the bot and returns what it sent back after accepting (RESET, ROLL_COMMIT).
    private func invited(_ c: RawClient) throws {
        try #require(try c.shakeHands(reactor))
        c.send(.invite(Invite(gameID: ID128(high: 5, low: 5))))
        try #require(try run(reactor, for: .seconds(2)) {
            c.poll()
            return c.messages.contains { if case .rollCommit = $0 { true } else { false } }
        }, "the bot accepted and committed its roll")
    }

    @Test func moveBeforeTheFirstMoveDecision() throws {
        let c = try RawClient(port: daemon.port)
        try invited(c)
        c.send(.move(cell: 0))
        try expectAnswer(c, .illegalMove, "move before the roll is decided")
    }

    @Test func rollThatDoesNotMatchItsCommitment() throws {
        let c = try RawClient(port: daemon.port)
        try invited(c)
        let nonce = ID128(high: 1, low: 1)
        c.send(.reset)
        c.send(.rollCommit(commitment: Commitment.make(roll: 10, nonce: nonce)))
        c.send(.roll(value: 999_999, nonce: nonce))
        try expectAnswer(c, .commitmentMismatch, "a reveal that does not open the commitment")
    }

    /// Plays the fair roll honestly against the bot and returns with us to move: when the bot
    /// moves first, after its move, which is returned.
    private func rollHonestly(_ c: RawClient, roll: UInt32) throws -> UInt16? {
        try invited(c)
        let nonce = ID128(high: 2, low: 2)
        let ours = Commitment.make(roll: roll, nonce: nonce)
        c.send(.reset)
        c.send(.rollCommit(commitment: ours))
        c.send(.roll(value: roll, nonce: nonce))
        var theirs: (UInt32, ID128)?
        var theirCommitment: [UInt8]?
        try #require(try run(reactor, for: .seconds(2)) {
            c.poll()
            for case let .roll(v, n) in c.messages { theirs = (v, n) }
            for case let .rollCommit(commitment, _) in c.messages { theirCommitment = commitment }
            return theirs != nil && c.messages.contains(.rollAck(value: roll))
        }, "the bot revealed its roll and acknowledged ours")
        let t = try #require(theirs)
        c.send(.rollAck(value: t.0))
        // Who moves first comes from both secrets (Protocol.md §8), as the daemon computes it.
        let tc = try #require(theirCommitment)
        let decision = try #require(FirstMove.decide(
            ourCommitment: ours, ourSecret: Commitment.secret(roll: roll, nonce: nonce),
            theirCommitment: tc, theirSecret: Commitment.secret(roll: t.0, nonce: t.1)))
        if decision.weMoveFirst { return nil }
        var botMove: UInt16?
        try #require(try run(reactor, for: .seconds(2)) {
            c.poll()
            for case let .move(cell) in c.messages { botMove = cell }
            return botMove != nil
        }, "the bot moved first")
        let move: UInt16 = try #require(botMove, "the bot moved first, so its MOVE comes") // unwrapped: nil fails here
        return move
    }

    @Test func moveOutOfTurn() throws {
        // A bot's turn lasts no time at all, so the target here is a human seat that has not
        // moved yet: once it is the human's turn (at once, or after our first move), we move anyway.
        var hc = config("human", seed: 11)
        hc.handshakeTimeout = .milliseconds(500)
        let human = try Daemon(reactor: reactor, config: hc)
        let humanLog = Log()
        human.onEvent = { humanLog.events.append($0) }
        let c = try RawClient(port: human.port)
        try #require(try c.shakeHands(reactor))
        c.send(.invite(Invite(gameID: ID128(high: 6, low: 6))))
        #expect(try run(reactor, for: .seconds(2)) { (try? human.command(.accept)) != nil })
        let nonce = ID128(high: 3, low: 3)
        let ours = Commitment.make(roll: 0, nonce: nonce)
        c.send(.reset)
        c.send(.rollCommit(commitment: ours))
        c.send(.roll(value: 0, nonce: nonce))
        var theirs: (UInt32, ID128)?
        var theirCommitment: [UInt8]?
        try #require(try run(reactor, for: .seconds(2)) {
            c.poll()
            for case let .roll(v, n) in c.messages { theirs = (v, n) }
            for case let .rollCommit(commitment, _) in c.messages { theirCommitment = commitment }
            return theirs != nil
        }, "the human seat revealed its roll")
        let t = try #require(theirs)
        c.send(.rollAck(value: t.0))
        let tc = try #require(theirCommitment)
        let decision = try #require(FirstMove.decide(
            ourCommitment: ours, ourSecret: Commitment.secret(roll: 0, nonce: nonce),
            theirCommitment: tc, theirSecret: Commitment.secret(roll: t.0, nonce: t.1)))
        if decision.weMoveFirst { c.send(.move(cell: 0)) }
        try #require(try run(reactor, for: .seconds(5)) { human.core.currentGame?.state == .myTurn })
        c.send(.move(cell: 8))
        try settle(c)
        #expect(c.errorCode == .illegalMove)
        #expect(human.core.currentGame == nil || human.core.currentGame?.board[8] == .empty)
        // The player hears why (the error), then that the peer and the game are gone.
        try #require(try run(reactor, for: .seconds(5)) { humanLog.has { if case .peerLost = $0 { true } else { false } } })
        let order = humanLog.events.compactMap { e -> String? in
            switch e {
            case .protocolError: "error"
            case .disconnected: "disconnected"
            case .peerLost: "lost"
            default: nil
            }
        }
        #expect(order == ["error", "disconnected", "lost"])
        try legitimateGameCompletes()
    }

    @Test func occupiedAndOffBoardCells() throws {
        for (i, cell) in [UInt16(9), 500].enumerated() {
            let c = try RawClient(port: daemon.port)
            _ = i
            _ = try rollHonestly(c, roll: 999_999)
            c.send(.move(cell: cell))
            try expectAnswer(c, .illegalMove, "cell \(cell) is off the board")
        }
        let c = try RawClient(port: daemon.port)
        if let botCell = try rollHonestly(c, roll: 999_999) {
            c.send(.move(cell: botCell)) // the bot moved first: its cell is taken
        } else {
            c.send(.move(cell: 4))
            try #require(try run(reactor, for: .seconds(2)) { c.poll(); return c.messages.contains { if case .move = $0 { true } else { false } } })
            c.send(.move(cell: 4)) // wherever the bot went, 4 is ours now
        }
        try expectAnswer(c, .illegalMove, "occupied cell")
    }

    @Test func slowWriterIsClosedAtTheHandshakeTimeout() throws {
        let c = try RawClient(port: daemon.port)
        let hello = Message.hello(RawClient.helloMessage(name: "slow", seed: 9, nonce: ID128(high: 9, low: 9)))
        var sent = 0
        let bytes = hello.encoded()
        let start = reactor.now
        try #require(try run(reactor, for: .seconds(3)) {
            // One byte per 100 ms (the handshake timeout here is 500 ms).
            if sent < bytes.count, reactor.now >= start + .milliseconds(Int64(100 * sent)) {
                c.write([bytes[sent]])
                sent += 1
            }
            c.poll()
            return c.closedByPeer
        }, "the handshake timed out and the daemon closed")
        #expect(c.closedByPeer && c.errorCode == .timeout)
        #expect(sent < bytes.count)
        try legitimateGameCompletes()
    }

    @Test func floodOfHalfOpenConnectionsIsClearedByTheHandshakeTimeout() throws {
        var clients: [RawClient] = []
        daemon.maxLinksPerAddress = 1000 // all from 127.0.0.1: this test is about the timeout
        for _ in 0..<500 { clients.append(try RawClient(port: daemon.port)) }
        try #require(try run(reactor, for: .seconds(5)) { daemon.connectionCount >= 500 })
        #expect(daemon.connectionCount == 500)
        try #require(try run(reactor, for: .seconds(5)) { daemon.connectionCount == 0 })
        #expect(daemon.connectionCount == 0)
        for c in clients.prefix(10) {
            c.poll()
            #expect(c.closedByPeer && c.errorCode == .timeout)
        }
        clients.removeAll()
        try legitimateGameCompletes()
    }

    /// One instance id on two connections (the second kept as a spare): a second invitation is
    /// refused as busy (one game per pair), and a game played on the spare ends with a
    /// `disconnected` when the spare closes.
    @Test func aSecondConnectionFromTheSamePeerGetsOneGameAndItsEnd() throws {
        let first = try RawClient(port: daemon.port), spare = try RawClient(port: daemon.port)
        try #require(try first.shakeHands(reactor, seed: 5))
        try #require(try run(reactor, for: .seconds(2)) { log.has { if case .peerFound = $0 { true } else { false } } })
        try #require(try spare.shakeHands(reactor, seed: 5))
        try turn(reactor, for: .milliseconds(100))
        #expect(daemon.connectionCount == 2 && daemon.core.linkCount == 2)
        let game = ID128(high: 1, low: 1), second = ID128(high: 2, low: 2)
        spare.send(.invite(Invite(gameID: game)))
        try #require(try run(reactor, for: .seconds(2)) { spare.poll(); return spare.messages.contains(.accept(gameID: game)) })
        first.send(.invite(Invite(gameID: second)))
        #expect(try run(reactor, for: .seconds(2)) {
            first.poll()
            return first.messages.contains(.decline(gameID: second, reason: .busy))
        }, "one game per pair")
        #expect(daemon.core.gameCount == 1)
        spare.send(.leave)
        #expect(try run(reactor, for: .seconds(2)) { log.has { if case .disconnected = $0 { true } else { false } } })
        #expect(daemon.core.gameCount == 0 && daemon.core.linkCount == 1)
        #expect(!log.has { if case .peerLost = $0 { true } else { false } }, "the first connection stays")
        try legitimateGameCompletes()
    }

    @Test func aPingFloodIsClosedPastEightInOneSecond() throws {
        // Protocol.md §6: a PING needs a second of silence; the ninth within one second is a
        // flood (ERROR unexpected-message, unanswered), while eight a second are all answered.
        let c = try RawClient(port: daemon.port)
        try #require(try c.shakeHands(reactor))
        try #require(try run(reactor, for: .seconds(2)) { log.has { if case .peerFound = $0 { true } else { false } } })
        func pongs() -> [UInt64] { c.messages.compactMap { if case let .pong(n) = $0 { n } else { nil } } }
        c.write((1...8).flatMap { Message.ping(nonce: $0).encoded() })
        #expect(try run(reactor, for: .seconds(2)) { c.poll(); return pongs().count == 8 })
        // A second later the count starts again: eight more are fine.
        try turn(reactor, for: .milliseconds(1100)) { c.poll() }
        c.write((9...16).flatMap { Message.ping(nonce: $0).encoded() })
        #expect(try run(reactor, for: .seconds(2)) { c.poll(); return pongs().count == 16 })
        #expect(c.errorCode == nil)
        // Nine at once: eight answers, then ERROR and the close.
        try turn(reactor, for: .milliseconds(1100)) { c.poll() }
        c.write((17...25).flatMap { Message.ping(nonce: $0).encoded() })
        try settle(c)
        #expect(pongs() == Array(1...24))
        #expect(c.errorCode == .unexpectedMessage)
        #expect(c.closedByPeer)
        #expect(log.has { if case let .protocolError(_, code, message, _) = $0 { code == .unexpectedMessage && message.contains("PING flood") } else { false } })
        try legitimateGameCompletes()
    }

    @Test func pingsFromOneAddressShareABudget() throws {
        // Each link stays within its own eight, but nine links from one host together send 72
        // in one second: past 64 the link that asks is closed as a flood (Protocol.md §6).
        var clients: [RawClient] = []
        for i in 0..<9 { // nine peer ids: one id holds two links at most (§4)
            let c = try RawClient(port: daemon.port)
            try #require(try c.shakeHands(reactor, seed: 600 + UInt64(i)))
            clients.append(c)
        }
        for (i, c) in clients.enumerated() { c.write((1...8).flatMap { Message.ping(nonce: UInt64(i * 8) + $0).encoded() }) }
        func pongs() -> Int { clients.reduce(0) { $0 + $1.messages.count { if case .pong = $0 { true } else { false } } } }
        _ = try run(reactor, for: .seconds(2)) {
            clients.forEach { $0.poll() }
            return pongs() >= 64 && clients.contains { $0.closedByPeer }
        }
        #expect(pongs() == 64)
        #expect(clients.count { $0.errorCode == .unexpectedMessage } == 1)
        #expect(log.has { if case let .protocolError(_, _, message, _) = $0 { message.contains("in one second from 127.0.0.1") } else { false } })
        try legitimateGameCompletes()
    }

    @Test func aPeerThatNeverReadsIsPausedThenDroppedWithinTheLivenessLimit() throws {
        // The PING limit lifted (as a benchmark that uses PING as an echo has it): the flood is
        // then held off by backpressure. A small receive buffer, so the daemon's PONGs back up
        // into its own write queue.
        var lifted = config("lifted", seed: 17, bot: .perfect)
        lifted.maxPingsPerSecond = 0
        lifted.maxPingsPerAddressPerSecond = 0
        let daemon = try Daemon(reactor: reactor, config: lifted)
        daemon.onEvent = { [log] in log.events.append($0) }
        let c = try RawClient(port: daemon.port, receiveBuffer: 4096)
        try #require(try c.shakeHands(reactor))
        try #require(try run(reactor, for: .seconds(2)) { log.has { if case .peerFound = $0 { true } else { false } } })
        let ping = Message.ping(nonce: 7).encoded()
        let burst = Array([[UInt8]](repeating: ping, count: 2000).joined())
        var sentBursts = 0, offset = 0
        let t0 = reactor.now
        try #require(try run(reactor, for: .seconds(10)) {
            // Keep asking (each PING is answered by a 23-byte PONG) and never read. A partial
            // send is resumed where it stopped, so every PING arrives whole.
            if sentBursts < 1000 {
                let n = burst.withUnsafeBytes {
                    Glibc.send(c.fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if n > 0 { offset += n }
                if offset == burst.count { sentBursts += 1; offset = 0 }
            }
            return daemon.connectionCount == 0
        }, "the never-reading peer was dropped")
        // Backpressure: the daemon stops reading it as soon as its answers back up (a small
        // kernel send buffer, TCPConnection.sendBufferBytes), so it is no longer heard and the
        // liveness limit drops it: within the limit of the flood's start, give or take a moment.
        #expect(daemon.connectionCount == 0, "dropped")
        #expect(reactor.now - t0 < daemon.core.config.deadAfter + .milliseconds(1500), "dropped after \(reactor.now - t0)")
        #expect(log.has { if case let .peerLost(_, reason) = $0 { reason.contains("no answer") } else { false } }, "\(log.events)")
        try legitimateGameCompletes(against: daemon)
    }
}
