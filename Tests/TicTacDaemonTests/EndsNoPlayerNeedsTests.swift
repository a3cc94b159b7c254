import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// Ends that reach a side whose player is elsewhere (both found by the three-daemon result
/// simulation): they need no player, so they are recorded at once (Protocol.md §8, §13).
@Suite struct EndsNoPlayerNeedsTests {
    let claims = ClaimTests()
    let resume = ResumeCoreTests()

    /// The peer's MOVE crossed our RESIGN, and our player left the match before it arrived: the
    /// move was made, so our history keeps it too, and the game has one move list.
    @Test func aMoveThatCrossedOurResignationAndOurLeavingIsRecorded() throws {
        var n = try resume.inGame(ann: claims.claiming("ann", seed: 61), ben: claims.claiming("ben", seed: 62))
        try n.play(moves: 1)
        let side = try #require(n.mover), other = 1 - side
        let cell = try #require(n.game(side)?.board.emptyCells.first)
        try n.command(other, .resign) // in the peer's turn
        try n.command(side, .move(cell)) // crosses it
        try n.command(other, .leaveMatch) // CANCEL, before the MOVE arrives
        n.settle()
        #expect(claims.moves(n, 0) == claims.moves(n, 1), "\(claims.moves(n, 0)) / \(claims.moves(n, 1))")
        #expect(claims.moves(n, other).last == cell)
        #expect(n.errors.isEmpty, "\(n.errors)")
    }

    /// ben's winning MOVE was lost with the link; ann adjourned and plays cal. When ben is back
    /// its RESUME carries that move: ann's game ends there and then, though her player is busy.
    @Test func aWinningMoveNeverReadEndsTheGameOfABusyPlayer() throws {
        var n = try claims.cutGame(moves: 0)
        claims.reconnect(&n)
        var benWins = false
        while n.game(0)?.state != .done {
            guard let side = n.mover, let game = n.game(side) else { break }
            let win = game.board.emptyCells.first { c in
                var b = game.board
                do { try b.place(game.piece, at: c) } catch { return false }
                if case .won = b.outcome(after: c) { return true }
                return false
            }
            if side == 1, let win {
                try n.command(1, .move(win)) // lost with the link
                benWins = true
                break
            }
            try n.play(moves: 1)
        }
        try #require(benWins, "ben has a winning move in this game")
        n.close(try resume.lastLink(n))
        try n.command(0, .leaveMatch)
        _ = n.connect(dialler: 0, to: 2)
        n.settle()
        try n.command(0, .invite("cal"))
        n.settle()
        claims.reconnect(&n)
        #expect(claims.results(n) == [.ended(.lost, how: .line), .ended(.won, how: .line)])
        #expect(claims.moves(n, 0) == claims.moves(n, 1))
        #expect(n.cores[0].waitingGames == 0)
        #expect(n.errors.isEmpty, "\(n.errors)")
    }
}
