import Foundation
import Glibc
import Testing
import TicTacEngine
import TicTacNet
import TicTacTestSupport
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

/// One peer cannot take the daemon from everyone else (Protocol.md §5, `busy`), and a refused
/// or faulty peer still gets its ERROR (a close, not a reset). Real sockets, bounded in count
/// and time.
@Suite(.serialized) struct ConnectionLimitTests {
    let reactor: Reactor
    let daemon: Daemon
    let log = Log()

    init() throws {
        reactor = try Reactor()
        daemon = try Daemon(reactor: reactor, config: config("target", seed: 7, bot: .perfect))
        daemon.onEvent = { [log] in log.events.append($0) }
    }

    /// A link the peer closed and the core dropped in the same turn (its end read first, then a
    /// new connection at the limit made the core drop it for room): its address is released once,
    /// not twice, so the per-address limit still holds afterwards.
    @Test func aLinkClosedByThePeerAndDroppedInOneTurnIsReleasedOnce() throws {
        daemon.maxConnections = 1
        daemon.maxLinksPerAddress = 2
        do { // the first client, dropped (its socket closed) at the end of this scope
            let first = try RawClient(port: daemon.port)
            try #require(try run(reactor, for: .seconds(2)) { daemon.connectionCount == 1 })
            withExtendedLifetime(first) {}
        }
        // Closed with the daemon's HELLO unread, the client's socket sends a reset: the daemon's
        // end of the link leaves the established state in the kernel before the loop reads it.
        #expect(Self.awaitTCPStates(localPort: daemon.port) { !$0.contains("01") }, "the first link's end reached the daemon's kernel")
        let second = try RawClient(port: daemon.port) // a blocking connect: it returns from the accept queue
        // One turn sees both: the first link's end, then the listener (at the limit: the core
        // drops the first link, already closed, for room).
        try reactor.runOnce(maxWait: .zero)
        try #require(try run(reactor, for: .seconds(2)) { daemon.connectionCount == 1 })
        daemon.maxConnections = 16
        // The second link holds one of the address's two places: one more fits, then busy.
        let third = try RawClient(port: daemon.port)
        try #require(try run(reactor, for: .seconds(2)) { daemon.connectionCount == 2 })
        let fourth = try RawClient(port: daemon.port)
        try #require(try run(reactor, for: .seconds(2)) { fourth.poll(); return fourth.closedByPeer || fourth.resetByPeer })
        #expect(fourth.errorCode == .busy, "a third link from one address with a limit of 2: \(fourth.messages)")
        #expect(daemon.connectionCount == 2)
        _ = (second, third)
    }

    @Test func oneAddressGetsAtMostItsShareThenBusy() throws {
        daemon.maxLinksPerAddress = 4
        var clients: [RawClient] = []
        for _ in 0..<4 { clients.append(try RawClient(port: daemon.port)) }
        try #require(try run(reactor, for: .seconds(2)) { daemon.connectionCount == 4 })
        let fifth = try RawClient(port: daemon.port)
        try #require(try run(reactor, for: .seconds(2)) { fifth.poll(); return fifth.closedByPeer || fifth.resetByPeer })
        #expect(fifth.errorCode == .busy, "ERROR busy, not a bare FIN: \(fifth.messages)")
        #expect(fifth.peerHello == nil, "refused before HELLO")
        #expect(fifth.closedByPeer && !fifth.resetByPeer)
        #expect(daemon.connectionCount == 4 && daemon.refusedCount == 1)
        // A slot freed is a slot to use again.
        clients.removeLast()
        try #require(try run(reactor, for: .seconds(2)) { daemon.connectionCount == 3 })
        let again = try RawClient(port: daemon.port)
        #expect(try again.shakeHands(reactor))
    }

    @Test func atTheLimitAnIdleStrangerMakesRoomButAGameNeverDoes() throws {
        daemon.maxConnections = 2
        let player = try RawClient(port: daemon.port)
        try #require(try player.shakeHands(reactor))
        player.send(.invite(Invite(gameID: ID128(high: 1, low: 1))))
        try #require(try run(reactor, for: .seconds(2)) { daemon.core.gameCount == 1 })
        let idle = try RawClient(port: daemon.port) // connects, never says HELLO
        try #require(try run(reactor, for: .seconds(5)) { daemon.connectionCount == 2 })
        let newcomer = try RawClient(port: daemon.port)
        try #require(try run(reactor, for: .seconds(2)) { idle.poll(); newcomer.poll(); return idle.closedByPeer && newcomer.peerHello != nil })
        #expect(idle.errorCode == .busy, "the idle stranger made room")
        #expect(newcomer.peerHello != nil, "the newcomer was served")
        // Both slots now hold a game or a newcomer in its handshake: the newest stranger goes
        // next, never the game.
        let third = try RawClient(port: daemon.port)
        try #require(try run(reactor, for: .seconds(2)) { newcomer.poll(); third.poll(); return newcomer.closedByPeer })
        #expect(newcomer.errorCode == .busy)
        player.poll()
        #expect(!player.closedByPeer && daemon.core.gameCount == 1, "the game goes on")
    }

    /// Protocol.md §5: after ERROR with the peer's input unread, the close is a FIN after a
    /// short drain, not a reset that could discard the ERROR (measured before: 10 of 10 resets).
    @Test func junkGetsItsErrorAndAFinNotAReset() throws {
        for _ in 0..<5 {
            let c = try RawClient(port: daemon.port)
            var junk = [UInt8](repeating: 0x58, count: 17 * 1024)
            junk.replaceSubrange(0..<4, with: [0x58, 0x58, 0x58, 0x58])
            c.write(junk)
            try #require(try run(reactor, for: .seconds(3)) { c.poll(); return c.closedByPeer || c.resetByPeer })
            #expect(c.errorCode == .badMagic)
            #expect(c.closedByPeer && !c.resetByPeer)
        }
        #expect(log.events.isEmpty, "strangers' junk is not the player's business: \(log.events)")
        #expect(daemon.core.strangerFaults == 5)
    }

    /// Waits, at most 2 s, until the states of this namespace's TCP sockets on local port `port`
    /// (/proc/net/tcp's `st`: 01 established, 08 close-wait, 0A listening) satisfy `done`.
    static func awaitTCPStates(localPort port: UInt16, _ done: ([Substring]) -> Bool) -> Bool {
        let hex = String(port, radix: 16, uppercase: true)
        let local = ":" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let end = Date().addingTimeInterval(2)
        repeat {
            // A dual-stack listener's links are in tcp6 (IPv4-mapped), others in tcp.
            let table = ["/proc/net/tcp", "/proc/net/tcp6"].map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }
            let states = table.joined(separator: "\n").split(separator: "\n").compactMap { line -> Substring? in
                let f = line.split(separator: " ")
                return f.count > 3 && f[1].hasSuffix(local) ? f[3] : nil
            }
            if done(states) { return true }
            usleep(5_000)
        } while Date() < end
        return false
    }
}
