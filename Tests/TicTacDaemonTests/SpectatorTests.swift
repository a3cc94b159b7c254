import Testing
import TicTacAPI
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// Spectators (Protocol.md §14) on cores joined in memory at version 2 (sealed): ann and ben
/// play, watchers (cores 2...) follow ann's game through ann's daemon.
@Suite struct SpectatorTests {
    func player(_ name: String, seed: UInt64, bot: BotLevel? = nil) -> DaemonConfig {
        var c = config(name, seed: seed, bot: bot)
        c.capabilities.insert(.spectators)
        return c
    }

    func watcher(_ i: Int) -> DaemonConfig {
        var c = config("watcher\(i)", seed: 700 + UInt64(i))
        c.capabilities = [] // offers no tic-tac-toe: no lobby lists it
        return c
    }

    /// ann (core 0) and ben (core 1) with a match on, and `watchers` watcher cores linked to ann.
    func net(watchers: Int = 1, ann: DaemonConfig? = nil, ben: DaemonConfig? = nil, match: Bool = true) throws -> CoreNet {
        let configs = [ann ?? player("ann", seed: 81), ben ?? player("ben", seed: 82)] + (0..<watchers).map(watcher)
        var n = CoreNet(configs, sealed: true)
        _ = n.connect(dialler: 0, to: 1)
        for w in 0..<watchers { _ = n.connect(dialler: 2 + w, to: 0) }
        n.settle()
        if match {
            if n.cores[0].config.player.isHuman { try n.command(0, .invite("ben")) } // a bot that dialled invites by itself
            n.settle()
            try n.command(1, .accept)
            n.settle()
        }
        return n
    }

    func updates(_ n: CoreNet, _ i: Int) -> [WatchUpdate] {
        n.events[i].compactMap { if case let .watched(u, _) = $0 { u } else { nil } }
    }

    /// The boards a watcher saw, one per WATCHING, with each game's end (nil: none yet).
    func seen(_ n: CoreNet, _ i: Int) -> [(game: WatchedGame, moves: [Int], end: WatchEnd?)] {
        var out: [(game: WatchedGame, moves: [Int], end: WatchEnd?)] = []
        for u in updates(n, i) {
            switch u {
            case let .game(g): out.append((g, g.moves.map(Int.init), nil))
            case let .move(cell, number):
                guard var last = out.popLast() else { Issue.record("a move before WATCHING"); continue }
                #expect(number == last.moves.count + 1, "moves are numbered in order")
                last.moves.append(cell)
                out.append(last)
            case let .ended(e):
                guard var last = out.popLast() else { continue }
                last.end = e
                out.append(last)
            default: break
            }
        }
        return out
    }


    func watch(_ n: inout CoreNet, _ i: Int, _ w: Watch = Watch(.follow)) throws {
        try n.command(i, .watch("ann", w))
        n.settle()
    }

    @Test func aLateWatcherGetsTheBoardSoFarThenEveryMoveTheEndAndTheNextGame() throws {
        var n = try net()
        try n.play(moves: 2)
        try watch(&n, 2)
        var games = seen(n, 2)
        #expect(games.count == 1 && games.first?.moves == n.game(0)?.moves, "the board so far")
        try n.play(moves: 9)
        let ann = try #require(n.game(0))
        #expect(ann.state == .done)
        games = seen(n, 2)
        let game = try #require(games.first)
        #expect(game.moves == ann.moves)
        let first = ann.piece == .o ? n.cores[0].config.instanceID : n.cores[1].config.instanceID
        #expect(game.game.o.id == first && game.game.number == 1)
        let line = ann.board.winningLine
        #expect(game.end == WatchEnd(winner: line?.piece.rawValue ?? 0, how: line == nil ? .full : .line))
        n.advance(by: .seconds(3)) // the rematch
        n.settle()
        games = seen(n, 2)
        #expect(games.count == 2 && games.last?.game.number == 2 && games.last?.moves == [])
        #expect(n.errors.isEmpty, "\(n.errors)")
    }

    @Test func aBotsGameThatEndsAndRestartsInOneTurnIsToldWhole() throws {
        var n = try net(ann: player("ann", seed: 81, bot: .perfect))
        try watch(&n, 2)
        for _ in 0..<5 { // ben moves; the bot answers at once, and rematches at once when it ends
            guard let board = n.game(1)?.board, n.game(1)?.state == .myTurn else { break }
            let cell = try #require(CoreNet.script.first { board.emptyCells.contains($0) })
            try n.command(1, .move(cell))
            n.settle()
        }
        let games = seen(n, 2)
        let firstGame = try #require(games.first)
        let end = try #require(firstGame.end, "the end of a game the bot finished")
        var board = Board(size: .classic)
        for (i, cell) in firstGame.moves.enumerated() { try board.place(i % 2 == 0 ? .o : .x, at: cell) }
        #expect(board.winningLine?.piece.rawValue ?? 0 == end.winner)
        #expect(end.how == (board.winningLine == nil ? .full : .line))
        #expect(n.errors.isEmpty, "\(n.errors)")
    }

