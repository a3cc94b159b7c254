import Testing
import TicTacAPI
@testable import TicTacTerminal
import TicTacDaemonCore
import TicTacEngine
import TicTacWire

/// An interrupted game on the full screen (Protocol.md §13): the board stays, the wait counts
/// down by the second, no move clock runs, and the game's return or end takes it away.
@Suite struct InterruptedGameScreenTests {
    @Test func theWaitCountsDownOnTheBoardAndGoesWhenThePeerIsBack() throws {
        var m = gameModel()
        m.apply(.gameInterrupted(bob, window: .seconds(600), reason: "no answer for 5.0 seconds"))
        #expect(m.game != nil, "the board stays")
        #expect(m.notice?.title == "Connection lost")
        #expect(m.notice?.text == "Connection to bob lost (no answer for 5.0 seconds): waiting for bob, 10:00 left; l adjourns, r resigns")
        #expect(m.ticking && m.game?.clockLeft == nil)
        #expect(m.statusText == "Waiting for bob", "no turn is shown while the game waits")
        m.tick()
        m.tick()
        #expect(m.notice?.text.contains("9:58 left") == true)
        m.apply(.gameResumed(bob, resigned: false))
        #expect(m.waiting == nil && !m.ticking)
        #expect(m.notice?.text == "bob is back: the game goes on")
    }

    @Test func anAdjournedGameLeavesTheBoardForTheLobby() throws {
        var m = gameModel()
        m.apply(.gameInterrupted(bob, window: .seconds(5), reason: ""))
        m.apply(.gameAdjourned(bob))
        #expect(m.game == nil && m.waiting == nil)
        #expect(m.notice?.text.hasPrefix("The game with bob is adjourned") == true)
    }

    /// Plain lines and JSON say why the link was lost, so a stop of our own is not read as the peer's.
    @Test func theLinesSayWhyTheLinkWasLost() {
        let ben = PeerInfo(id: ID128(high: 7, low: 7), name: "bob", address: "198.18.0.2", port: 1, capabilities: [.tictactoe])
        let why = "this program was stopped for 9.0 s and the link did not survive it"
        let event = DaemonEvent.gameInterrupted(ben, window: .seconds(600), reason: why)
        #expect(OutputFormatter(style: .text).lines(for: event)
                == ["Connection to bob lost (\(why)): waiting for bob, 10:00 left; lobby adjourns the game, resign gives it up"])
        #expect(OutputFormatter(style: .json).lines(for: event).joined().contains(#""seconds":600,"reason":"this program was stopped"#))
    }
}

/// Keys while the game waits for its peer (issue: "l adjourns" asked "Give this game up", and a
/// cell pressed said "no game in progress" in place of the countdown).
@Suite struct WaitingKeysTests {
    @Test func lAdjournsWithoutAskingAndACellKeepsTheCountdown() throws {
        var m = gameModel()
        m.apply(.gameInterrupted(bob, window: .seconds(600), reason: "no answer for 5.0 seconds"))
        let waitingText = m.notice?.text
        #expect(m.key(.char("5")) == nil, "no move is sent while the game waits")
        #expect(m.notice?.text == waitingText && m.notice?.title == "Connection lost", "the countdown stays")
        m.notice = FullScreenModel.Notice(text: "someone watches", tone: .info)
        #expect(m.key(.enter) == nil)
        #expect(m.notice?.title == "Connection lost", "a key brings the countdown and its keys back")
        #expect(m.key(.char("l")) == .lobby, "l adjourns: nothing is given away, so nothing is asked")
        #expect(m.confirm == nil)
    }

    @Test func rStillAsksBeforeResigning() throws {
        var m = gameModel()
        m.apply(.gameInterrupted(bob, window: .seconds(600), reason: ""))
        #expect(m.key(.char("r")) == nil)
        #expect(m.confirm == .resign)
        #expect(m.key(.char("y")) == .resign)
    }
}

/// What stays in the shell after `q` (issue: nothing said the game was adjourned or how to get it back).
@Suite struct FarewellTests {
    @Test func quittingAGameInPlayLeavesALineAboutItsAdjournment() throws {
        var m = gameModel()
        #expect(m.farewell == "You left your game with bob: it counts as a loss (its tictac keeps no games).", "bob keeps no games")
        var keeper = bob
        keeper.capabilities.insert(.resume)
        m.apply(.peerUpdated(keeper))
        #expect(m.farewell == "Your game with bob is adjourned: it goes on the next time you both run tictac play (tictac history lists it).")
        m.apply(.gameInterrupted(bob, window: .seconds(600), reason: ""))
        #expect(m.farewell != nil, "a game waiting for its peer is adjourned too")
        m.apply(.game(.gameOver(result: .won, line: [0, 1, 2], resigned: false), opponent: bobOpponent))
        #expect(m.farewell == nil, "a finished game leaves nothing to take up")
        var lobby = FullScreenModel(color: false)
        lobby.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        #expect(lobby.farewell == nil)
    }

    /// A front of `tictac daemon` leaves nothing behind: q asks nothing, and says where the game is.
    @Test func anAttachedFrontLeavesTheGameToItsDaemon() throws {
        var m = gameModel()
        m.attached = true
        m.apply(.game(.yourTurn, opponent: bobOpponent))
        #expect(m.key(.char("q")) == .quit && m.confirm == nil, "quitting ends nothing: nothing to ask")
        #expect(m.farewell == "Your game with bob goes on in tictac daemon, your clock running: tictac play takes it up.")
        m.apply(.game(.opponentTurn, opponent: bobOpponent))
        #expect(m.farewell == nil, "bob is thinking: nothing to say")
        m.daemonStopped = true
        #expect(m.farewell == "tictac daemon stopped: your game with bob is adjourned until it runs again")
        var lobby = FullScreenModel(color: false)
        lobby.attached = true
        lobby.daemonStopped = true
        lobby.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        #expect(lobby.farewell == "tictac daemon stopped (tictac daemon starts it again)")
    }
}

/// A resumed game says so over its board (issue: after a restart, or from the lobby, the screen
/// only said "Your Turn").
@Suite struct ResumedNoticeTests {
    @Test func aResumedGameSaysItGoesOnOverItsBoard() throws {
        var m = FullScreenModel(color: false)
        m.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        m.apply(.peerFound(bob))
        m.apply(.gameResumed(bob, resigned: false)) // after a restart: no game was on screen
        m.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        m.apply(.game(.yourTurn, opponent: bobOpponent))
        #expect(m.notice?.text == "bob is back: the game goes on")
        #expect(m.statusText?.hasPrefix("Your Turn") == true)
        // The next game's start says nothing of it.
        m.apply(.game(.gameOver(result: .won, line: [0, 1, 2], resigned: false), opponent: bobOpponent))
        m.apply(.game(.gameStarted(piece: .x, first: false, size: .classic), opponent: bobOpponent))
        #expect(m.notice?.text != "bob is back: the game goes on")
    }
}
