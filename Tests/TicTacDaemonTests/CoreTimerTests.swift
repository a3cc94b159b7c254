import Testing
import TicTacAPI
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

/// The daemon's timers (Protocol.md §9) on virtual time, through the sans-I/O core: PING after
/// 1 s of silence, the peer gone after 5 s, an invitation withdrawn at 30 s, the first move
/// decided within 8 s, the peer's move clock. Each is checked just before and at its deadline.
/// LobbyTests keeps a real-socket smoke test of the liveness timers.
@Suite struct CoreTimerTests {
    /// ann dialled ben; the link is ready on both sides, at time zero. Default timers.
    private func net() -> (CoreNet, LinkID) {
        var n = CoreNet(config("ann", seed: 51), config("ben", seed: 52))
        let link = n.connect(dialler: 0)
        n.settle()
        return (n, link)
    }

    private func count(_ n: CoreNet, from i: Int, _ kind: Message.Kind) -> Int { n.sent(i).count { $0.kind == kind } }

    private func isTimeoutError(_ m: Message?) -> Bool {
        if case let .error(code, _) = m { code == ErrorCode.timeout.rawValue } else { false }
    }

    private static let gameKinds: Set<Message.Kind> = [.reset, .rollCommit, .roll, .rollAck, .move, .resign, .timeUp]

