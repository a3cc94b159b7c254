import Testing
import TicTacAPI
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore
@testable import TicTacTerminal

/// The screen says what happened: the move clock, why a game ended, who left, the last move.
@Suite struct TruthfulScreenTests {
    /// A game on screen with `moveTime` seconds per move, our turn first.
    func clockModel(_ moveTime: Int) -> FullScreenModel {
        var m = FullScreenModel(color: false, unicode: true)
        m.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        m.apply(.peerFound(bob))
        m.apply(.game(.rolls(yours: 2, theirs: 1, moveTime: moveTime), opponent: bobOpponent))
        m.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        m.apply(.game(.yourTurn, opponent: bobOpponent))
        return m
    }

    // MARK: a. The move clock

    @Test func aShortMoveClockIsAlwaysShown() {
        var m = clockModel(15)
        #expect(m.statusText == "Your Turn · 15 s")
        for _ in 0..<3 { m.tick() }
        #expect(m.statusText == "Your Turn · 12 s")
        #expect(m.ticking)
        m.apply(.game(.opponentTurn, opponent: bobOpponent))
        #expect(m.statusText == "Opponent's Turn · 15 s") // the peer's turn has its own clock
    }

    /// A long clock shows all along, as minutes and seconds, and its last 10 s in a warning
    /// colour (issue: at 120 s it showed only in its last 10 s, in the usual colour).
    @Test func aLongMoveClockShowsAllAlongAndWarnsInItsLastTenSeconds() {
        var m = clockModel(120)
        m.color = true
        #expect(m.statusText == "Your Turn · 2:00")
        #expect(!m.clockRunningOut)
        for _ in 0..<55 { m.tick() }
        #expect(m.statusText == "Your Turn · 1:05")
        for _ in 0..<54 { m.tick() }
        #expect(m.statusText == "Your Turn · 11 s" && !m.clockRunningOut)
        let calm = m.lines(width: 80, height: 24).first { $0.contains("Your Turn") }
        m.tick()
        #expect(m.statusText == "Your Turn · 10 s" && m.clockRunningOut)
        let warned = m.lines(width: 80, height: 24).first { $0.contains("Your Turn") }
        #expect(calm != nil && warned != nil && calm?.prefix(12) != warned?.prefix(12), "another colour: \(String(describing: calm)) \(String(describing: warned))")
        #expect(clockModel(0).statusText == "Your Turn") // no clock, nothing to show
        #expect(!clockModel(0).ticking)
    }

    @Test func aTimeoutIsTimesUpNeverAResignation() {
        var m = clockModel(15)
        m.apply(.game(.timeUp(yours: true, clock: .move), opponent: bobOpponent))
        m.apply(.game(.gameOver(result: .lost, line: nil, resigned: true), opponent: bobOpponent))
        #expect(m.statusText == "Opponent Won! (time's up)")
        #expect(!screen(m).joined().lowercased().contains("resign"), "\(screen(m))")
        var theirs = clockModel(15)
        theirs.apply(.game(.timeUp(yours: false, clock: .move), opponent: bobOpponent))
        theirs.apply(.game(.gameOver(result: .won, line: nil, resigned: true), opponent: bobOpponent))
        #expect(theirs.statusText == "You Won! (time's up for bob)")
    }

    @Test func plainAndJSONSayTimeToo() {
        for style in [OutputFormatter.Style.text, .json] {
            var f = OutputFormatter(style: style)
            var lines: [String] = []
            for e in [GameEvent.timeUp(yours: true, clock: .move), .gameOver(result: .lost, line: nil, resigned: true),
                      .score(Score(lost: 1))] {
                let event = DaemonEvent.game(e, opponent: bobOpponent)
                f.note(event)
                lines += f.lines(for: event)
            }
            if style == .text {
                #expect(lines == ["Time's up: you did not move in time", "Opponent Won! (time's up)", "Score: won 0, lost 1, drawn 0"])
            } else {
                #expect(lines[1].contains(#""reason":"time""#))
            }
            // The next game's ending is its own.
            let over = DaemonEvent.game(.gameOver(result: .lost, line: nil, resigned: true), opponent: bobOpponent)
            f.note(over)
            #expect(f.lines(for: over).joined().contains(style == .text ? "(by resignation)" : #""reason":"resigned""#))
        }
    }

    // MARK: b. The result stays when the opponent leaves

