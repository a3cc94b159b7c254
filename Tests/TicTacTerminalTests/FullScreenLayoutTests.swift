import TicTacAPI
import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
@testable import TicTacTerminal
import TicTacTime

/// The full screen's rendered lines at every window size: what fits, what is clipped, what is safe.
@Suite struct FullScreenLayoutTests {
    @Test func lobbyWithThirtyPeersFits() throws {
        var m = FullScreenModel(color: true)
        m.apply(.ready(name: String(repeating: "long name ", count: 6), id: ID128(high: 1, low: 1), port: 50123))
        m.addresses = ["192.168.1.10", "2001:db8::1234:5678:9abc:def0"]
        for i in 0..<30 {
            m.apply(.peerFound(peer("player \(String(UnicodeScalar(UInt8(90 - i % 26))))\(i) " + String(repeating: "x", count: i * 2), UInt64(i + 10), bot: i % 3 == 0)))
        }
        #expect(m.peers.count == 30)
        let names = m.peers.map { $0.name.lowercased() }
        #expect(names == names.sorted())
        m.apply(.invited(by: m.peers[3], size: try BoardSize(rows: 9, cols: 9, k: 5)))
        m.apply(.error(code: "x", message: String(repeating: "a very long error message ", count: 10)))
        expectFits(m, width: 80, height: 24)
        #expect(m.lines(width: 80, height: 24).count == 24)
        // The selection scrolls into view.
        for _ in 0..<29 { _ = m.key(.down) }
        let last = m.peers[29].name
        #expect(screen(m).contains { $0.contains(String(last.prefix(20))) })
        expectFits(m, width: 80, height: 24)
        for (w, h) in [(1, 1), (2, 3), (10, 5), (20, 8), (200, 60)] { expectFits(m, width: w, height: h) }
        // Our own address, as a friend types it after a, on its own line (also at 40 columns).
        #expect(screen(m, 40, 14)[1] == "  Address: 192.168.1.10:50123  +1 more")
        #expect(screen(m, 120, 24)[1].hasSuffix("[2001:db8::1234:5678:9abc:def0]:50123"))
        #expect(m.lines(width: 0, height: 24).isEmpty)
        #expect(m.lines(width: 80, height: -1).isEmpty)
    }

    @Test func bigBoardsDrawWhatFits() throws {
        for (rows, cols) in [(15, 15), (20, 20), (3, 20), (20, 3), (4, 4), (5, 5)] {
            var m = gameModel(size: try BoardSize(rows: rows, cols: cols, k: 3), color: true)
            m.apply(.game(.board(try board(try BoardSize(rows: rows, cols: cols, k: 3), o: [0, cols + 1], x: [rows * cols - 1])), opponent: bobOpponent))
            m.apply(.error(code: "x", message: "cell 1 is already taken"))
            expectFits(m, width: 80, height: 24)
            for (w, h) in [(1, 1), (10, 5), (30, 12), (120, 50)] { expectFits(m, width: w, height: h) }
            // The cursor stays on screen wherever it goes.
            for _ in 0..<25 { _ = m.key(.down); _ = m.key(.right) }
            #expect(m.cursor == rows * cols - 1)
            #expect(screen(m).contains { $0.contains("[X]") })
            expectFits(m, width: 80, height: 24)
        }
        // 15 x 15 and 20 x 20 both show lettered columns and numbered rows (CellName), not numbers
        // on one and dots on the other.
        for n in [15, 20] {
            let m = gameModel(size: try BoardSize(rows: n, cols: n, k: 5))
            let lines = screen(m)
            #expect(lines.contains { $0.contains(" a  b  c  d ") }, "\(n)")
            #expect(lines.contains { $0.hasPrefix("   1 ") || $0.hasPrefix("  10 ") || $0.contains(" 9  · ") }, "\(n)")
            #expect(lines.contains { $0.contains("[·]") }, "\(n)") // the cursor
            #expect(!lines.contains { $0.contains("[113]") })
            #expect(lines.contains { $0.contains("Your Turn") })
        }
    }

    /// A game as it starts: the rolls are the notice under the status.
    private func startedGame(rows: Int, cols: Int) throws -> FullScreenModel {
        var m = FullScreenModel(color: false, unicode: true)
        m.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        m.apply(.game(.rolls(yours: 773028, theirs: 385698, moveTime: 120), opponent: bobOpponent))
        m.apply(.game(.gameStarted(piece: .o, first: true, size: try BoardSize(rows: rows, cols: cols, k: 3)), opponent: bobOpponent))
        m.apply(.game(.yourTurn, opponent: bobOpponent))
        return m
    }

