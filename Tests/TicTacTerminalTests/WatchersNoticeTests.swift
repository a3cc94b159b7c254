import TicTacAPI
import Testing
import TicTacDaemonCore
@testable import TicTacTerminal
import TicTacWire

/// How many watch our games is said with the way this front refuses them: the `w` key on the
/// full screen, the `spectators off` command in plain mode.
@Suite struct WatchersNoticeTests {
    @Test func eachFrontNamesItsOwnWay() {
        var m = FullScreenModel(color: false)
        m.apply(.ready(name: "ann", id: ID128(high: 1, low: 1), port: 50000))
        m.apply(DaemonEvent.watchers(2))
        #expect(m.notice?.text == "2 watching your games (w in the lobby refuses watchers)")
        #expect(OutputFormatter(style: .text).lines(for: DaemonEvent.watchers(1))
                == ["1 watching your games (spectators off refuses watchers)"])
        #expect(OutputFormatter(style: .json).lines(for: DaemonEvent.watchers(0))
                == [#"{"event":"notice","message":"Nobody watches your games now","watchers":0}"#])
    }

    /// A watcher's coming hides no lasting state (issue: it replaced the lost-connection countdown
    /// and its keys): the count is on the score line, the countdown keeps its place.
    @Test func theCountGoesOnTheScoreLineAndTheCountdownStays() {
        var m = gameModel()
        m.apply(.gameInterrupted(bob, window: .seconds(600), reason: ""))
        m.apply(DaemonEvent.watchers(2))
        #expect(m.notice?.title == "Connection lost", "the countdown and its keys stay")
        #expect(m.lines(width: 80, height: 24).contains { $0.contains("2 watching") }, "the score line counts them")
        m.apply(.gameResumed(bob, resigned: false))
        m.apply(DaemonEvent.watchers(1))
        #expect(m.notice?.text == "bob is back: the game goes on", "a notice about the game is not replaced either")
    }
}
