import Testing
import TicTacAPI
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

/// A game the opponent left once the bot's roll was out is the bot's win by forfeit, reported
/// whether or not it counts toward `--max-games`.
struct BotForfeitLineTests {
    let ben = PeerInfo(id: ID128(high: 1, low: 2), name: "ben", addresses: ["127.0.0.1"], port: 50000, capabilities: [.tictactoe])

    @Test func aForfeitInTheRollIsReportedNotCounted() {
        var tally = BotTally()
        #expect(tally.take(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: ben)) == nil)
        #expect(tally.take(.game(.left(yours: false, inRoll: true), opponent: ben)) == nil)
        let f = tally.take(.game(.gameOver(result: .won, line: nil, resigned: false), opponent: ben))
        #expect(f?.forfeit == .roll && f?.counted == false && f?.result == .won && f?.games == 0)
        #expect(f.map(BotTally.text) == "vs ben: won by forfeit (ben left during the roll; not counted)")
        let line = BotRunner.gameOverLine(prefix: BotRunner.gameOverPrefix(opponent: ben), result: .won, games: 0, forfeit: .roll)
        let tree = JSON.object([("event", .string("game-over")), ("opponent", OutputFormatter.who(ben)), ("result", .string("won")),
                                ("forfeit", .string("roll")), ("games", .int(0))])
        #expect(line == tree.utf8)
    }

    @Test func aForfeitAfterAMoveCounts() {
        var tally = BotTally()
        _ = tally.take(.game(.gameStarted(piece: .x, first: false, size: .classic), opponent: ben))
        _ = tally.take(.game(.opponentMoved(cell: 4), opponent: ben))
        _ = tally.take(.game(.left(yours: false, inRoll: false), opponent: ben))
        let f = tally.take(.game(.gameOver(result: .won, line: nil, resigned: false), opponent: ben))
        #expect(f.map(BotTally.text) == "game 1 vs ben: won by forfeit (ben left the game)")
        // The next game, an ordinary one, is not a forfeit.
        _ = tally.take(.game(.gameStarted(piece: .x, first: false, size: .classic), opponent: ben))
        _ = tally.take(.game(.opponentMoved(cell: 4), opponent: ben))
        let g = tally.take(.game(.gameOver(result: .lost, line: [0, 4, 8], resigned: false), opponent: ben))
        #expect(g.map(BotTally.text) == "game 2 vs ben: lost")
    }

    /// A game resumed after the opponent had moved counts when it ends, though no move of the
    /// opponent's comes after the resume; one resumed before any such move does not.
    @Test(arguments: [true, false])
    func aResumedGameCountsTheMovesBeforeTheCut(opponentMoved: Bool) {
        var tally = BotTally()
        _ = tally.take(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: ben))
        if opponentMoved { _ = tally.take(.game(.opponentMoved(cell: 4), opponent: ben)) }
        _ = tally.take(.gameInterrupted(ben, window: .seconds(600), reason: "cut"))
        _ = tally.take(.gameResumed(ben, resigned: false, opponentMoved: opponentMoved))
        _ = tally.take(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: ben))
        let f = tally.take(.game(.gameOver(result: .won, line: nil, resigned: true), opponent: ben))
        #expect(f?.counted == (opponentMoved ? true : nil))
    }
}

/// A bot reports every game kept across a lost link, as a finished one: a line in plain mode,
/// the front's JSON event with `--json` (issue: `tictac bot --json` printed nothing).
struct BotWaitingLineTests {
    let ben = PeerInfo(id: ID128(high: 1, low: 2), name: "ben", addresses: ["127.0.0.1"], port: 50000, capabilities: [.tictactoe])

    @Test func eachWaitingEventHasItsLine() {
        let events: [(DaemonEvent, String, String)] = [
            (.gameInterrupted(ben, window: .seconds(600), reason: "no answer for 5.0 seconds"),
             "game with ben interrupted (no answer for 5.0 seconds): kept up to 600 s for ben to come back", "game-interrupted"),
            (.gameResumed(ben, resigned: false, opponentMoved: true), "ben is back: the game goes on", "game-resumed"),
            (.gameResumed(ben, resigned: true, opponentMoved: false), "ben resigned the game while apart", "game-resumed"),
            (.gameAdjourned(ben), "game with ben adjourned: offered again when ben is back", "game-adjourned"),
            (.gameVoid(ben, reason: "the two move lists differ"), "game with ben void, counted for nobody: the two move lists differ",
             "game-void"),
            (.gameAbandoned(ben, reason: "it says it has no such game"), "game with ben won by abandonment: it says it has no such game",
             "game-abandoned"),
        ]
        for (event, text, name) in events {
            #expect(BotRunner.waitingText(event) == text)
            let json = OutputFormatter(style: .json).json(event).serialized
            #expect(json.hasPrefix(#"{"event":"\#(name)","opponent":{"id":"00000000000000010000000000000002""#), "\(json)")
        }
    }
}
