import Testing
import TicTacAPI
import TicTacDaemonCore
import TicTacEngine
@testable import TicTacTerminal
import TicTacWire

/// `tictac watch`'s views (Protocol.md §14): the board a watcher keeps from WATCHING and
/// WATCH_MOVE, its lines, and its full screen.
@Suite struct WatchScreenTests {
    let ann = WatchPlayer(id: ID128(high: 1, low: 1), name: try! DisplayName("ann")) // a literal name
    let ben = WatchPlayer(id: ID128(high: 2, low: 2), name: try! DisplayName("ben"))
    var server: PeerInfo { PeerInfo(id: ann.id, name: "ann", address: "198.18.0.1", port: 1, capabilities: [.tictactoe, .spectators]) }

    func game(_ moves: [UInt16], rows: UInt8 = 3, cols: UInt8 = 3, k: UInt8 = 3) -> WatchedGame {
        WatchedGame(o: ann, x: ben, rows: rows, cols: cols, k: k, moves: moves, moveTime: 0, number: 1)
    }

    @Test func aLateWatchersBoardIsTheMovesSoFarAndTakesOnlyTheNextMove() throws {
        var w = try #require(WatchedBoard(game([4, 0]), from: server))
        #expect(w.rows == ["X..", ".O.", "..."] && w.toMove == .o)
        let outOfOrder = w.move(cell: 8, number: 4), taken = w.move(cell: 0, number: 3)
        #expect(!outOfOrder, "a move out of order is refused")
        #expect(!taken, "a taken cell is refused")
        let next = w.move(cell: 8, number: 3)
        #expect(next && w.rows == ["X..", ".O.", "..O"])
        #expect(WatchedBoard(game([4, 4]), from: server) == nil, "a WATCHING whose moves do not fit is not drawn")
        #expect(WatchedBoard(game([], rows: 2, cols: 2, k: 2), from: server) == nil, "nor a board tictac does not play")
    }

    @Test func theFullScreenDrawsTheBoardWhoseTurnAndTheEnd() throws {
        var screen = WatchScreen(color: false, unicode: false)
        var w = try #require(WatchedBoard(game([4, 0]), from: server))
        screen.board = w
        screen.status = WatchScreen.status(of: w)
        var lines = screen.lines(width: 80, height: 24).map(visible)
        #expect(lines.count == 24 && lines.allSatisfy { $0.count <= 80 })
        let text = lines.joined(separator: "\n")
        #expect(text.contains("ann") && text.contains("ben") && text.contains("ann (O) to move"))
        #expect(text.contains(" O ") && text.contains(" X "))
        #expect(!text.contains("["), "no cursor: a watcher plays nothing")
        _ = w.move(cell: 8, number: 3)
        _ = w.move(cell: 1, number: 4)
        _ = w.move(cell: 2, number: 5)
        _ = w.move(cell: 3, number: 6)
        _ = w.move(cell: 6, number: 7) // O: 4, 8, 2, 6: the diagonal 2-4-6
        w.finish(WatchEnd(winner: 1, how: .line))
        screen.board = w
        screen.status = WatchScreen.status(of: w)
        lines = screen.lines(width: 40, height: 14).map(visible)
        #expect(lines.count == 14 && lines.allSatisfy { $0.count <= 40 })
        #expect(lines.joined().contains("ann wins!"))
    }

    /// A game given up names who gave it up, on the screen and in the lines (it read "ben wins:
    /// the other gave up").
    @Test func aGameGivenUpNamesWhoGaveItUp() throws {
        var w = try #require(WatchedBoard(game([4, 0]), from: server))
        w.finish(WatchEnd(winner: 2, how: .gaveUp))
        #expect(WatchScreen.status(of: w) == "ben wins: ann gave up")
        let lines = WatchFormatter(json: false).ended(w, WatchEnd(winner: 2, how: .gaveUp))
        #expect(lines.joined().contains("ben (X) wins: ann gave up (resigned, ran out of time or left)"))
        w.finish(WatchEnd(winner: 0, how: .full))
        #expect(WatchScreen.status(of: w) == "Cat Wins! (a draw)")
    }

    @Test func aLargeBoardThatDoesNotFitSaysSo() throws {
        var screen = WatchScreen(color: false, unicode: false)
        screen.board = WatchedBoard(game([], rows: 20, cols: 20, k: 5), from: server)
        #expect(screen.lines(width: 40, height: 14).map(visible).joined().contains("Enlarge the window"))
        #expect(screen.lines(width: 80, height: 30).map(visible).joined().contains(" a  b  c"), "the column letters")
    }

    /// `--all`'s tiles: at 80 x 24 and on a large terminal, every line within the window, as
    /// many games as fit, the rest counted.
    @Test func tilesFitTheWindowAndCountWhatDoesNot() throws {
        var tiles = WatchTiles(color: false, unicode: false)
        tiles.boards = try (0..<6).map { i in try #require(WatchedBoard(game([UInt16(i)]), from: server)) }
        var lines = tiles.lines(width: 80, height: 24).map(visible)
        #expect(lines.count == 24 && lines.allSatisfy { $0.count <= 80 })
        #expect(lines.joined(separator: "\n").components(separatedBy: "O ann").count - 1 == 6, "six small games fit 80 x 24")
        #expect(!lines.joined().contains("more"))
        tiles.boards = try (0..<4).map { _ in try #require(WatchedBoard(game([0], rows: 15, cols: 15, k: 5), from: server)) }
        lines = tiles.lines(width: 80, height: 24).map(visible)
        #expect(lines.allSatisfy { $0.count <= 80 })
        #expect(lines.joined().contains("(2 more: enlarge the window)"), "two 15 x 15 boards side by side at 80 x 24")
        lines = tiles.lines(width: 200, height: 60).map(visible)
        #expect(lines.count == 60 && lines.allSatisfy { $0.count <= 200 })
        #expect(!lines.joined().contains("more"), "all four on a large terminal")
    }

    /// The player's side: `w` in a networked lobby, `spectators on|off` in plain mode.
    @Test func aPlayerTurnsWatchersOffAndOn() throws {
        var m = FullScreenModel(color: false)
        #expect(m.key(.char("w")) == nil, "a local game has no watchers")
        m.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        #expect(m.key(.char("w")) == .spectators(nil))
        #expect(try Command.parse("spectators off") == .spectators(false))
        #expect(try Command.parse("Spectators ON") == .spectators(true))
        #expect(try Command.parse("spectators") == .spectators(nil), "alone: the other of what is now, as the screen's w")
        #expect(throws: Command.ParseError.self) { try Command.parse("spectators maybe") }
    }

    @Test func textAndJSONLines() throws {
        var w = try #require(WatchedBoard(game([4]), from: server))
        _ = w.move(cell: 0, number: 2)
        let json = WatchFormatter(json: true)
        #expect(json.moved(w) == [#"{"event":"watch-move","number":2,"cell":1,"name":"a1","piece":"X","cells":"X...O...."}"#])
        #expect(json.ended(w, WatchEnd(winner: 0, how: .full)) == [#"{"event":"watch-end","winner":null,"how":"draw"}"#])
        let text = WatchFormatter(json: false)
        #expect(text.moved(w).first == "2. ben (X) plays a1")
        #expect(text.stopped(server, .off) == ["ann's games may not be watched: a player allows no spectators"])
    }
}
