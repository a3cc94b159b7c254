import Testing
import TicTacAPI
import TicTacDaemonCore
@testable import TicTacTerminal
import TicTacWire

/// A bot that names its program (HELLO field 9, ANNOUNCE field 13) is shown as
/// "(bot: pbrain-tiny 1.0)" in the full-screen lobby, in plain lines and in JSON.
@Suite struct ProgramLabelTests {
    let engine = PeerInfo(id: ID128(high: 2, low: 2), name: "gomoku", address: "198.18.0.1", port: 41237,
                          capabilities: [.tictactoe, .bot], program: "pbrain-tiny 1.0")
    let builtin = PeerInfo(id: ID128(high: 3, low: 3), name: "botty", address: "198.18.0.3", port: 41238,
                           capabilities: [.tictactoe, .bot])

    @Test func theFullScreenLobbySaysWhichProgramPlays() {
        var m = FullScreenModel(color: false)
        m.apply(.ready(name: "ann", id: ID128(high: 1, low: 1), port: 37997))
        m.apply(.peerFound(engine))
        m.apply(.peerFound(builtin))
        let lines = screen(m, 80, 14)
        #expect(lines.contains { $0.contains("gomoku") && $0.contains("198.18.0.1  (bot: pbrain-tiny 1.0)") }, "\(lines)")
        #expect(lines.contains { $0.contains("botty") && $0.hasSuffix("198.18.0.3  (bot)") }, "\(lines)")
        // Narrow: the address goes before the program's name does.
        let narrow = screen(m, 40, 14)
        #expect(narrow.contains { $0.contains("gomoku") && $0.contains("(bot: pbrain") && !$0.contains("198.18.0.1") }, "\(narrow)")
    }

    @Test func plainAndJSONLinesCarryTheProgram() throws {
        let text = OutputFormatter(style: .text).lines(for: .peerFound(engine))
        #expect(text == ["Peer found: gomoku (00000000) at 198.18.0.1, idle; bot: pbrain-tiny 1.0"])
        #expect(OutputFormatter(style: .text).lines(for: .peerFound(builtin)) == ["Peer found: botty (00000000) at 198.18.0.3, idle"])
        let json = OutputFormatter(style: .json).lines(for: .peerFound(engine)).joined()
        #expect(json.contains(#""program":"pbrain-tiny 1.0""#), "\(json)")
        #expect(OutputFormatter(style: .json).lines(for: .peerFound(builtin)).joined().contains(#""program":null"#))
    }

    /// `tictac watch` lists the games with what plays in them.
    @Test func theWatchListSaysWhichProgramPlays() throws {
        let ann = WatchPlayer(id: ID128(high: 4, low: 4), name: try DisplayName("ann"))
        let games = [(server: engine, game: ListedGame(opponent: ann, rows: 15, cols: 15, k: 5, moves: 12)),
                     (server: builtin, game: ListedGame(opponent: ann, rows: 3, cols: 3, k: 3, moves: 2))]
        #expect(WatchFormatter(json: false).list(games) == ["gomoku (bot: pbrain-tiny 1.0) vs ann: 15 x 15, 5 in a row, 12 moves",
                                                            "botty (bot) vs ann: 3 x 3, 3 in a row, 2 moves"])
        let json = WatchFormatter(json: true).list(games).joined()
        #expect(json.contains(#""name":"gomoku","program":"pbrain-tiny 1.0""#), "\(json)")
    }
}
