import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore

/// A bot given `--max-games` starts no game past the last one: its match ends (CANCEL) when the
/// last counted game is over, so it never stops with a roll in flight (which the peer would
/// have to keep waiting for).
@Suite struct BotGameLimitTests {
    @Test(arguments: [1, 2])
    func noRollStartsAfterTheLastGame(limit: Int) throws {
        var human = config("ann", seed: 41)
        var bot = config("botty", seed: 42, bot: .random)
        human.capabilities.formUnion([.resume, .rollResume])
        bot.capabilities.formUnion([.resume, .rollResume, .bot])
        bot.maxBotGames = limit
        var n = CoreNet(human, bot)
        _ = n.connect(dialler: 0)
        n.settle()
        try n.command(0, .invite("botty"))
        n.settle()
        var rng = SplitMix64(seed: 5)
        for _ in 0..<60 {
            guard let g = n.game(0), g.state == .myTurn else {
                n.advance(by: .seconds(1))
                n.settle()
                continue
            }
            let cells = g.board.emptyCells
            try n.command(0, .move(cells[Int(rng.next() % UInt64(cells.count))]))
            n.settle()
        }
        let resets = n.sent(1).filter { if case .reset = $0 { true } else { false } }.count
        #expect(resets == limit, "the bot started \(resets) games for a limit of \(limit)")
        #expect(n.sent(1).contains { if case .cancel = $0 { true } else { false } })
        #expect(n.count(0) { if case .matchEnded(_, byUs: false) = $0 { true } else { false } } == 1)
        #expect(n.count(0) { if case .game(.gameOver, _) = $0 { true } else { false } } == limit)
    }
}
