import Foundation
import Glibc
import Testing
import TicTacAPI
import TicTacDaemon
import TicTacDaemonCore
import TicTacEngine
import TicTacWire
import TicTacJSON
@testable import TicTacTerminal
import TicTacTime

@Suite struct CommandTests {
    @Test func parsesEveryCommand() throws {
        #expect(try Command.parse("move 5") == .move(5))
        #expect(try Command.parse("connect [fe80::1%Eth0]:50000") == .connect("[fe80::1%Eth0]:50000"))
        #expect(throws: Command.ParseError.self) { try Command.parse("connect") }
        #expect(try Command.parse("  MOVE   12 ") == .move(12))
        #expect(try Command.parse("7") == .move(7))
        #expect(try Command.parse("move 400") == .move(400))
        #expect(try Command.parse("new") == .new)
        #expect(try Command.parse("resign") == .resign)
        #expect(try Command.parse("quit") == .quit)
        #expect(try Command.parse("q") == .quit)
        #expect(try Command.parse("help") == .help)
        // An unknown word names the game's commands and where the rest are (the lobby's).
        #expect(throws: Command.ParseError(description: "unknown command 'foo' (try: move c7, move N, new, resign, quit; help lists them all)")) {
            try Command.parse("foo")
        }
    }

    @Test(arguments: ["", "   ", "move", "move x", "move 1 2", "new game", "jump 3", String(repeating: "m", count: 300),
                      "move 0", "move -9223372036854775808", "-9223372036854775808", "move 401", "99999999999999999999"])
    func refusesBadLines(line: String) {
        #expect(throws: Command.ParseError.self) { try Command.parse(line) }
    }
}

@Suite struct JSONTests {
    @Test func escapesWhatMustBeEscaped() {
        #expect(JSON.string("a\"b\\c").serialized == #""a\"b\\c""#)
        #expect(JSON.string("line\nnext\u{1b}[2J").serialized == #""line\nnext\u001b[2J""#)
        #expect(JSON.string("é🎲").serialized == "\"é🎲\"")
        #expect(JSON.object([("event", .string("x")), ("n", .int(-3)), ("ok", .bool(true)), ("v", .null),
                             ("a", .array([.int(1), .int(2)]))]).serialized
            == #"{"event":"x","n":-3,"ok":true,"v":null,"a":[1,2]}"#)
    }

    @Test func outputIsValidJSONForFoundation() throws {
        let s = JSON.object([("event", .string("e\u{0}\u{7f}\u{2028}"))]).serialized
        let parsed = try JSONSerialization.jsonObject(with: Data(s.utf8)) as? [String: String]
        #expect(parsed?["event"] == "e\u{0}\u{7f}\u{2028}")
    }
}

@Suite struct LineReaderTests {
    @Test func splitsAcrossChunksAndBoundsLength() {
        var r = LineReader(maxBytes: 8)
        #expect(r.feed(Array("mo".utf8)) == [])
        #expect(r.feed(Array("ve 5\nnew\r\n".utf8)) == [.line("move 5"), .line("new")])
        #expect(r.feed(Array("0123456789abc".utf8)) == [.tooLong])
        #expect(r.feed(Array("def\nquit".utf8)) == [])
        #expect(r.finish() == [.line("quit")])
    }
}

@Suite struct OutputFormatterTests {
    let opponent = PeerInfo(id: ID128(high: 1, low: 2), name: "bot (perfect)")
    let json = OutputFormatter(style: .json)

    private func line(_ e: GameEvent) -> String { json.lines(for: .game(e, opponent: opponent)).joined() }

    @Test func jsonShapesAreTheDocumentedOnes() throws {
        #expect(line(.gameStarted(piece: .o, first: true, size: .classic))
            == #"{"event":"game-started","opponent":{"id":"00000000000000010000000000000002","name":"bot (perfect)"},"piece":"O","first":true,"rows":3,"cols":3,"k":3,"resumed":false}"#)
        var board = Board()
        try board.place(.o, at: 0)
        try board.place(.x, at: 2)
        #expect(line(.board(board)) == #"{"event":"board","cells":"O.X......","rows":["O.X","...","..."]}"#)
        #expect(line(.yourTurn) == #"{"event":"your-turn"}"#)
        #expect(line(.opponentMoved(cell: 4)) == #"{"event":"opponent-moved","cell":5,"name":"b2"}"#)
        #expect(line(.gameOver(result: .won, line: [0, 4, 8], resigned: false))
            == #"{"event":"game-over","result":"won","line":[1,5,9],"resigned":false,"reason":"line"}"#)
        #expect(line(.gameOver(result: .draw, line: nil, resigned: false))
            == #"{"event":"game-over","result":"draw","line":null,"resigned":false,"reason":"draw"}"#)
        #expect(line(.score(Score(won: 1, lost: 0, drawn: 2))) == #"{"event":"score","won":1,"lost":0,"drawn":2}"#)
        #expect(line(.rolls(yours: 790_923, theirs: 204_709, moveTime: 120))
            == #"{"event":"rolls","you":790923,"opponent":204709,"move-time":120,"against":{"id":"00000000000000010000000000000002","name":"bot (perfect)"}}"#)
        #expect(line(.timeUp(yours: false, clock: .roll)) == #"{"event":"time-up","who":"opponent","clock":"roll"}"#)
        #expect(line(.timeUp(yours: true, clock: .move)) == #"{"event":"time-up","who":"you","clock":"move"}"#)
        #expect(json.lines(for: .error(code: "bad-command", message: "x")).joined()
            == #"{"event":"error","code":"bad-command","message":"x"}"#)
    }

