import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
@testable import TicTacTerminal
import TicTacTime

/// The full-screen model in a game: cells, moves, the end of a game, its status lines.
@Suite struct FullScreenGameTests {
    @Test func theCursorStartsInTheCentreAndEnterPlaysIt() {
        var m = gameModel()
        #expect(m.cursor == 4)
        #expect(m.key(.enter) == .move(5))
    }

    @Test func theCursorStopsAtTheEdgesAndSpacePlaysToo() {
        var m = gameModel()
        for _ in 0..<5 { #expect(m.key(.up) == nil) }
        for _ in 0..<5 { #expect(m.key(.left) == nil) }
        #expect(m.cursor == 0)
        #expect(m.key(.enter) == .move(1))
        for _ in 0..<5 { _ = m.key(.right) }
        #expect(m.cursor == 2)
        for _ in 0..<5 { _ = m.key(.down) }
        #expect(m.cursor == 8)
        #expect(m.key(.char(" ")) == .move(9))
        _ = m.key(.left)
        _ = m.key(.up)
        #expect(m.cursor == 4)
    }

    @Test func theCursorStopsAtTheEdgesOfAWideBoard() throws {
        var big = gameModel(size: try BoardSize(rows: 4, cols: 7, k: 4))
        for _ in 0..<30 { _ = big.key(.right) }
        for _ in 0..<30 { _ = big.key(.down) }
        #expect(big.cursor == 27)
        #expect(big.key(.enter) == .move(28))
    }

    @Test func digitsPlayOnTheClassicBoard() {
        var m = gameModel()
        #expect(m.key(.char("7")) == .move(7))
        #expect(m.cursor == 6)
        #expect(m.key(.char("1")) == .move(1))
        #expect(m.key(.char("0")) == nil)
    }

    @Test func aDigitAloneDoesNotPlayOnALargerBoard() throws {
        var big = gameModel(size: try BoardSize(rows: 4, cols: 4, k: 3))
        #expect(big.key(.char("5")) == nil)
        #expect(screen(big).contains { $0.contains("column letter, then its row") })
    }

    @Test func aCellNamedOnA15By15BoardIsPlayedNotTheCursors() throws {
        var m = gameModel(size: try BoardSize(rows: 15, cols: 15, k: 5))
        #expect(m.key(.char("c")) == nil)
        #expect(m.key(.char("1")) == nil)
        #expect(m.key(.char("2")) == nil)
        #expect(screen(m).contains { $0.contains("Cell: c12_") })
        #expect(m.key(.enter) == .move(11 * 15 + 2 + 1))
        #expect(!screen(m).contains { $0.contains("Cell:") })
    }

    @Test func backspaceEditsACellName() throws {
        var four = gameModel(size: try BoardSize(rows: 4, cols: 4, k: 3))
        _ = four.key(.char("b")); _ = four.key(.char("4")); _ = four.key(.backspace); _ = four.key(.char("3"))
        #expect(four.key(.enter) == .move(10)) // b3
    }

    @Test func escapeDropsACellName() throws {
        var four = gameModel(size: try BoardSize(rows: 4, cols: 4, k: 3))
        _ = four.key(.char("a")); _ = four.key(.escape)
        #expect(four.cellEntry == nil)
    }

    @Test func aColumnOffTheBoardIsNotTaken() throws {
        var four = gameModel(size: try BoardSize(rows: 4, cols: 4, k: 3))
        #expect(four.key(.char("e")) == nil)
        #expect(four.cellEntry == nil)
    }

    @Test func aRowOffTheBoardIsSaidAndNotPlayed() throws {
        var four = gameModel(size: try BoardSize(rows: 4, cols: 4, k: 3))
        _ = four.key(.char("a")); _ = four.key(.char("5"))
        #expect(screen(four).contains { $0.contains("No cell a5") })
        #expect(four.key(.enter) != .move(17))
    }

    @Test func a4By4BoardDrawsItsCellsWithTheirNames() throws {
        #expect(screen(gameModel(size: try BoardSize(rows: 4, cols: 4, k: 3))).contains { $0.contains(" a1 ") && $0.contains(" d1 ") })
    }

    @Test func theClassicBoardTakesNamesAndDigits() {
        var three = gameModel()
        _ = three.key(.char("b")); _ = three.key(.char("2"))
        #expect(three.key(.enter) == .move(5))
        #expect(three.key(.char("9")) == .move(9))
    }

    @Test func keyHelpSaysHowToNameACell() throws {
        let big = gameModel(size: try BoardSize(rows: 15, cols: 15, k: 5))
        #expect(screen(big).last?.contains("c7 or Enter play") == true)
        #expect(screen(gameModel()).last?.contains("1-9 or Enter play") == true)
        #expect(screen(big, 40, 14).last == "  c7 or Enter play  r resign  q quit") // resign before lobby
    }

    @Test(arguments: [40, 30, 20]) func keyHelpKeepsQuitAtEveryWidth(width: Int) throws {
        for m in [gameModel(size: try BoardSize(rows: 15, cols: 15, k: 5)), gameModel(), FullScreenModel(color: false)] {
            #expect(screen(m, width, 14).last?.contains("q quit") == true)
        }
    }

    @Test func betweenGamesKeyHelpGivesTheKeysThatWorkThen() {
        var over = gameModel()
        over.apply(.game(.gameOver(result: .won, line: [0, 1, 2], resigned: false), opponent: bobOpponent))
        #expect(screen(over).last == "  n new game now  l lobby  ? help  q quit")
    }

    @Test func rAsksThenResigns() {
        var m = gameModel()
        #expect(m.key(.char("r")) == nil)
        #expect(screen(m).contains { $0.contains("Resign this game? r or y: yes") })
        #expect(m.key(.char("r")) == .resign)
    }

    @Test func nAsksThenStartsANewGame() {
        var m = gameModel()
        #expect(m.key(.char("n")) == nil)
        #expect(screen(m).contains { $0.contains("Give up this game and start a new one?") })
        #expect(m.key(.char("n")) == .new)
    }

    @Test func inTheLobbyRAndNDoNothing() {
        var lobby = FullScreenModel(color: false)
        #expect(lobby.key(.char("r")) == nil)
        #expect(lobby.key(.char("n")) == nil)
    }

    @Test func nAtTheResignQuestionPlaysOn() {
        var m = gameModel()
        _ = m.key(.char("r"))
        #expect(m.key(.char("n")) == nil)
        #expect(m.confirm == nil)
        #expect(screen(m).contains { $0.contains("Not resigned: play on") })
    }

    @Test func escapeAtTheResignQuestionPlaysOn() {
        var m = gameModel()
        _ = m.key(.char("r"))
        #expect(m.key(.escape) == nil)
        #expect(m.confirm == nil)
    }

    @Test func yAtTheResignQuestionResigns() {
        var m = gameModel()
        _ = m.key(.char("r"))
        #expect(m.key(.char("y")) == .resign)
    }

    @Test func notResignedDoesNotStayUnderTheGameResignedAfterIt() {
        var m = gameModel()
        _ = m.key(.char("r"))
        _ = m.key(.char("n"))
        m.apply(.game(.gameOver(result: .lost, line: nil, resigned: true), opponent: bobOpponent))
        #expect(!screen(m).contains { $0.contains("Not resigned") })
    }

    @Test func theRollsGoWhenTheGameEndsBeforeAnyMove() {
        var r = FullScreenModel(color: false, unicode: true)
        r.apply(.game(.rolls(yours: 5, theirs: 3, moveTime: 120), opponent: bobOpponent))
        r.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        #expect(screen(r).contains { $0.contains("You rolled 5") })
        r.apply(.game(.gameOver(result: .won, line: nil, resigned: true), opponent: bobOpponent))
        #expect(!screen(r).contains { $0.contains("You rolled 5") })
    }

    @Test func aGameGivenUpForANewOneIsSaidInTheNext() {
        var n = gameModel()
        _ = n.key(.char("n"))
        #expect(n.key(.char("y")) == .new)
        n.apply(.game(.gameOver(result: .lost, line: nil, resigned: true), opponent: bobOpponent))
        n.apply(.game(.gameStarted(piece: .x, first: false, size: .classic), opponent: bobOpponent))
        #expect(screen(n).contains { $0.contains("You gave up the last game: it counts as a loss") })
    }

    @Test func onceAGameIsOverNStartsTheNextAndRHasNothingToResign() {
        var over = gameModel()
        over.apply(.game(.gameOver(result: .won, line: [0, 4, 8], resigned: false), opponent: bobOpponent))
        #expect(over.key(.char("r")) == nil)
        #expect(over.confirm == nil)
        #expect(over.key(.char("n")) == .new)
    }

    @Test func theRematchCountsDown() {
        var m = gameModel()
        m.apply(.game(.gameOver(result: .draw, line: nil, resigned: false), opponent: bobOpponent))
        #expect(screen(m).contains { $0.contains("Cat Wins!") })
        #expect(screen(m).contains { $0.contains("New game in 3…  n: now  l: lobby") })
        m.tick()
        #expect(screen(m).contains { $0.contains("New game in 2…") })
        m.tick(); m.tick(); m.tick()
        #expect(screen(m).contains { $0.contains("New game starting…") })
        m.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        #expect(!screen(m).contains { $0.contains("New game") })
    }

    @Test func aLocalRematchOffersNoLobby() {
        var local = FullScreenModel(color: false, unicode: false)
        local.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        local.apply(.game(.gameOver(result: .won, line: [0, 1, 2], resigned: false), opponent: bobOpponent))
        #expect(local.lines(width: 80, height: 24).contains { $0.contains("New game in 3...  n: now") && !$0.contains("lobby") })
    }

    @Test func noAnswerGoesWhenANewPromptComes() {
        let ann = peer("ann", 3)
        var m = FullScreenModel(color: false)
        m.apply(.peerFound(ann))
        m.apply(.peerFound(bob))
        m.apply(.inviteSent(to: ann))
        m.apply(.declined(by: ann, reason: .noAnswer))
        #expect(screen(m).contains { $0.contains("No answer from ann") })
        m.apply(.invited(by: bob, size: .classic))
        #expect(!screen(m).contains { $0.contains("No answer from ann") })
    }

    @Test func peerDisconnectedStaysWhileThePeerIsLostAndGoesWhenItIsBack() {
        var m = FullScreenModel(color: false)
        m.apply(.peerFound(bob))
        m.apply(.disconnected(bob, reason: "connection reset by peer"))
        #expect(screen(m).contains { $0.contains("Peer Disconnected!") })
        #expect(screen(m).contains { $0.hasSuffix("bob: connection reset by peer") }) // said once, plainly
        m.apply(.peerLost(bob, reason: "connection reset by peer"))
        // A peer that quits mid-game is lost right after: the alert stays, it says why.
        #expect(screen(m).contains { $0.contains("Peer Disconnected!") })
        m.apply(.peerFound(bob))
        #expect(!screen(m).contains { $0.contains("Peer Disconnected!") })
    }

    @Test func aDeclineGoesWhenThePeerHasQuit() {
        let ann = peer("ann", 3)
        var m = FullScreenModel(color: false)
        m.apply(.peerFound(ann))
        m.apply(.inviteSent(to: ann))
        m.apply(.declined(by: ann, reason: .declined))
        #expect(screen(m).contains { $0.contains("ann declined") })
        m.apply(.peerLost(ann, reason: "ann left"))
        #expect(!screen(m).contains { $0.contains("ann declined") })
    }

    @Test func theTurnIsSaid() {
        var m = gameModel()
        #expect(m.statusText == "Your Turn")
        #expect(screen(m).contains { $0 == "  Your Turn" })
        #expect(screen(m).contains { $0.contains("You: O") && $0.contains("Opponent: bob X") })
        m.apply(.game(.opponentTurn, opponent: bobOpponent))
        #expect(m.statusText == "Opponent's Turn")
    }

    @Test func aWinIsSaidWithTheScore() throws {
        var m = gameModel()
        m.apply(.game(.board(try board(o: [0, 1, 2], x: [4, 5])), opponent: bobOpponent))
        m.apply(.game(.gameOver(result: .won, line: [0, 1, 2], resigned: false), opponent: bobOpponent))
        m.apply(.game(.score(Score(won: 1, lost: 0, drawn: 0)), opponent: bobOpponent))
        #expect(m.statusText == "You Won!")
        let won = screen(m)
        #expect(won.contains { $0.contains("You Won!") })
        #expect(won.contains { $0.contains("Score: won 1  lost 0  drawn 0") })
    }

    @Test func aLossIsSaidInTheBooksWords() {
        var m = gameModel()
        m.apply(.game(.gameOver(result: .lost, line: [2, 4, 6], resigned: false), opponent: bobOpponent))
        #expect(m.statusText == "Opponent Won!")
        #expect(screen(m).contains { $0.contains("Opponent Won!") })
    }

    @Test func aDrawIsSaidInTheBooksWords() {
        var m = gameModel()
        m.apply(.game(.gameOver(result: .draw, line: nil, resigned: false), opponent: bobOpponent))
        #expect(m.statusText == "Cat Wins! (a draw)")
        #expect(screen(m).contains { $0.contains("Cat Wins!") })
    }

    @Test func aGameWeResignedIsTheOpponentsWin() {
        var m = gameModel()
        m.apply(.game(.gameOver(result: .lost, line: nil, resigned: true), opponent: bobOpponent))
        #expect(m.statusText?.hasPrefix("Opponent Won!") == true)
    }

    @Test func theNextGameRollsAndKeepsTheScore() {
        var m = gameModel()
        m.apply(.game(.gameOver(result: .won, line: nil, resigned: false), opponent: bobOpponent))
        m.apply(.game(.score(Score(won: 1, lost: 0, drawn: 0)), opponent: bobOpponent))
        #expect(m.key(.char("n")) == .new)
        #expect(m.statusText == "Rolling dice…")
        m.apply(.game(.rolls(yours: 12, theirs: 345, moveTime: 120), opponent: bobOpponent))
        m.apply(.game(.gameStarted(piece: .x, first: false, size: .classic), opponent: bobOpponent))
        #expect(m.statusText == "Opponent's Turn")
        #expect(m.score.won == 1) // same opponent: the score stays
        #expect(screen(m).contains { $0.contains("You rolled 12, bob rolled 345; 120 s per move") })
    }

    @Test func aClockThatRanOutIsSaidBeforeTheGameOver() {
        var m = gameModel()
        m.apply(.game(.timeUp(yours: true, clock: .move), opponent: bobOpponent))
        m.apply(.game(.gameOver(result: .lost, line: nil, resigned: true), opponent: bobOpponent))
        #expect(screen(m).contains { $0.contains("Time's up: you did not move in time") })
        #expect(m.statusText?.hasPrefix("Opponent Won!") == true)
    }

    @Test func boardShowsPiecesNumbersAndCursor() throws {
        var m = gameModel()
        m.apply(.game(.board(try board(o: [0], x: [8])), opponent: bobOpponent))
        let text = screen(m).joined(separator: "\n")
        #expect(text.contains("O"))
        #expect(text.contains("X"))
        #expect(text.contains("[5]")) // the cursor on the empty centre
        for n in [2, 3, 4, 6, 7, 8] { #expect(text.contains(" \(n) ")) }
        #expect(!text.contains(" 1 ") && !text.contains(" 9 "))
    }

    @Test(arguments: [true, false]) func aWinningLineIsHighlightedOnlyWithColor(color: Bool) throws {
        var m = gameModel(color: color)
        m.apply(.game(.board(try board(o: [0, 4, 8], x: [1, 2])), opponent: bobOpponent))
        m.apply(.game(.gameOver(result: .won, line: [0, 4, 8], resigned: false), opponent: bobOpponent))
        let raw = m.lines(width: 80, height: 24).joined()
        #expect(raw.contains("\u{1B}[1;30;42mO") == color)
        #expect(raw.contains("\u{1B}[1;36m") == color) // O in its colour
        #expect(raw.contains("\u{1B}[1;33mX") == color) // X in another
        #expect(raw.contains("\u{1B}[2m") == color) // dim help and numbers
    }

    @Test func aLineThatBeatUsIsRedNotGreen() throws {
        var lost = gameModel(color: true)
        lost.apply(.game(.board(try board(o: [1, 2], x: [0, 4, 8])), opponent: bobOpponent))
        lost.apply(.game(.gameOver(result: .lost, line: [0, 4, 8], resigned: false), opponent: bobOpponent))
        let raw = lost.lines(width: 80, height: 24).joined()
        #expect(!raw.contains("\u{1B}[1;30;42m"))
        #expect(raw.contains("\u{1B}[1;37;41mX"))
    }

    @Test func errorKeepsTheGame() {
        var m = gameModel()
        m.apply(.error(code: "illegal-move", message: "cell 5 is already taken"))
        #expect(m.game != nil)
        #expect(m.statusText == "Your Turn")
        #expect(screen(m).contains { $0.contains("cell 5 is already taken") })
    }

    @Test func disconnectedReturnsToLobbyWithAlert() {
        var m = gameModel()
        m.apply(.disconnected(bob, reason: "no answer for 5 seconds"))
        #expect(m.game == nil)
        let lines = screen(m)
        #expect(lines.contains { $0.contains("Available Peers") })
        #expect(lines.contains { $0.contains("Peer Disconnected!") })
        // Said once, plainly: the reason, not the seed's sentence with the reason in brackets.
        #expect(lines.contains { $0.hasSuffix("bob: no answer for 5 seconds") })
        #expect(!lines.joined(separator: " ").contains("Your opponent has disconnected"))
        #expect(m.key(.enter) == .invite(bob.id.description)) // the lobby's keys again
        expectFits(m, width: 80, height: 24)
        expectFits(m, width: 40, height: 10)
    }

    /// The daemon keeps the score per peer while it stays: a new match with the same player
    /// shows it from its first game.
    @Test func theScoreCarriesIntoANewMatchWithTheSamePeer() {
        var m = gameModel()
        m.apply(.game(.score(Score(won: 1)), opponent: bobOpponent))
        m.apply(.matchEnded(bob, byUs: true))
        m.apply(.game(.gameStarted(piece: .x, first: false, size: .classic), opponent: bobOpponent))
        #expect(m.score == Score(won: 1))
        #expect(screen(m).contains { $0.contains("won 1") })
    }

    /// A player who left and came back starts again from nothing.
    @Test func aPeerWhoLeftStartsAgainFromNothing() {
        var m = gameModel()
        m.apply(.game(.score(Score(won: 1)), opponent: bobOpponent))
        m.apply(.matchEnded(bob, byUs: true))
        m.apply(.peerLost(bob, reason: "bob left"))
        m.apply(.peerFound(bob))
        m.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        #expect(m.score == Score())
    }
}
