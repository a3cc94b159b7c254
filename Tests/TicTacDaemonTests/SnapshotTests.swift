import Testing
import TicTacAPI
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// What a front that attaches to a running daemon is told (DaemonCore.snapshot, docs/control.md):
/// each state of the seat, from cores joined by in-memory links.
@Suite struct SnapshotTests {
    func names(_ events: [DaemonEvent]) -> [String] {
        events.map { event in
            switch event {
            case .peerFound: "peer-found"
            case .inviteSent: "invite-sent"
            case .invited: "invited"
            case let .game(e, _):
                switch e {
                case .rolls: "rolls"
                case .gameStarted: "game-started"
                case .score: "score"
                case .board: "board"
                case .yourTurn: "your-turn"
                case .opponentTurn: "opponent-turn"
                case .turnClock: "turn-clock"
                case .gameOver: "game-over"
                default: "game"
                }
            case .gameInterrupted: "game-interrupted"
            case .gameAdjourned: "game-adjourned"
            default: "other"
            }
        }
    }

    func pair(moveTime: Duration = .seconds(60)) -> CoreNet {
        var ann = config("ann", seed: 71), ben = config("ben", seed: 72)
        ann.moveTime = moveTime
        ben.moveTime = moveTime
        ann.capabilities.insert(.resume)
        ben.capabilities.insert(.resume)
        return CoreNet(ann, ben)
    }

    @Test func theLobbyAndAnInvitationEachWay() throws {
        var n = pair()
        _ = n.connect(dialler: 0)
        n.settle()
        #expect(names(n.cores[0].snapshot(now: n.now)) == ["peer-found"])
        try n.command(0, .invite("ben"))
        n.settle()
        #expect(names(n.cores[0].snapshot(now: n.now)) == ["peer-found", "invite-sent"])
        let asked = n.cores[1].snapshot(now: n.now)
        #expect(names(asked) == ["peer-found", "invited"])
        guard case let .invited(by, size) = asked.last else { return }
        #expect(by.name == "ann" && size == .classic)
    }

    @Test func aGameInPlayIsItsBoardTurnAndClockLeft() throws {
        var n = pair()
        try n.startMatch()
        let mover = n.game(0)?.state == .myTurn ? 0 : 1
        try n.command(mover, .move(4))
        n.settle()
        for _ in 0..<21 { // a second at a time: the links' keepalives go both ways
            n.advance(by: .seconds(1))
            n.settle()
        }
        let other = 1 - mover
        let told = n.cores[other].snapshot(now: n.now)
        #expect(names(told) == ["peer-found", "rolls", "game-started", "score", "board", "your-turn", "turn-clock"])
        let moveTime = told.compactMap { if case let .game(.rolls(_, _, t), _) = $0 { t } else { nil } }.first
        #expect(moveTime == 60, "the rolls carry the agreed clock the front counts from")
        let board = told.compactMap { if case let .game(.board(b), _) = $0 { b } else { nil } }.first
        #expect(board?.text == "....X...." || board?.text == "....O....")
        let clock = told.compactMap { if case let .game(.turnClock(s), _) = $0 { s } else { nil } }.first
        #expect(clock == 39, "60 s a move, 21 s gone: \(String(describing: clock))")
        // The side waiting is told the peer's clock as the peer sees it: its deadline here holds
        // the grace, which is not shown (as a resumed game shows it).
        let waiting = n.cores[mover].snapshot(now: n.now)
        #expect(names(waiting).suffix(2) == ["opponent-turn", "turn-clock"])
        let peerClock = waiting.compactMap { if case let .game(.turnClock(s), _) = $0 { s } else { nil } }.first
        #expect(peerClock == 39)
        // Nothing was queued or changed by asking.
        #expect(n.cores[other].snapshot(now: n.now) == told)
    }

    @Test func aGameWhoseLinkIsLostWaitsWithItsBoard() throws {
        var n = pair()
        try n.startMatch()
        let mover = n.game(0)?.state == .myTurn ? 0 : 1
        try n.command(mover, .move(0))
        n.settle()
        let link = try #require(n.wires.keys.max())
        n.close(link)
        n.settle()
        let told = n.cores[0].snapshot(now: n.now)
        #expect(names(told).suffix(5) == ["game-started", "score", "board", mover == 0 ? "opponent-turn" : "your-turn", "game-interrupted"],
                "\(names(told))")
    }
}
