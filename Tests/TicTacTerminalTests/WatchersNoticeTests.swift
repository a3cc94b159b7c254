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
        m.apply(OutputEvent(.watchers(2)))
        #expect(m.notice?.text == "2 watching your games (w in the lobby refuses watchers)")
        #expect(OutputFormatter(style: .text).lines(for: OutputEvent(.watchers(1)))
                == ["1 watching your games (spectators off refuses watchers)"])
        #expect(OutputFormatter(style: .json).lines(for: OutputEvent(.watchers(0)))
                == [#"{"event":"notice","message":"Nobody watches your games now"}"#])
    }
}
