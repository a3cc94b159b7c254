import Testing
import TicTacEngine
import TicTacDiscoveryCore
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// Claims (Protocol.md §13): a game whose peer stays away past the adjourn limit is claimed by
/// the side that waited; the peer loses it only when its player was in another game past its own
/// limit, and otherwise refuses, and the game goes on. Both histories end mirrored either way.
@Suite struct ClaimTests {
    let resume = ResumeCoreTests()

    func claiming(_ name: String, seed: UInt64, limit: Duration = .seconds(60)) -> DaemonConfig {
        var c = resuming(name, seed: seed)
        c.capabilities.insert(.claims)
        c.adjournLimit = limit
        return c
    }

    /// ann and ben in a game of `moves` moves, then cut; cal (2) is there for ben to play.
    func cutGame(moves: Int, annLimit: Duration = .seconds(60), benLimit: Duration = .seconds(60)) throws -> CoreNet {
        var n = CoreNet(claiming("ann", seed: 61, limit: annLimit), claiming("ben", seed: 62, limit: benLimit),
                        claiming("cal", seed: 63))
        try n.startMatch()
        try n.play(moves: moves)
        n.close(try resume.lastLink(n))
        return n
    }

    /// ben adjourns and plays cal: his player is in another game.
    func benPlaysCal(_ n: inout CoreNet) throws {
        try n.command(1, .leaveMatch)
        try n.startMatch(1, 2, invite: "cal")
    }

    /// Time passes a second at a time, every link kept alive.
    func wait(_ n: inout CoreNet, seconds: Int, only: Int? = nil) {
        for _ in 0..<seconds {
            n.advance(by: .seconds(1), only: only)
            n.settle()
        }
    }

    /// ann and ben meet again on a new link.
    func reconnect(_ n: inout CoreNet) {
        _ = n.connect(dialler: 1, to: 0)
        n.settle()
    }

    func claimed(_ n: CoreNet, _ i: Int, won: Bool) -> Int {
        n.count(i) { if case .gameClaimed(_, won, _) = $0 { true } else { false } }
    }

    func withdrawn(_ n: CoreNet, _ i: Int) -> Int {
        n.count(i) { if case .claimWithdrawn = $0 { true } else { false } }
    }

    /// The last result each side recorded.
    func results(_ n: CoreNet) -> [GameFact?] {
        n.records.prefix(2).map { $0.last { if case .ended = $0.fact { true } else { false } }?.fact }
    }

    /// Every side's moves, as recorded.
    func moves(_ n: CoreNet, _ i: Int) -> [Int] {
        n.records[i].compactMap { if case let .moved(_, cell, _) = $0.fact { cell } else { nil } }
    }

    @Test func aPeerInAnotherGamePastItsLimitLosesTheGameToTheSideThatWaited() throws {
        var n = try cutGame(moves: 3)
        try benPlaysCal(&n)
        wait(&n, seconds: 59)
        #expect(claimed(n, 0, won: true) == 0)
        wait(&n, seconds: 2)
        #expect(claimed(n, 0, won: true) == 1)
        #expect(n.records[0].last?.fact == .ended(.won, how: .claimed))
        #expect(n.cores[0].presenceState == .idle, "ann is free once she claimed")
        reconnect(&n)
        #expect(claimed(n, 1, won: false) == 1)
        #expect(results(n) == [.ended(.won, how: .claimed), .ended(.lost, how: .claimed)])
        #expect(moves(n, 0) == moves(n, 1))
        #expect(withdrawn(n, 0) == 0 && resume.resumed(n, 0) == 0 && resume.resumed(n, 1) == 0)
        #expect(n.errors.isEmpty, "\(n.errors)")
        // Asked again on a later link, each side tells the same end; nothing changes.
        n.close(try resume.lastLink(n))
        reconnect(&n)
        #expect(results(n) == [.ended(.won, how: .claimed), .ended(.lost, how: .claimed)])
        #expect(n.errors.isEmpty, "\(n.errors)")
    }

    @Test func aPeerBackAndFreeRefusesTheClaimAndTheGameGoesOn() throws {
        var n = try cutGame(moves: 3, benLimit: .seconds(600))
        wait(&n, seconds: 61)
        #expect(claimed(n, 0, won: true) == 1 && claimed(n, 1, won: true) == 0)
        reconnect(&n)
        #expect(withdrawn(n, 0) == 1)
        #expect(n.records[0].contains { $0.fact == .adjourned }, "the claimed win is withdrawn from the history")
        #expect(resume.resumed(n, 0) == 1 && resume.resumed(n, 1) == 1)
        try n.play(moves: 9)
        let a = try #require(n.game(0)), b = try #require(n.game(1))
        #expect(a.state == .done && b.state == .done && a.moves == b.moves)
        let mirror: [GameResult: GameResult] = [.won: .lost, .lost: .won, .draw: .draw]
        #expect(a.lastResult.flatMap { mirror[$0] } == b.lastResult)
        #expect(n.errors.isEmpty, "\(n.errors)")
    }

