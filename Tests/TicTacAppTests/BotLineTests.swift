import Testing
@testable import TicTacDaemon
@testable import TicTacDaemonCore
@testable import TicTacEngine
@testable import TicTacApp
import TicTacJSON
@testable import TicTacTerminal
import TicTacWire

/// The bot's game-over line is written straight into bytes; it must stay the line the JSON
/// tree makes (the documented `--json` output), escapes included.
struct BotLineTests {
    @Test(arguments: ["yb", "caf\u{e9} \"q\" \\ \u{1}\u{2028}", ""], [GameResult.won, .lost, .draw])
    func gameOverLineIsTheJSONObjectsSerialization(name: String, result: GameResult) {
        let opponent = PeerInfo(id: ID128(high: 0x0123_4567_89AB_CDEF, low: 42), name: name,
                                addresses: ["127.0.0.1"], port: 50000, capabilities: [.tictactoe])
        let tree = JSON.object([("event", .string("game-over")), ("opponent", OutputFormatter.who(opponent)),
                                ("result", .string(result.rawValue)), ("games", .int(1234))])
        #expect(BotRunner.gameOverLine(opponent: opponent, result: result, games: 1234) == tree.utf8)
        #expect(String(decoding: tree.utf8, as: UTF8.self).hasPrefix(#"{"event":"game-over","opponent":{"id":"0123456789abcdef"#))
        // The bot makes the opponent's part once and reuses it for every later game with it.
        let prefix = BotRunner.gameOverPrefix(opponent: opponent)
        for games in [1, 9, 10, 1_000_000] {
            let later = JSON.object([("event", .string("game-over")), ("opponent", OutputFormatter.who(opponent)),
                                     ("result", .string(result.rawValue)), ("games", .int(games))])
            #expect(BotRunner.gameOverLine(prefix: prefix, result: result, games: games) == later.utf8)
        }
    }
}
