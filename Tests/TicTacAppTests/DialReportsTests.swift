import Glibc
import Testing
import TicTacAPI
import TicTacApp
import TicTacDaemon
import TicTacDaemonCore
import TicTacEngine
import TicTacNet
import TicTacTerminal
import TicTacWire

/// "Connecting to X" always ends: connected (to whom), failed (why), or gave up.
@Suite struct DialReportsTests {
    private func daemon(_ reactor: Reactor, _ name: String, seed: UInt64) throws -> Daemon {
        let config = DaemonConfig(name: try DisplayName(name), makeRandom: { SplitMix64(seed: seed) })
        return try Daemon(reactor: reactor, config: config, port: 0)
    }

    /// Runs a player that types `connect 127.0.0.1:PORT` until `done` says its story is told.
    private func story(port: UInt16, reactor: Reactor, done: @escaping (DaemonEvent) -> Bool) throws -> [DaemonEvent] {
        let front = RecordingFront()
        let player = try NetworkPlayer(reactor: reactor, daemon: try daemon(reactor, "ann", seed: 1), front: front)
        front.onShow = { event in
            if done(event) { reactor.schedule(after: .zero) { front.onCommand?(.quit) } }
        }
        reactor.schedule(after: .milliseconds(10)) { front.onCommand?(.connect("127.0.0.1:\(port)")) }
        reactor.schedule(after: .seconds(12)) { front.onCommand?(.quit) } // the test's own bound
        try player.run(connectTo: [])
        return front.shown.filter {
            switch $0 {
            case .notice, .error, .connectFailed: true
            default: false
            }
        }
    }

    @Test func aPlayerThatAnswersIsConnectedByName() throws {
        let reactor = try Reactor()
        let ben = try daemon(reactor, "ben", seed: 2)
        let told = try story(port: ben.port, reactor: reactor) { event in
            if case let .notice(text) = event { return text.hasPrefix("Connected") } else { return false }
        }
        #expect(told == [.notice("Connecting to 127.0.0.1:\(ben.port)"), .notice("Connected to 127.0.0.1:\(ben.port): ben")])
    }

    @Test func aFieldOnlyDaemonIsSaidToBeOne() throws {
        let reactor = try Reactor()
        let config = DaemonConfig(name: try DisplayName("sam"), capabilities: [.field], makeRandom: { SplitMix64(seed: 3) })
        let sam = try Daemon(reactor: reactor, config: config, port: 0)
        let told = try story(port: sam.port, reactor: reactor) { event in
            if case .error = event { return true } else { return false }
        }
        #expect(told.last == .error(code: "connect-failed",
                                    message: "127.0.0.1:\(sam.port) is sam, which offers no tic-tac-toe (the field only): not listed"))
    }

    @Test func somethingThatIsNotAPlayerIsGivenUp() throws {
        let reactor = try Reactor()
        // A listener that accepts and never speaks: the handshake runs out (5 s).
        var held: [Int32] = []
        defer { held.forEach { _ = close($0) } }
        let silent = try TCPListener(reactor: reactor, port: 0) { fd, _ in held.append(fd) }
        let told = try story(port: silent.port, reactor: reactor) { event in
            if case .error = event { return true } else { return false }
        }
        #expect(told.first == .notice("Connecting to 127.0.0.1:\(silent.port)"))
        #expect(told.last == .error(code: "connect-failed", message: "127.0.0.1:\(silent.port) answered but no tictac player spoke there: gave up"))
    }

    @Test func aPortNobodyListensOnFails() throws {
        let reactor = try Reactor()
        let closed = try TCPListener(reactor: reactor, port: 0) { fd, _ in close(fd) }
        let port = closed.port
        closed.close()
        let told = try story(port: port, reactor: reactor) { event in
            if case .connectFailed = event { return true } else { return false }
        }
        #expect(told.count == 2)
        guard case let .connectFailed(to, reason) = told.last else { Issue.record("no failure said: \(told)"); return }
        #expect(to == "127.0.0.1:\(port)" && reason.contains("Connection refused") && reason.contains("trying again"), "\(reason)")
        let line = OutputFormatter(style: .json).lines(for: told[1])
        #expect(line.count == 1 && line[0].hasPrefix(#"{"event":"error","code":"connect-failed","message":"Cannot connect to 127.0.0.1:"#), "\(line)")
    }
}