    @Test func textUsesTheOriginalStrings() {
        let text = OutputFormatter(style: .text)
        func t(_ e: GameEvent) -> String { text.lines(for: .game(e, opponent: opponent)).joined() }
        #expect(t(.yourTurn) == "Your Turn")
        #expect(t(.opponentTurn) == "Opponent's Turn")
        #expect(t(.gameOver(result: .won, line: [0, 1, 2], resigned: false)) == "You Won! (line 1-2-3)")
        #expect(t(.gameOver(result: .lost, line: [2, 4, 6], resigned: false)) == "Opponent Won! (line 3-5-7)")
        #expect(t(.gameOver(result: .draw, line: nil, resigned: false)) == "Cat Wins! (a draw)")
        #expect(t(.interrupted).hasPrefix("Peer Disconnected!"))
        #expect(t(.rolls(yours: 204_709, theirs: 790_923, moveTime: 0))
            == "You rolled 204709, bot (perfect) rolled 790923: the higher roll moves first; no move clock")
        #expect(t(.timeUp(yours: false, clock: .move)) == "Time's up: bot (perfect) did not move in time")
        #expect(t(.timeUp(yours: true, clock: .move)) == "Time's up: you did not move in time")
    }

    /// Moves on a larger board are told by the names plain mode takes (`move c7`); 3 x 3 keeps 1-9.
    @Test func opponentMovesAreNamedAsTheyAreTyped() throws {
        var text = OutputFormatter(style: .text)
        let opponent = PeerInfo(id: ID128(high: 1, low: 2), name: "yb")
        #expect(text.lines(for: .game(.opponentMoved(cell: 4), opponent: opponent)) == ["Opponent played 5"])
        text.size = try BoardSize(rows: 9, cols: 9, k: 5)
        #expect(text.lines(for: .game(.opponentMoved(cell: 58), opponent: opponent)) == ["Opponent played e7 (59)"])
    }

    /// A peer's state change does not read like its answer to an invitation.
    @Test func aPeersNewStateIsNotWordedAsADecline() {
        let text = OutputFormatter(style: .text)
        let yb = PeerInfo(id: ID128(high: 1, low: 2), name: "yb", addresses: ["127.0.0.1"], port: 50000,
                          capabilities: [.tictactoe], state: .busy)
        let updated = text.lines(for: .peerUpdated(yb)).joined()
        let declined = text.lines(for: .declined(by: yb, reason: .busy)).joined()
        #expect(updated == "Peer updated: yb (00000000) at 127.0.0.1, busy")
        #expect(!updated.contains(declined), "\(updated) reads like \(declined)")
    }

    /// Plain mode's rematch countdown (the full screen's "New game in 3... l: lobby").
    @Test func theRematchIsAnEventAndALine() {
        let text = OutputFormatter(style: .text)
        #expect(json.lines(for: .rematch(seconds: 3, lobby: true)) == [#"{"event":"rematch","seconds":3,"commands":["new","lobby"]}"#])
        #expect(json.lines(for: .rematch(seconds: 5, lobby: false)) == [#"{"event":"rematch","seconds":5,"commands":["new"]}"#])
        #expect(text.lines(for: .rematch(seconds: 3, lobby: true))
            == ["New game in 3 s: new starts it now, lobby ends the match and goes back to the lobby"])
        #expect(text.lines(for: .rematch(seconds: 3, lobby: false)) == ["New game in 3 s: new starts it now"])
    }

    /// The rematch is announced after a finished game's score, with `lobby` only in networked
    /// play, and not when the player's own `new` or `lobby` ended the game.
    @Test func theRematchFollowsAFinishedGamesScore() {
        let over = DaemonEvent.game(.gameOver(result: .won, line: [0, 1, 2], resigned: false), opponent: opponent)
        let score = DaemonEvent.game(.score(Score(won: 1)), opponent: opponent)
        var local = RematchAnnouncer()
        #expect(local.after(over) == nil)
        #expect(local.after(score) == .rematch(seconds: 3, lobby: false))
        #expect(local.after(score) == nil, "a score alone (a settled draw) announces nothing more")
        var network = RematchAnnouncer()
        network.seconds = 2
        #expect(network.after(.ready(name: "ann", id: ID128(high: 0, low: 1), port: 50000)) == nil)
        _ = network.after(over)
        #expect(network.after(score) == .rematch(seconds: 2, lobby: true))
        network.endingOnCommand = true
        _ = network.after(over)
        #expect(network.after(score) == nil)
        network.endingOnCommand = false
        _ = network.after(over)
        _ = network.after(.game(.interrupted, opponent: opponent))
        #expect(network.after(score) == nil, "only a score right after the game-over")
    }

    /// Text echoed from input (here a bad command with ESC, BEL and a right-to-left override)
    /// reaches the terminal escaped, never raw; JSON escapes it its own way.
    @Test func textEscapesControlCharactersInErrors() {
        let text = OutputFormatter(style: .text)
        let message = "unknown command '\u{1b}[2J\u{7}\u{202E}x'"
        let line = text.lines(for: .error(code: "bad-command", message: message)).joined()
        #expect(line == #"Error: unknown command '\x1b[2J\x07\u{202e}x'"#)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E })
        #expect(text.lines(for: .help("a\nb")) == ["a\nb"], "our own help keeps its lines")
    }
}