    /// A long partition: both waited past their limits and both claimed. Neither was left alone,
    /// so both claims are withdrawn and the game goes on: never two winners.
    @Test func crossingClaimsAfterAPartitionAreBothWithdrawn() throws {
        var n = try cutGame(moves: 4)
        wait(&n, seconds: 61)
        #expect(claimed(n, 0, won: true) == 1 && claimed(n, 1, won: true) == 1)
        reconnect(&n)
        #expect(withdrawn(n, 0) == 1 && withdrawn(n, 1) == 1)
        #expect(resume.resumed(n, 0) == 1 && resume.resumed(n, 1) == 1)
        try n.play(moves: 9)
        let a = try #require(n.game(0)), b = try #require(n.game(1))
        #expect(a.state == .done && b.state == .done && a.moves == b.moves)
        #expect(n.errors.isEmpty, "\(n.errors)")
    }

    /// A peer that keeps answering busy on a live link: the clock runs; past the limit the claim
    /// goes out on that link and the busy side, past its own limit too, takes the loss.
    @Test func aPeerThatKeepsAnsweringBusyLosesTheGameOnTheLiveLink() throws {
        var n = try cutGame(moves: 2)
        try benPlaysCal(&n)
        reconnect(&n)
        #expect(resume.resumed(n, 0) == 0 && claimed(n, 0, won: true) == 0)
        wait(&n, seconds: 61)
        #expect(claimed(n, 0, won: true) == 1 && claimed(n, 1, won: false) == 1)
        #expect(results(n) == [.ended(.won, how: .claimed), .ended(.lost, how: .claimed)])
        #expect(n.errors.isEmpty, "\(n.errors)")
    }

    /// A claim made at once after a cut (a cheater's) never takes a game: a free player refuses
    /// it, and a busy one does too until its own limit passed.
    @Test(arguments: [false, true])
    func anEarlyClaimIsRefused(busy: Bool) throws {
        var n = try cutGame(moves: 3, annLimit: .seconds(2), benLimit: .seconds(600))
        if busy { try benPlaysCal(&n) }
        wait(&n, seconds: 3)
        #expect(claimed(n, 0, won: true) == 1)
        reconnect(&n)
        #expect(claimed(n, 1, won: false) == 0)
        #expect(!n.records[1].contains { if case .ended = $0.fact { true } else { false } })
        #expect(withdrawn(n, 0) == 1)
        #expect(n.errors.isEmpty, "\(n.errors)")
    }

    /// ben's winning move was sent, never read, and the link lost: the game ended before ann's
    /// claim, so ben refuses it and ann's side takes the move and the loss.
    @Test func aClaimMeetsAWinTheClaimantNeverRead() throws {
        var n = try cutGame(moves: 0)
        reconnect(&n)
        // Moves are made until the side to move has a winning cell.
        func winningMove(_ n: CoreNet) -> (side: Int, cell: Int)? {
            guard let side = n.mover, let game = n.game(side) else { return nil }
            let cell = game.board.emptyCells.first { cell in
                var b = game.board
                do { try b.place(game.piece, at: cell) } catch { return false }
                if case .won = b.outcome(after: cell) { return true }
                return false
            }
            return cell.map { (side, $0) }
        }
        while winningMove(n) == nil, n.game(0)?.state != .done { try n.play(moves: 1) }
        let (side, winning) = try #require(winningMove(n))
        try n.command(side, .move(winning))
        n.close(try resume.lastLink(n))
        let other = 1 - side
        wait(&n, seconds: 61, only: other)
        #expect(claimed(n, other, won: true) == 1)
        reconnect(&n)
        #expect(withdrawn(n, other) == 1)
        #expect(results(n)[other] == .ended(.lost, how: .line) && results(n)[side] == .ended(.won, how: .line))
        #expect(n.count(other) { if case .game(.gameOver(.lost, _, _), _) = $0 { true } else { false } } == 1)
        #expect(moves(n, 0) == moves(n, 1))
        #expect(n.errors.isEmpty, "\(n.errors)")
    }
}