    @Test func aFinishedGameStaysWhenTheOpponentLeaves() {
        var m = gameModel()
        m.apply(.game(.gameOver(result: .won, line: [0, 1, 2], resigned: false), opponent: bobOpponent))
        m.apply(.game(.score(Score(won: 1)), opponent: bobOpponent))
        m.apply(.disconnected(bob, reason: DaemonEvent.leftReason("bob")))
        m.apply(.peerLost(bob, reason: "bob left"))
        #expect(m.game != nil)
        #expect(m.statusText == "You Won!")
        let text = screen(m).joined(separator: "\n")
        #expect(text.contains("bob left"))
        #expect(!text.contains("Peer Disconnected!"))
        #expect(text.contains("Any key: back to the lobby"))
        #expect(m.key(.char("x")) == nil)
        #expect(m.game == nil) // the player moved on
        #expect(screen(m).joined().contains("bob left"))
    }

    @Test func aLostLinkIsStillPeerDisconnectedAndTheForfeitIsSaid() {
        var m = gameModel()
        m.apply(.game(.left(yours: false, inRoll: false), opponent: bobOpponent))
        m.apply(.game(.gameOver(result: .won, line: nil, resigned: false), opponent: bobOpponent))
        m.apply(.disconnected(bob, reason: "connection reset by peer"))
        #expect(m.statusText == "You Won! (bob left: forfeit)")
        #expect(screen(m).contains { $0.contains("Peer Disconnected!") })
        let plain = OutputFormatter(style: .text)
        #expect(plain.lines(for: .disconnected(bob, reason: "bob left")) == ["bob left"])
        #expect(plain.lines(for: .disconnected(bob, reason: "connection reset by peer")) == ["Peer Disconnected! bob: connection reset by peer"])
        #expect(plain.lines(for: .game(.left(yours: false, inRoll: true), opponent: bobOpponent))
            == ["bob left during the roll: you win by forfeit"])
    }

    @Test func aGameInProgressStillGoesWhenTheOpponentLeaves() {
        var m = gameModel()
        m.apply(.disconnected(bob, reason: "bob left"))
        #expect(m.game == nil)
        #expect(screen(m).contains { $0.hasSuffix("bob left") })
    }

    // MARK: c. The opponent's last move

    @Test func theLastMoveIsMarkedAndNamed() throws {
        var m = gameModel()
        m.apply(.game(.opponentTurn, opponent: bobOpponent))
        m.apply(.game(.opponentMoved(cell: 4), opponent: bobOpponent))
        m.apply(.game(.board(try board(o: [0], x: [4])), opponent: bobOpponent))
        m.apply(.game(.yourTurn, opponent: bobOpponent))
        #expect(m.statusText == "Your Turn · bob played 5")
        let raw = m.lines(width: 80, height: 24).joined()
        #expect(raw.contains("\u{1B}[4mX\u{1B}[0m"), "the X just played is underlined")
        #expect(!raw.contains("\u{1B}[4mO"), "only the last move")
        var big = gameModel(size: try BoardSize(rows: 9, cols: 9, k: 5))
        big.apply(.game(.opponentMoved(cell: 58), opponent: bobOpponent))
        #expect(big.statusText?.hasSuffix("bob played e7") == true)
    }

    /// At 40 columns a long name cut the move off the status line: the move then gets a line of
    /// its own, the name cut before its cell, never the cell.
    @Test func aNarrowScreenNeverCutsTheLastMovesCell() throws {
        var m = FullScreenModel(color: false, unicode: true)
        m.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        let long = PeerInfo(id: bob.id, name: "benjamin-the-bot@a-very-long-workstation-name")
        m.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: long))
        m.apply(.game(.opponentTurn, opponent: long))
        m.apply(.game(.opponentMoved(cell: 4), opponent: long))
        m.apply(.game(.yourTurn, opponent: long))
        let narrow = screen(m, 40, 14)
        #expect(narrow.contains("  Your Turn"), "\(narrow)")
        #expect(narrow.contains { $0.hasPrefix("  benjamin-") && $0.hasSuffix("… played 5") }, "\(narrow)")
        expectFits(m, width: 40, height: 14)
        #expect(screen(m, 80, 24).contains { $0.hasSuffix("Your Turn · benjamin-the-bot@a-very-long-workstation-name played 5") })
    }

    // MARK: d. Cells named as the player names them

    @Test func jsonNamesTheOpponentsMoveAndGivesRows() throws {
        var f = OutputFormatter(style: .json)
        let big = try BoardSize(rows: 15, cols: 15, k: 5)
        f.note(.game(.gameStarted(piece: .o, first: true, size: big), opponent: bobOpponent))
        #expect(f.lines(for: .game(.opponentMoved(cell: 157), opponent: bobOpponent)).joined()
            == #"{"event":"opponent-moved","cell":158,"name":"h11"}"#)
        var b = Board(size: big)
        try b.place(.x, at: 157)
        let line = f.lines(for: .game(.board(b), opponent: bobOpponent)).joined()
        #expect(line.contains(#""rows":["...............","#))
        #expect(line.contains(#""...............",".......X.......""#)) // rows 10 and 11: h11
    }

    @Test func aTakenCellIsNamedAsTyped() throws {
        let big = try BoardSize(rows: 15, cols: 15, k: 5)
        #expect(CellName.message(.occupied(cell: 157), on: big, typed: CellName.parse("h11")) == "h11 is already taken")
        #expect(CellName.message(.occupied(cell: 157), on: big) == "h11 is already taken") // the screen names cells
        #expect(CellName.message(.occupied(cell: 4), on: .classic, typed: CellName.parse("b2")) == "b2 is already taken")
        #expect(CellName.message(.occupied(cell: 4), on: .classic) == "cell 5 is already taken")
    }
}