    @Test func aWatchersMessagesNeverChangeAGame() throws {
        var n = try net(watchers: 2)
        try n.play(moves: 1)
        try watch(&n, 2)
        try watch(&n, 3)
        let before = try #require(n.game(0)?.moves)
        // A move and a resignation from watchers: refused, their links closed, the game as it was.
        n.send(.move(cell: UInt16(try #require(n.game(0)?.board.emptyCells.first))), from: 2, link: 2)
        n.send(.resign, from: 3, link: 3)
        n.settle()
        #expect(n.closed.contains(2) && n.closed.contains(3))
        #expect(n.game(0)?.moves == before && n.game(1)?.moves == before)
        #expect(n.game(0)?.state == .myTurn || n.game(0)?.state == .opponentTurn)
        #expect(!n.closed.contains(1), "the players' link is untouched")
        try n.play(moves: 9)
        #expect(n.game(0)?.state == .done && n.game(0)?.moves == n.game(1)?.moves)
    }

    @Test func watchersAreBoundedPerGame() throws {
        var ann = player("ann", seed: 81)
        ann.maxWatchersPerGame = 2
        var n = try net(watchers: 3, ann: ann)
        for w in 2...4 { try watch(&n, w) }
        #expect(updates(n, 2).first.map { if case .game = $0 { true } else { false } } == true)
        #expect(updates(n, 3).first.map { if case .game = $0 { true } else { false } } == true)
        #expect(updates(n, 4) == [.stopped(.full)])
        #expect(n.cores[0].watcherCount == 2)
        let told = n.events[0].compactMap { if case let .watchers(k) = $0 { k } else { nil } }
        #expect(told == [1, 2], "ann is told how many watch, as it changes")
        // One stops: the third may come in.
        try watch(&n, 2, Watch(.stop))
        #expect(updates(n, 2).last == .stopped(.stopped))
        try watch(&n, 4)
        #expect(updates(n, 4).last.map { if case .game = $0 { true } else { false } } == true)
    }

    /// tictac's bound (Protocol.md §14): 16 watchers per game; the 17th is told `full`.
    @Test func sixteenWatchPerGameByDefault() throws {
        var n = try net(watchers: 17)
        for w in 2...18 { try watch(&n, w) }
        #expect((2...17).allSatisfy { w in updates(n, w).first.map { if case .game = $0 { true } else { false } } == true })
        #expect(updates(n, 18) == [.stopped(.full)])
    }

    @Test func aPlayerWhoAllowsNoSpectatorsRefusesAndStopsThem() throws {
        var off = player("ann", seed: 81)
        off.spectators = false
        var n = try net(ann: off)
        try watch(&n, 2)
        #expect(updates(n, 2) == [.stopped(.off)])
        try watch(&n, 2, Watch(.list))
        #expect(updates(n, 2).last == .stopped(.off))

        var m = try net()
        try watch(&m, 2)
        try m.command(0, .spectators(false))
        m.settle()
        #expect(updates(m, 2).last == .stopped(.off) && m.cores[0].watcherCount == 0)
        try m.play(moves: 2)
        #expect(updates(m, 2).count(where: { if case .move = $0 { true } else { false } }) == 0)
    }

    @Test func anOpponentWhoAllowsNoSpectatorsIsNotWatchedThroughTheOtherPlayer() throws {
        var off = player("ben", seed: 82)
        off.spectators = false
        off.capabilities.remove(.spectators) // as `--no-spectators` starts it (Options)
        var n = try net(ben: off)
        try watch(&n, 2, Watch(.list))
        #expect(updates(n, 2).contains { if case let .games(list) = $0 { list.isEmpty } else { false } },
                "ann's game with ben is not listed: \(updates(n, 2))")
        try watch(&n, 2)
        #expect(updates(n, 2).last == .stopped(.off))
        try n.play(moves: 2)
        #expect(updates(n, 2).count(where: { if case .move = $0 { true } else { false } }) == 0)
    }

    @Test func noGameThenTheListThenTheMatchsEnd() throws {
        var n = try net(match: false)
        try watch(&n, 2)
        try watch(&n, 2, Watch(.list))
        #expect(updates(n, 2) == [.stopped(.noGame), .games([])])
        try n.command(0, .invite("ben"))
        n.settle()
        try n.command(1, .accept)
        n.settle()
        try n.play(moves: 1)
        try watch(&n, 2, Watch(.list))
        let ben = WatchPlayer(id: n.cores[1].config.instanceID, name: n.cores[1].config.name)
        #expect(updates(n, 2).last == .games([ListedGame(opponent: ben, rows: 3, cols: 3, k: 3, moves: 1)]))
        try watch(&n, 2, Watch(.follow, opponent: ben.id))
        let annPiece = try #require(n.game(0)?.piece)

        try n.command(1, .leaveMatch) // ben leaves, giving the game up: ann wins, and the watch is over
        n.settle()
        #expect(Array(updates(n, 2).suffix(2)) == [.ended(WatchEnd(winner: annPiece.rawValue, how: .gaveUp)), .stopped(.over)])
        #expect(n.cores[0].watcherCount == 0)
        // ann is free now, but an invitation from the watcher's link is declined, never shown.
        n.send(.invite(Invite(gameID: ID128(high: 1, low: 2))), from: 2, link: 2)
        n.settle()
        #expect(n.count(0) { if case .invited = $0 { true } else { false } } == 0)
        #expect(!n.closed.contains(2) && n.cores[0].presenceState == .idle)
    }

    /// Frames to watchers follow the game's frames of the same input, and a watcher's link is
    /// bounded as soon as it asks.
    @Test func watchersFramesGoAfterTheGamesAndTheirQueueIsBounded() throws {
        var n = try net()
        try watch(&n, 2)
        #expect(n.bounds[0][2] == n.cores[0].config.maxWatcherBacklog)
        #expect(n.bounds[0][1] == nil, "the players' link keeps the shell's own bound")
        let side = try #require(n.mover)
        let annMoves = side == 0
        if !annMoves { // ben moves: ann's daemon receives it, forwards nothing to ben, tells the watcher
            try n.command(1, .move(4))
            n.settle()
            try n.command(0, .move(0))
        } else {
            try n.command(0, .move(4))
        }
        let sends = n.lastActions[0].compactMap { if case let .send(id, _) = $0 { id } else { nil } }
        #expect(sends.contains(1) && sends.contains(2))
        let lastGame = try #require(sends.lastIndex(of: 1)), firstWatcher = try #require(sends.firstIndex(of: 2))
        #expect(lastGame < firstWatcher, "\(sends)")
    }

    /// On a version-1 link the spectators' messages are unknown types: an IGNORABLE one is
    /// skipped, as a version-1 daemon would.
    @Test func onAVersionOneLinkWatchIsSkipped() throws {
        var n = CoreNet(player("ann", seed: 81), watcher(0))
        _ = n.connect(dialler: 1, to: 0)
        n.settle()
        try n.command(1, .watch("ann", Watch(.list)))
        n.settle()
        #expect(updates(n, 1).isEmpty)
        #expect(n.errors.isEmpty && n.closed.isEmpty)
        n.send(.watchStop(.off), from: 0, link: 1) // the other way, unasked: skipped too
        n.settle()
        #expect(n.errors.isEmpty && n.closed.isEmpty)
    }

    /// Each WATCH costs an answer: the ninth within a second closes the link (Protocol.md §14).
    @Test func aWatchFloodClosesTheLink() throws {
        var n = try net()
        try watch(&n, 2)
        for _ in 0..<7 { n.send(.watch(Watch(.list)), from: 2, link: 2) }
        n.settle()
        #expect(!n.closed.contains(2), "eight in a second are answered")
        n.send(.watch(Watch(.list)), from: 2, link: 2)
        n.settle()
        #expect(n.closed.contains(2))
        #expect(n.count(0) { if case .protocolError(_, .unexpectedMessage, _, true) = $0 { true } else { false } } == 1)
        n.advance(by: .seconds(1))
        #expect(!n.closed.contains(1) && n.game(0) != nil, "the game goes on")
    }

    /// An answer nobody asked for is a fault of the sender's.
    @Test func anUnaskedAnswerIsRefused() throws {
        var n = try net(match: false)
        n.send(.watchMove(cell: 0, number: 1), from: 0, link: 2)
        n.settle()
        #expect(n.closed.contains(2))
        #expect(n.count(2) { if case .protocolError(_, .unexpectedMessage, _, true) = $0 { true } else { false } } == 1)
    }

    @Test func aWatchCannotBeSentToAPeerThatServesNone() throws {
        var n = try net(ben: config("ben", seed: 82), match: false)
        _ = n.connect(dialler: 2, to: 1)
        n.settle()
        #expect(throws: CommandError.noSpectators("ben")) { try n.command(2, .watch("ben", Watch(.follow))) }
    }
}
