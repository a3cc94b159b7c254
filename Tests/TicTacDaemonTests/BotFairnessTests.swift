import Testing
import TicTacEngine
import TicTacNet
import TicTacTestSupport
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

/// The bot's CPU: hostile large-board games that answer at once must not make a
/// 3 x 3 game wait. On the sans-I/O core: the order of moves and searches, not wall-clock time
/// (tools/bench/hostility measures that).
@Suite struct BotFairnessTests {
    /// The first free cell from the end of the board (so the hostile games last a while).
    private func lastFree(_ g: GameSession) -> Int? {
        (0..<g.board.size.cellCount).reversed().first { g.board[$0] == .empty }
    }

    @Test func aClassicMoveNeverWaitsBehindSearches() throws {
        var bot = config("bot", seed: 51, bot: .good)
        bot.botNodes = 300 // small searches: the test is about order, not strength
        var configs = [bot]
        let large = try BoardSize(rows: 20, cols: 20, k: 5)
        for h in 1...3 {
            var c = config("hostile\(h)", seed: 51 + UInt64(h))
            c.size = large
            configs.append(c)
        }
        configs.append(config("legit", seed: 60))
        var n = CoreNet(configs[0], configs[1], configs[2], configs[3], configs[4])
        for i in 1...4 { _ = n.connect(dialler: i, to: 0) }
        n.settle()
        for (i, name) in [(1, "bot"), (2, "bot"), (3, "bot"), (4, "bot")] { try n.command(i, .invite(name)) }
        n.settle()
        #expect(n.cores[0].gameCount == 4)

        var legitMoves = 0, legitMovesWhileSearchesWait = 0, maxOut = 0
        var steps = 0
        while steps < 300, n.cores[4].currentGame?.state != .done || n.searched[0].count < 12 {
            steps += 1
            // The hostile peers answer at once.
            for h in 1...3 {
                guard let g = n.cores[h].currentGame, g.state == .myTurn, let cell = lastFree(g) else { continue }
                try n.command(h, .move(cell))
            }
            n.settle()
            maxOut = max(maxOut, n.thinks[0].count)
            // The legitimate player moves: the bot's answer is there at once, with searches
            // still out and waiting, and none of them answered meanwhile.
            if let g = n.cores[4].currentGame, g.state == .myTurn,
               let cell = (0..<9).first(where: { g.board[$0] == .empty }) {
                let searchesBefore = n.searched[0].count
                let waiting = n.thinks[0].count + n.cores[0].queuedSearches
                try n.command(4, .move(cell))
                n.settle()
                legitMoves += 1
                if waiting >= 2 { legitMovesWhileSearchesWait += 1 }
                let after = n.cores[4].currentGame?.state
                #expect(after == .myTurn || after == .done, "the bot answered the 3 x 3 move at once")
                #expect(n.searched[0].count == searchesBefore)
            }
            n.answerSearches(0) // the worker finishes the search that is out
        }
        #expect(n.cores[4].currentGame?.state == .done)
        #expect(legitMoves >= 2)
        #expect(legitMovesWhileSearchesWait >= 1, "the 3 x 3 moves were made while searches queued")
        #expect(maxOut == 1, "one search out at a time (at most one core searches)")
        #expect(n.errors.isEmpty, "\(n.errors)")

        // Round-robin by address: while all three hostile games go on (a large game lasts at
        // least 4 bot moves each), no address gets a search while another waits longer.
        let order = n.searched[0].prefix(12).map(\.address)
        #expect(order.count == 12)
        for i in 2..<order.count {
            #expect(Set(order[(i - 2)...i]).count == 3, "searches by address: \(order)")
        }
    }

    @Test func largeBoardGamesAreBoundedPerAddress() throws {
        var bot = config("bot", seed: 71, bot: .good)
        bot.maxLargeGamesPerAddress = 2
        var configs = [bot]
        for h in 1...3 {
            var c = config("h\(h)", seed: 71 + UInt64(h))
            c.size = try BoardSize(rows: 7, cols: 7, k: 4)
            configs.append(c)
        }
        configs.append(config("classic", seed: 80))
        var n = CoreNet(configs[0], configs[1], configs[2], configs[3], configs[4])
        // Four daemons behind one address (one host, four identities).
        for i in 1...4 { _ = n.connect(dialler: i, to: 0, address: "198.18.0.99") }
        n.settle()
        for i in 1...4 {
            try n.command(i, .invite("bot"))
            n.settle()
        }
        #expect(n.cores[0].gameCount == 3, "two large games and the 3 x 3 one")
        #expect(n.count(3) { if case .declined(_, .busy) = $0 { true } else { false } } == 1)
        #expect(n.cores[4].currentGame != nil, "a 3 x 3 game is not a large one")
        #expect(n.logs[0].contains { $0.contains("large-board games from 198.18.0.99") })
    }
}

/// The shell's side over real sockets: a search runs on the bot's worker thread and its move
/// comes back through the reactor.
@Suite(.serialized) struct BotWorkerTests {
    @Test func aLargeBoardGameIsPlayedThroughTheWorker() throws {
        let reactor = try Reactor()
        var botConfig = config("searcher", seed: 91, bot: .good)
        botConfig.botNodes = 2_000
        let bot = try Daemon(reactor: reactor, config: botConfig)
        var humanConfig = config("gina", seed: 92)
        humanConfig.size = try BoardSize(rows: 7, cols: 7, k: 4)
        let human = try Daemon(reactor: reactor, config: humanConfig)
        let log = Log()
        human.onEvent = { log.events.append($0) }
        human.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: bot.port)))
        #expect(try run(reactor) { !human.core.peers.isEmpty })
        try human.command(.invite("searcher"))
        let done = try run(reactor) {
            if case .game(.yourTurn, _) = log.events.last, let game = human.core.currentGame {
                try? human.command(.move(game.board.emptyCells[0]))
            }
            return !log.results.isEmpty
        }
        #expect(done)
        let botMoves = log.events.count { if case .game(.opponentMoved, _) = $0 { true } else { false } }
        #expect(botMoves >= 3, "the bot's searched moves arrived")
        #expect(!log.has { if case .protocolError = $0 { true } else { false } })
        human.leave()
        bot.leave()
    }
}
