import Testing
import TicTacEngine
import TicTacNet
import TicTacTestSupport
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

/// Protocol.md rules that had no test: an IGNORABLE frame before HELLO (§2, §4), a peer's ERROR
/// (§5), a peer speaking versions 1..2 (§4), and a non-square board over the network (§6 INVITE).
@Suite(.serialized) struct SpecEdgeTests {
    let reactor: Reactor
    let daemon: Daemon

    init() throws {
        reactor = try Reactor()
        daemon = try Daemon(reactor: reactor, config: config("target", seed: 17, bot: .random))
    }

    private func settle(_ c: RawClient, until done: () -> Bool) throws {
        try #require(try run(reactor, for: .seconds(3)) { c.poll(); return done() || c.closedByPeer })
    }

    /// Before the peer's HELLO no frame but HELLO and ERROR is read, IGNORABLE or not (§4).
    @Test func anIgnorableFrameBeforeHelloIsUnexpected() throws {
        let c = try RawClient(port: daemon.port)
        c.write(Frame(version: 1, type: 0x2e, flags: Frame.ignorableFlag, payload: []).bytes)
        try settle(c) { false }
        #expect(c.errorCode == .unexpectedMessage)
        #expect(c.closedByPeer)
    }

    /// After the handshake the same frame is skipped and the next one read (§2).
    @Test func anIgnorableFrameAfterTheHandshakeIsSkipped() throws {
        let c = try RawClient(port: daemon.port)
        #expect(try c.shakeHands(reactor))
        c.write(Frame(version: 1, type: 0x2e, flags: Frame.ignorableFlag, payload: [1, 0, 0]).bytes)
        c.send(.ping(nonce: 42))
        try settle(c) { c.messages.contains(.pong(nonce: 42)) }
        #expect(c.messages.contains(.pong(nonce: 42)))
        #expect(c.errorCode == nil)
    }

    /// A peer's ERROR: the daemon closes without answering it (§5).
    @Test func aPeersErrorClosesWithoutAnAnswer() throws {
        let c = try RawClient(port: daemon.port)
        #expect(try c.shakeHands(reactor))
        c.send(.error(code: ErrorCode.internalError.rawValue, message: "giving up"))
        try settle(c) { false }
        #expect(c.closedByPeer)
        #expect(c.errorCode == nil)
    }

    /// A peer speaking 1..2 negotiates 2, which needs HELLO field 8 (the ephemeral key): a HELLO
    /// offering 2 without it is refused `malformed` (Protocol.md §4).
    @Test func aHelloOfferingTwoWithoutItsEphemeralKeyIsRefused() throws {
        let d = try RawClient(port: daemon.port)
        var hello2 = RawClient.helloMessage(name: "two", seed: 98, nonce: ID128(high: 7, low: 7))
        hello2.maxVersion = 2
        d.send(.hello(hello2), version: 2)
        try settle(d) { d.errorCode != nil }
        #expect(d.errorCode == .malformed)
        #expect(d.receivedProof == nil)
    }

    /// A 3 x 5 board with k = 4 over a real socket is accepted; a size the daemon does not play
    /// is declined `unsupported` and the link stays (§3's range rule). (tools/attack plays a
    /// whole 3 x 5 game against a real bot.)
    @Test func aNonSquareBoardIsAcceptedOverTheNetwork() throws {
        let c = try RawClient(port: daemon.port)
        #expect(try c.shakeHands(reactor))
        let game = ID128(high: 3, low: 5)
        c.send(.invite(Invite(gameID: game, rows: 3, cols: 5, k: 4)))
        try settle(c) { c.messages.contains(.accept(gameID: game)) }
        #expect(c.messages.contains(.accept(gameID: game)))
        // A size the daemon does not play is declined, and the connection stays.
        let big = ID128(high: 21, low: 3)
        c.send(.invite(Invite(gameID: big, rows: 21, cols: 3, k: 3)))
        try settle(c) { c.messages.contains(.decline(gameID: big, reason: .unsupported)) }
        #expect(c.messages.contains(.decline(gameID: big, reason: .unsupported)))
        #expect(!c.closedByPeer)
    }
}
