import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

/// The move clock through two daemons (Protocol.md §9): the player who does not move is resigned
/// for by its own daemon, and both players are told why.
@Suite struct MoveClockTests {
    @Test func bothPlayersHearTheClockRanOut() throws {
        var ann = config("ann", seed: 41), ben = config("ben", seed: 42)
        ann.moveTime = .seconds(10)
        ben.moveTime = .zero // asks for none: ann's ask is the game's clock
        var n = CoreNet(ann, ben)
        try n.startMatch()
        let mover = try #require([0, 1].first { n.game($0)?.state == .myTurn })
        #expect(n.game(0)?.agreedMoveTime == 10 && n.game(1)?.agreedMoveTime == 10)
        // Nobody moves; the link stays alive with PINGs.
        for _ in 0..<10 {
            n.advance(by: .seconds(1))
            n.settle()
        }
        #expect(n.errors.isEmpty, "\(n.errors)")
        func timeUps(_ i: Int) -> [Bool] {
            n.events[i].compactMap { if case let .game(.timeUp(yours, .move), _) = $0 { yours } else { nil } }
        }
        #expect(timeUps(mover) == [true])
        #expect(timeUps(1 - mover) == [false])
        func results(_ i: Int) -> [GameResult] {
            n.events[i].compactMap { if case let .game(.gameOver(r, _, _), _) = $0 { r } else { nil } }
        }
        #expect(results(mover) == [.lost] && results(1 - mover) == [.won])
        // The player who let the clock run out is away: its match ends, no next game starts
        // by itself (it would be lost the same way); the peer is told.
        #expect(n.count(mover) { if case .matchEnded(_, byUs: true) = $0 { true } else { false } } == 1)
        #expect(n.count(1 - mover) { if case .matchEnded(_, byUs: false) = $0 { true } else { false } } == 1)
        for _ in 0..<10 {
            n.advance(by: .seconds(1))
            n.settle()
        }
        #expect(n.game(0) == nil && n.game(1) == nil)
        // Shown away (ANNOUNCE state 3, Protocol.md §6) until the player does something.
        #expect(n.cores[mover].presenceState == .away && n.errors.isEmpty, "\(n.errors)")
        #expect(n.cores[1 - mover].presenceState == .idle)
        // A new invitation plays again.
        try n.command(mover, .invite(mover == 0 ? "ben" : "ann"))
        #expect(n.cores[mover].presenceState != .away)
        n.settle()
        try n.command(1 - mover, .accept)
        n.settle()
        #expect(Set([n.game(0)?.state, n.game(1)?.state]) == [.myTurn, .opponentTurn])
    }
}