@Suite struct CellNameTests {
    @Test func namesAndParsing() throws {
        let size = try BoardSize(rows: 15, cols: 15, k: 5)
        #expect(CellName.name(0, on: size) == "a1")
        #expect(CellName.name(11 * 15 + 2, on: size) == "c12")
        #expect(CellName.name(224, on: size) == "s15") // l, n, q, r are skipped: they are keys
        #expect(CellName.parse("C12") == CellName.Ref(col: 2, row: 11))
        for bad in ["c", "c0", "c21", "l3", "q1", "r2", "n4", "c123", "3c", "c-1", "cc1", "y1"] {
            #expect(CellName.parse(bad) == nil, "\(bad)")
        }
        #expect(CellName.Ref(col: 2, row: 11).cell(on: size) == 167)
        #expect(CellName.Ref(col: 3, row: 0).cell(on: .classic) == nil)
    }

    @Test func plainModeTakesNamesBesideNumbers() throws {
        #expect(try Command.parse("move c7") == .moveAt(CellName.Ref(col: 2, row: 6)))
        #expect(try Command.parse("C7") == .moveAt(CellName.Ref(col: 2, row: 6)))
        #expect(try Command.parse("m b2") == .moveAt(CellName.Ref(col: 1, row: 1)))
        #expect(try Command.parse("move 12") == .move(12))
        #expect(throws: Command.ParseError.self) { try Command.parse("move c0") }
    }

}

@Suite struct HotSeatTests {
    @Test func theScreenNamesBothPlayers() {
        let two = PeerInfo(id: ID128(high: 9, low: 9), name: "Player 2")
        var m = FullScreenModel(color: true, unicode: true)
        m.hotSeat = true
        m.apply(.game(.gameStarted(piece: .x, first: false, size: .classic), opponent: two))
        m.apply(.game(.opponentTurn, opponent: two))
        #expect(m.statusText == "Player 2 (O) to move")
        m.apply(.game(.yourTurn, opponent: two))
        #expect(m.statusText == "Player 1 (X) to move")
        m.apply(.game(.gameOver(result: .lost, line: [0, 1, 2], resigned: false), opponent: two))
        #expect(m.statusText == "Player 2 Won!")
        let raw = m.lines(width: 80, height: 24).joined()
        #expect(raw.contains("Player 1: ") && raw.contains("Player 2: "))
        #expect(!raw.contains("\u{1B}[1;37;41m"), "no loser's red: one of the two players won")
    }

    /// `--name` and `--opponent-name` name the two players of `--hotseat`.
    @Test func namedPlayersAreCalledByTheirNames() {
        let ben = PeerInfo(id: ID128(high: 9, low: 9), name: "ben")
        var m = FullScreenModel(color: false, unicode: true)
        m.hotSeat = true
        m.playerOne = "ann"
        m.apply(.game(.rolls(yours: 7, theirs: 3, moveTime: 0), opponent: ben))
        m.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: ben))
        m.apply(.game(.yourTurn, opponent: ben))
        #expect(m.statusText == "ann (O) to move")
        let lines = screen(m)
        #expect(lines.contains { $0.contains("ann: O") && $0.contains("ben: X") })
        #expect(lines.contains { $0.contains("ann rolled 7, ben rolled 3") })
        #expect(lines.contains { $0.contains("Score: ann 0  ben 0") })
        #expect(!lines.joined().contains("Player"))
    }
}