/// `l` mid-game gives the game up, and says so in the lobby (the daemon counts it: RollForfeitTests).
@Suite struct LobbyGivesUpTests {
    @Test func leavingMidGameSaysTheLossInTheLobby() {
        var m = gameModel()
        #expect(m.key(.char("l")) == nil) // asks first
        #expect(m.key(.char("l")) == .lobby)
        m.apply(.game(.gameOver(result: .lost, line: nil, resigned: true), opponent: bobOpponent))
        m.apply(.game(.score(Score(lost: 1)), opponent: bobOpponent))
        m.apply(.matchEnded(bob, byUs: true))
        #expect(m.game == nil)
        #expect(screen(m).joined(separator: " ").contains("You gave up the game: it counts as a loss. You left the match with bob"))
    }
}

/// f. An invitation's answer keys show at any width; `?` shows the keys of the screen at hand.
@Suite struct NarrowInvitationTests {
    @Test func theAnswerKeysAlwaysShow() throws {
        var m = FullScreenModel(color: false, unicode: true)
        m.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        let long = peer("a player with a rather long name indeed", 9)
        m.apply(.peerFound(long))
        m.apply(.invited(by: long, size: try BoardSize(rows: 9, cols: 9, k: 5)))
        for (w, h) in [(40, 14), (30, 10), (80, 24)] {
            let lines = screen(m, w, h)
            #expect(lines.contains { $0.contains("y / n") }, "\(w)x\(h): \(lines)")
            #expect(lines.last?.contains("y accept") == true && lines.last?.contains("n decline") == true, "\(w)x\(h)")
            expectFits(m, width: w, height: h)
        }
        #expect(screen(m, 40, 14).contains { $0.hasPrefix("  y / n: a player") && $0.hasSuffix("invites you (9x9)") })
    }

    @Test func questionMarkShowsTheKeys() {
        var lobby = FullScreenModel(color: false, unicode: true)
        lobby.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        #expect(lobby.key(.char("?")) == nil)
        #expect(screen(lobby).joined(separator: " ").contains("Keys: Up/Down select a peer"))
        var m = gameModel()
        #expect(m.key(.char("?")) == nil)
        #expect(screen(m).joined(separator: " ").contains("1-9 plays a cell"))
        #expect(screen(m).last?.contains("? help") == true)
    }
}

@Suite struct HotSeatTimeTests {
    @Test func aHotSeatTimeoutIsTimesUpToo() {
        var m = FullScreenModel(color: false, unicode: true)
        m.hotSeat = true
        let two = PeerInfo(id: ID128(high: 0, low: 2), name: "Player 2")
        m.apply(.game(.rolls(yours: 2, theirs: 1, moveTime: 10), opponent: two))
        m.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: two))
        m.apply(.game(.timeUp(yours: true, clock: .move), opponent: two))
        m.apply(.game(.gameOver(result: .lost, line: nil, resigned: true), opponent: two))
        #expect(m.statusText == "Player 2 Won! (time's up)")
    }
}