    @Test func aSilentPeerIsPingedEverySecondThenDroppedAtFive() {
        var (n, _) = net()
        // ben's daemon freezes: it hears nothing and says nothing.
        n.advance(by: .milliseconds(999), only: 0)
        #expect(count(n, from: 0, .ping) == 0, "no PING before 1 s of silence")
        n.advance(by: .milliseconds(1), only: 0)
        #expect(count(n, from: 0, .ping) == 1)
        for second in 2...4 {
            n.advance(by: .seconds(1), only: 0)
            #expect(count(n, from: 0, .ping) == second, "one PING per second of silence")
        }
        n.advance(by: .milliseconds(999), only: 0)
        #expect(n.cores[0].linkCount == 1, "not dead before 5 s")
        n.advance(by: .milliseconds(1), only: 0)
        #expect(n.cores[0].linkCount == 0 && n.cores[1].linkCount == 0)
        #expect(isTimeoutError(n.sent(0).last), "ERROR timeout, then the close (Protocol.md §5)")
        #expect(n.count(0) { if case let .peerLost(_, reason) = $0 { reason.contains("no answer") } else { false } } == 1)
        #expect(n.count(1) { if case .protocolError(_, .timeout, _, sent: false) = $0 { true } else { false } } == 1,
                "the silent side is told why, in case only its path was broken")
    }

    /// The peer's daemon freezes in the middle of a game: at 5 s the player hears the game ended
    /// with the reason, then that the peer is gone (the move clock, 120 s, plays no part).
    @Test func aPeerThatFreezesInAGameEndsItAtFiveSeconds() throws {
        var (n, _) = net()
        try n.command(0, .invite("ben"))
        n.settle()
        try n.command(1, .accept)
        n.settle()
        #expect(n.game(0)?.state == .myTurn || n.game(0)?.state == .opponentTurn)
        n.advance(by: .milliseconds(4999), only: 0)
        #expect(n.cores[0].gameCount == 1, "still playing before 5 s")
        n.advance(by: .milliseconds(1), only: 0)
        #expect(n.cores[0].gameCount == 0 && n.cores[0].linkCount == 0)
        let ends = n.events[0].compactMap { event -> String? in
            switch event {
            case let .disconnected(_, reason) where reason.contains("no answer"): "disconnected"
            case let .peerLost(_, reason) where reason.contains("no answer"): "peer-lost"
            default: nil
            }
        }
        #expect(ends == ["disconnected", "peer-lost"])
    }

    /// A connection that never sends HELLO is closed at the handshake limit (Protocol.md §4),
    /// however long the liveness timer would allow, and is never pinged.
    @Test func aConnectionWithoutHelloIsClosedAtFiveSeconds() {
        var c = config("ann", seed: 51)
        c.deadAfter = .seconds(30)
        var core = DaemonCore(config: c)
        core.handle(.linkOpened(1, outgoing: false, address: "198.18.0.9", port: nil), now: .zero)
        _ = core.pollActions() // our HELLO
        #expect(core.pollTimeout() == .zero + .seconds(5))
        core.handleTimeout(now: .zero + .milliseconds(4999))
        #expect(core.pollActions().isEmpty, "nothing before 5 s, and no PING")
        core.handleTimeout(now: .zero + .seconds(5))
        let actions = core.pollActions()
        #expect(isTimeoutError(CoreHandshakeTests.messages(actions).last))
        #expect(actions.contains { if case .close(1, flush: true) = $0 { true } else { false } })
        #expect(core.strangerFaults == 1, "a stranger's fault is logged, not shown")
    }

    @Test func aPeerThatTalksIsNeverPinged() {
        var (n, link) = net()
        for k in 0..<20 { // ben pings every 0.9 s; ann answers and never needs to ask
            n.advance(by: .milliseconds(900), only: 0)
            n.inject(.ping(nonce: UInt64(k)), to: 0, link: link)
        }
        #expect(count(n, from: 0, .ping) == 0)
        #expect(count(n, from: 0, .pong) == 20)
        #expect(n.cores[0].linkCount == 1 && n.errors.isEmpty)
    }

    @Test func twoDaemonsThatAnswerStayLinkedForAMinute() {
        var (n, _) = net()
        for _ in 0..<120 {
            n.advance(by: .milliseconds(500))
            n.settle()
        }
        #expect(n.cores[0].linkCount == 1 && n.cores[1].linkCount == 1)
        #expect(n.errors.isEmpty, "\(n.errors)")
        #expect(n.count(0) { if case .peerLost = $0 { true } else { false } } == 0)
        // Each side is silent for 1 s once a second (both ask at once, both answer at once).
        #expect(count(n, from: 0, .ping) == 60 && count(n, from: 1, .ping) == 60)
        #expect(count(n, from: 0, .pong) == 60 && count(n, from: 1, .pong) == 60)
    }

    @Test func anUnansweredInvitationIsWithdrawnAtThirtySeconds() throws {
        var (n, _) = net()
        try n.command(0, .invite("ben"))
        n.settle()
        #expect(n.count(1) { if case .invited = $0 { true } else { false } } == 1)
        for _ in 0..<29 { // ben's player says nothing; the link stays alive
            n.advance(by: .seconds(1))
            n.settle()
        }
        n.advance(by: .milliseconds(999))
        n.settle()
        #expect(count(n, from: 0, .cancel) == 0, "not withdrawn before 30 s")
        n.advance(by: .milliseconds(1))
        n.settle()
        #expect(count(n, from: 0, .cancel) == 1)
        #expect(n.count(0) { if case .declined(_, .noAnswer) = $0 { true } else { false } } == 1)
        #expect(n.count(1) { if case .inviteCancelled = $0 { true } else { false } } == 1)
        #expect(throws: CommandError.noInvitation) { try n.command(1, .accept) }
        #expect(n.cores[0].presenceState == .idle && n.cores[1].presenceState == .idle)
        // The CANCEL settled ben's side: its own 32 s lapse has nothing left to do.
        n.advance(by: .seconds(3))
        n.settle()
        #expect(n.count(1) { if case .inviteExpired = $0 { true } else { false } } == 0)
        #expect(count(n, from: 1, .decline) == 0)
        #expect(n.errors.isEmpty, "\(n.errors)")
    }

    /// ben withholds its ROLL (as a peer that dislikes ann's reveal would), and has no deadline
    /// of its own: the game is forfeit to ann 8 s after its RESET (Protocol.md §9, the roll
    /// deadline), and ben is told why.
    @Test func aWithheldRollForfeitsTheGameAtEightSeconds() throws {
        var (n, _) = net()
        n.drop = { to, message in to == 0 && message.kind == .roll }
        try n.command(0, .invite("ben"))
        n.settle()
        try n.command(1, .accept) // both RESET at time zero
        n.settle()
        #expect(n.game(0)?.state == .rollingDice)
        for _ in 0..<7 { // ann pings, ben still answers
            n.advance(by: .seconds(1), only: 0)
            n.settle()
        }
        n.advance(by: .milliseconds(999), only: 0)
        n.settle()
        #expect(n.count(0) { if case .game(.timeUp, _) = $0 { true } else { false } } == 0, "not before 8 s")
        #expect(n.cores[0].linkCount == 1)
        n.advance(by: .milliseconds(1), only: 0)
        n.settle()
        #expect(n.count(0) { if case .game(.timeUp(yours: false, clock: .roll), _) = $0 { true } else { false } } == 1)
        #expect(n.count(0) { if case .game(.gameOver(.won, _, _), _) = $0 { true } else { false } } == 1)
        #expect(isTimeoutError(n.sent(0).last))
        #expect(n.cores[0].linkCount == 0 && n.cores[1].linkCount == 0)
        #expect(n.count(1) { if case .protocolError(_, .timeout, _, sent: false) = $0 { true } else { false } } == 1)
    }

    /// The mover's daemon sends TIME_UP when its player's clock runs out; when neither that nor
    /// a MOVE arrives, the waiting side counts the game as won C + 10 s after the turn began
    /// (Protocol.md §9, the move clock).
    @Test func aPeerSilentPastItsMoveClockForfeits() throws {
        var ann = config("ann", seed: 51), ben = config("ben", seed: 52)
        ann.moveTime = .seconds(10)
        ben.moveTime = .seconds(10)
        var n = CoreNet(ann, ben)
        _ = n.connect(dialler: 0)
        n.settle()
        try n.command(0, .invite("ben"))
        n.settle()
        try n.command(1, .accept)
        n.settle() // decided at time zero
        let mover = try #require([0, 1].first { n.game($0)?.state == .myTurn })
        let waiter = 1 - mover
        // The mover's game goes quiet (with the CANCEL its daemon sends when its player is away).
        n.drop = { to, message in to == waiter && (Self.gameKinds.contains(message.kind) || message.kind == .cancel) }
        for _ in 0..<19 {
            n.advance(by: .seconds(1))
            n.settle()
        }
        n.advance(by: .milliseconds(999))
        n.settle()
        #expect(n.count(mover) { if case .game(.timeUp(yours: true, clock: .move), _) = $0 { true } else { false } } == 1,
                "the mover's own daemon gave up for its player at 10 s")
        #expect(n.count(waiter) { if case .game(.timeUp, _) = $0 { true } else { false } } == 0, "not before C + 10 s")
        n.advance(by: .milliseconds(1))
        n.settle()
        #expect(n.count(waiter) { if case .game(.timeUp(yours: false, clock: .move), _) = $0 { true } else { false } } == 1)
        #expect(n.count(waiter) { if case .game(.gameOver(.won, _, _), _) = $0 { true } else { false } } == 1)
        #expect(isTimeoutError(n.sent(waiter).last))
        #expect(n.cores[waiter].linkCount == 0)
    }
}