    /// The board rows on screen: lines whose first word is a row number followed by cells.
    private func boardRowNumbers(_ lines: [String]) -> [Int] {
        lines.compactMap { line in
            let words = line.split(separator: " ")
            guard words.count > 1, words[1].contains("·") || words[1].contains("O") || words[1].contains("X") else { return nil }
            return Int(words[0])
        }
    }

    /// The screen's text as words separated by single blanks (wrapped lines joined).
    private func words(_ lines: [String]) -> String {
        lines.flatMap { $0.split(separator: " ") }.joined(separator: " ")
    }

    @Test func everyBoardThatFitsAt40By14ShowsAllItsRows() throws {
        // 2 + 3 columns a cell + the row labels fit 11 columns in 40; the column letters, 11
        // rows, the status and the key help fit 14 lines.
        for rows in 4...11 {
            for cols in [3, 4, 7, 11] {
                let m = try startedGame(rows: rows, cols: cols)
                expectFits(m, width: 40, height: 14)
                let lines = screen(m, 40, 14)
                #expect(lines.count == 14)
                #expect(boardRowNumbers(lines) == Array(1...rows), "\(rows)x\(cols): \(lines)")
                #expect(lines.contains { $0.contains(" a  b  c") }, "\(rows)x\(cols)")
                #expect(lines.contains { $0 == "  Your Turn · 2:00" }, "\(rows)x\(cols)")
                #expect(lines[13].hasSuffix("q quit"), "\(rows)x\(cols)")
                #expect(!lines.contains { $0.contains("enlarge") })
            }
        }
        // A confirmation's line on 11 x 11 costs the column letters, not rows.
        var confirming = try startedGame(rows: 11, cols: 11)
        _ = confirming.key(.char("r"))
        let asking = screen(confirming, 40, 14)
        #expect(boardRowNumbers(asking) == Array(1...11), "\(asking)")
        #expect(asking.contains { $0 == "  Resign this game? r/y: yes, other: no" }, "\(asking)")
        // Both questions fit 40 columns whole; 80 keeps the long wording.
        #expect(screen(confirming).contains { $0 == "  Resign this game? r or y: yes, any other key: no" })
        var renewing = try startedGame(rows: 7, cols: 7)
        _ = renewing.key(.char("n"))
        #expect(screen(renewing, 40, 14).contains { $0 == "  Give up, new game? n/y: yes, other: no" })
        #expect(!asking.contains { $0.contains(" a  b  c") })
        // 7 x 7 leaves room for the pieces line, the score and the start of the notice.
        let seven = screen(try startedGame(rows: 7, cols: 7), 40, 14)
        #expect(seven[0].hasPrefix(" tictac"))
        #expect(seven.contains { $0 == "  You: O  bob: X  7x7, 3 in a row" }, "\(seven)") // the short form
        #expect(screen(try startedGame(rows: 7, cols: 7)).contains { $0 == "  You: O    Opponent: bob X    7x7, 3 in a row" })
        // A long name is clipped in the short form, so that the goal still shows whole.
        var longName = FullScreenModel(color: false, unicode: true)
        let bot = PeerInfo(id: bob.id, name: "bot (perfect)")
        longName.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bot))
        longName.apply(.game(.yourTurn, opponent: bot))
        #expect(screen(longName, 40, 14).contains { $0 == "  You: O  bot (perf…: X  3x3, 3 in a row" }, "\(screen(longName, 40, 14))")
        #expect(screen(longName).contains { $0 == "  You: O    Opponent: bot (perfect) X    3x3, 3 in a row" })
        #expect(seven.contains { $0.hasPrefix("  Score: won 0") })
        #expect(seven.contains { $0.hasPrefix("  You rolled 773028") })
        // 3 x 3 at 40 x 14: all nine numbered cells, as one line per row.
        let classic = screen(try startedGame(rows: 3, cols: 3), 40, 14)
        for row in ["1  2  3", "4 [5] 6", "7  8  9"] { #expect(classic.contains { $0.contains(row) }, "\(classic)") }
    }

    @Test func aBoardThatCannotFitSaysHowLargeAWindowItNeeds() throws {
        // 12 columns need 41 columns; 12 rows need 16 lines (letters, rows, pieces, status, help).
        let m = try startedGame(rows: 12, cols: 12)
        let lines = screen(m, 40, 14)
        expectFits(m, width: 40, height: 14)
        #expect(boardRowNumbers(lines).isEmpty, "\(lines)")
        #expect(words(lines).contains("enlarge the window to 41 x 16"), "\(lines)")
        #expect(lines.contains { $0 == "  Your Turn · 2:00" })
        #expect(lines[13].hasSuffix("q quit"))
        // At the size it names, the whole board shows.
        #expect(boardRowNumbers(screen(m, 41, 16)) == Array(1...12))
        // 20 x 20 fits 80 x 24 whole (the title goes); 15 x 15 at 40 x 14 asks for more.
        let twenty = screen(try startedGame(rows: 20, cols: 20), 80, 24)
        #expect(boardRowNumbers(twenty) == Array(1...20), "\(twenty)")
        #expect(twenty.contains { $0.hasPrefix("  You: O") })
        let fifteen = words(screen(try startedGame(rows: 15, cols: 15), 40, 14))
        #expect(fifteen.contains("enlarge the window to 50 x 19"), "\(fifteen)")
    }

    @Test func at80By24TheScreenKeepsEverything() throws {
        // 3 x 3 in big cells with the title, score, spacers and the whole notice, as before.
        let classic = screen(try startedGame(rows: 3, cols: 3))
        #expect(classic[0].hasPrefix(" tictac"))
        #expect(classic[2].hasPrefix("  Score: won 0"))
        #expect(classic[3].isEmpty)
        #expect(classic[4].contains("│"))
        #expect(classic[5].contains("1  │  2  │  3"))
        #expect(classic[16] == "  Your Turn · 2:00")
        #expect(classic[17] == "  You rolled 773028, bob rolled 385698; 120 s per move")
        #expect(classic[23].hasSuffix("q quit"))
        // 7 x 7: the board under a blank line, a blank line, the status, the notice.
        let seven = screen(try startedGame(rows: 7, cols: 7))
        #expect(seven[3].isEmpty)
        #expect(boardRowNumbers(seven) == Array(1...7))
        #expect(seven[12].isEmpty)
        #expect(seven[13] == "  Your Turn · 2:00")
        #expect(seven[14].hasPrefix("  You rolled 773028"))
    }

    @Test func aLongNoticeIsShownWholeWhereThereIsRoomAndTheBoardKeepsItsSize() throws {
        let text = "DNS-SD unavailable: avahi-daemon is not running; using broadcast discovery only"
        // The lobby at 40 x 14 with one peer: three lines, nothing cut.
        var lobby = FullScreenModel(color: false, unicode: true)
        lobby.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        lobby.apply(.peerFound(bob))
        lobby.apply(.notice(text))
        let lines = screen(lobby, 40, 14)
        expectFits(lobby, width: 40, height: 14)
        #expect(words(lines).contains(text), "\(lines)")
        #expect(lines.contains { $0.contains("bob") } && lines[13].hasSuffix("q quit"))
        // A game at 80 x 24: 3 x 3 stays in big cells under a four-line notice.
        var game = try startedGame(rows: 3, cols: 3)
        let long = Array(repeating: text, count: 3).joined(separator: "; ")
        game.apply(.notice(long))
        let big = screen(game)
        expectFits(game, width: 80, height: 24)
        #expect(big.contains { $0.contains("1  │  2  │  3") }, "\(big)")
        #expect(big.filter { $0.contains("DNS-SD") || $0.contains("broadcast") }.count >= 3, "\(big)")
    }

    @Test func asciiFallback() {
        var m = gameModel()
        m.unicode = false
        m.apply(.game(.gameOver(result: .won, line: nil, resigned: false), opponent: bobOpponent))
        #expect(m.key(.char("n")) == .new)
        #expect(m.statusText == "Rolling dice...")
        let text = screen(m).joined()
        #expect(text.allSatisfy { $0.isASCII })
    }

    @Test func namesFromTheNetworkAreClippedAndSafe() {
        var m = FullScreenModel(color: false)
        let wide = peer(String(repeating: "名", count: 60), 5)
        m.apply(.peerFound(wide))
        m.apply(.error(code: "x", message: "bad\u{1B}[2Jdata"))
        expectFits(m, width: 80, height: 24)
        #expect(!m.lines(width: 80, height: 24).joined().contains("\u{1B}[2J"))
    }
}
