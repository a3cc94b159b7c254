import Testing
import TicTacEngine
import TicTacPbrain
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// An engine bot's core (`DaemonConfig.engine`), sans I/O: which invitations it takes, the
/// engine turns it hands out, and what it does with their answers.
@Suite struct EngineCoreTests {
    let gomoku = try! BoardSize(rows: 15, cols: 15, k: 5)

    /// Core 0 a bot whose engine plays 15x15 k=5; core 1 a player ("ben") inviting on `size`.
    func net(_ size: BoardSize, maxGames: Int = 4) throws -> CoreNet {
        var bot = config("engine", seed: 61, bot: .perfect)
        bot.player = .bot(Bot(level: .perfect), engine: EngineBoards(sizes: [gomoku], maxGames: maxGames))
        var ben = config("ben", seed: 62)
        ben.size = size
        var n = CoreNet(bot, ben)
        _ = n.connect(dialler: 1)
        n.settle()
        try n.command(1, .invite("engine"))
        n.settle()
        return n
    }

    func declines(_ n: CoreNet) -> [DeclineReason] {
        n.events[1].compactMap { if case let .declined(_, reason) = $0 { reason } else { nil } }
    }

    func turns(_ n: CoreNet) -> [EngineTurn] {
        n.engineRequests[0].compactMap { if case let .turn(t) = $0 { t } else { nil } }
    }

    @Test func aBoardTheEngineDoesNotPlayIsDeclinedUnsupported() throws {
        let n = try net(try BoardSize(rows: 7, cols: 7, k: 4))
        #expect(declines(n) == [.unsupported])
        #expect(n.logs[0].contains { $0.contains("the engine plays k = 5 on 1 board size") }, "\(n.logs[0])")
        #expect(n.game(1) == nil)
    }

    @Test func theClassicBoardStaysTheBuiltInBots() throws {
        let n = try net(.classic)
        #expect(declines(n).isEmpty)
        #expect(n.game(1) != nil)
        #expect(n.engineRequests[0].isEmpty, "3x3 moves never go to the engine")
    }

    @Test func theEnginesMoveIsPlayedAndItsFailureResigns() throws {
        var n = try net(gomoku)
        #expect(declines(n).isEmpty)
        if n.game(1)?.state == .myTurn { // ben first: his move, then the engine's turn
            try n.command(1, .move(112))
            n.settle()
        }
        let first = try #require(turns(n).last)
        #expect(first.size == gomoku)
        #expect(first.engineFirst == (n.game(1)?.piece == .x), "the first mover plays O")
        #expect(first.moves == (n.game(1)?.moves ?? [-1]))
        #expect(first.moveTime == 120)
        // Its move reaches ben.
        let cell = first.moves.contains(0) ? 1 : 0
        n.answerEngine(0, EngineAnswer(link: first.link, ticket: first.ticket, outcome: .move(cell)))
        n.settle()
        #expect(n.game(1)?.board[cell] == (first.engineFirst ? .o : .x))
        #expect(n.game(1)?.state == .myTurn)
        // A stale answer (the same ticket again) changes nothing.
        n.answerEngine(0, EngineAnswer(link: first.link, ticket: first.ticket, outcome: .move(cell == 0 ? 2 : 0)))
        #expect(n.game(1)?.board.filledCount == first.moves.count + 1)
        // Ben moves; the engine fails that turn: the bot resigns the game, and says why.
        let free = try #require(n.game(1)?.board.emptyCells.first)
        try n.command(1, .move(free))
        n.settle()
        let second = try #require(turns(n).last)
        #expect(second.ticket != first.ticket && second.moves.last == free)
        n.answerEngine(0, EngineAnswer(link: second.link, ticket: second.ticket, outcome: .failed("crashed", pausedUntil: nil)))
        n.settle()
        #expect(n.game(1)?.score == Score(won: 1), "ben won by resignation")
        #expect(n.logs[0].contains { $0.contains("lost the game against ben by resigning: the engine failed: crashed") })
    }

    /// An engine out of restarts for now (EngineRestartRate): the match ends, engine boards are
    /// declined busy while it rests, and played again once the pause is over.
    @Test func aRestingEngineEndsTheMatchDeclinesBusyAndPlaysAgainAfterThePause() throws {
        var n = try net(gomoku)
        if n.game(1)?.state == .myTurn {
            try n.command(1, .move(112))
            n.settle()
        }
        let turn = try #require(turns(n).last)
        let resumes = n.now + .seconds(600)
        n.answerEngine(0, EngineAnswer(link: turn.link, ticket: turn.ticket, outcome: .failed("no restart left", pausedUntil: resumes)))
        n.settle()
        let results = n.events[1].compactMap { if case let .game(.gameOver(r, _, _), _) = $0 { r } else { nil } }
        #expect(results == [.won])
        // No rematch: the bot ends the match at once, and its engine process goes.
        #expect(n.game(1) == nil)
        #expect(n.events[1].contains { if case .matchEnded(_, byUs: false) = $0 { true } else { false } })
        #expect(n.engineRequests[0].contains(.stop(turn.link)))
        #expect(n.logs[0].contains { $0.contains("no engine restart left for 600 s") }, "\(n.logs[0])")
        try n.command(1, .invite("engine"))
        n.settle()
        #expect(declines(n) == [.busy], "declined busy (try later) while the engine rests")
        // Nearly ten minutes on (the link kept alive): still declined; past the pause, played.
        while n.now < resumes + .seconds(-1) {
            n.advance(by: .seconds(1))
            n.settle()
        }
        try n.command(1, .invite("engine"))
        n.settle()
        #expect(declines(n) == [.busy, .busy])
        #expect(n.game(1) == nil)
        n.advance(by: .seconds(1))
        n.settle()
        try n.command(1, .invite("engine"))
        n.settle()
        #expect(declines(n) == [.busy, .busy], "\(n.logs[0].suffix(5))")
        #expect(n.game(1) != nil, "the engine plays again once its pause is over")
    }

    @Test func theEngineGamesCapDeclinesBusy() throws {
        var bot = config("engine", seed: 71, bot: .perfect)
        bot.player = .bot(Bot(level: .perfect), engine: EngineBoards(sizes: [gomoku], maxGames: 1))
        var ann = config("ann", seed: 72), ben = config("ben", seed: 73)
        ann.size = gomoku
        ben.size = gomoku
        var n = CoreNet(bot, ann, ben)
        _ = n.connect(dialler: 1, to: 0)
        _ = n.connect(dialler: 2, to: 0)
        n.settle()
        try n.command(1, .invite("engine"))
        n.settle()
        try n.command(2, .invite("engine"))
        n.settle()
        #expect(n.game(1) != nil)
        #expect(n.events[2].contains { if case .declined(_, .busy) = $0 { true } else { false } })
    }
}
