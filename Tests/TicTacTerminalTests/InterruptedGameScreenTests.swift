import Testing
@testable import TicTacTerminal
import TicTacEngine
import TicTacWire

/// An interrupted game on the full screen (Protocol.md §13): the board stays, the wait counts
/// down by the second, no move clock runs, and the game's return or end takes it away.
@Suite struct InterruptedGameScreenTests {
    @Test func theWaitCountsDownOnTheBoardAndGoesWhenThePeerIsBack() throws {
        var m = gameModel()
        m.apply(.gameInterrupted(bob, seconds: 600))
        #expect(m.game != nil, "the board stays")
        #expect(m.notice?.title == "Connection lost")
        #expect(m.notice?.text == "Connection to bob lost: waiting for bob, 10:00 left; l adjourns, r resigns")
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
        m.apply(.gameInterrupted(bob, seconds: 5))
        m.apply(.gameAdjourned(bob))
        #expect(m.game == nil && m.waiting == nil)
        #expect(m.notice?.text.hasPrefix("The game with bob is adjourned") == true)
    }
}
