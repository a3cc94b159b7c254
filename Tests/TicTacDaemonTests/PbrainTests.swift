import Testing
import TicTacDaemonCore
import TicTacEngine
import TicTacPbrain

/// The Gomocup protocol's manager side, without processes: the codec, coordinates, the session
/// and the start-up probe.
struct PbrainTests {
    let gomoku = try! BoardSize(rows: 15, cols: 15, k: 5)
    /// 5 rows of 7 columns: x runs to 6, y to 4.
    let wide = try! BoardSize(rows: 5, cols: 7, k: 5)

    // MARK: Coordinates and the codec

    @Test func coordinatesAreColumnThenRowBothWays() throws {
        #expect(PbrainGrid.coordinates(of: 0, on: gomoku) == (0, 0))
        #expect(PbrainGrid.coordinates(of: 14, on: gomoku) == (14, 0)) // the top row's last cell
        #expect(PbrainGrid.coordinates(of: 15, on: gomoku) == (0, 1))
        #expect(PbrainGrid.coordinates(of: 17, on: wide) == (3, 2)) // row 2, column 3
        #expect(PbrainGrid.cell(x: 3, y: 2, on: wide) == 17)
        #expect(PbrainGrid.cell(x: 6, y: 4, on: wide) == 34)
        #expect(PbrainGrid.cell(x: 7, y: 0, on: wide) == nil, "x is the column: 7 is off a 7-wide board")
        #expect(PbrainGrid.cell(x: 0, y: 5, on: wide) == nil)
        for cell in 0..<wide.cellCount {
            let c = PbrainGrid.coordinates(of: cell, on: wide)
            #expect(PbrainGrid.cell(x: c.x, y: c.y, on: wide) == cell)
        }
        // c7 in the terminal's names is column c (x 2), row 7 (y 6).
        let c7 = try #require(CellName.parse("c7")?.cell(on: gomoku))
        #expect(PbrainGrid.coordinates(of: c7, on: gomoku) == (2, 6))
    }

    @Test func commandsAreUpperCaseLinesEndedWithCRLF() {
        #expect(PbrainCommand.start(gomoku).text == "START 15\r\n")
        #expect(PbrainCommand.start(wide).text == "RECTSTART 7,5\r\n", "width (columns) first")
        #expect(PbrainCommand.turn(x: 10, y: 3).text == "TURN 10,3\r\n")
        #expect(PbrainCommand.board([PbrainStone(x: 7, y: 7, who: 1), PbrainStone(x: 8, y: 7, who: 2)]).text
                == "BOARD\r\n7,7,1\r\n8,7,2\r\nDONE\r\n")
        #expect(PbrainCommand.info(key: "timeout_turn", value: "5000").text == "INFO timeout_turn 5000\r\n")
    }

    @Test func repliesAreReadInAnyCase() {
        #expect(PbrainReply.parse("OK") == .ok)
        #expect(PbrainReply.parse("ok") == .ok)
        #expect(PbrainReply.parse("ERROR unsupported size") == .error("unsupported size"))
        #expect(PbrainReply.parse("11,10") == .move(x: 11, y: 10))
        #expect(PbrainReply.parse(" 3 , 4 ") == .move(x: 3, y: 4))
        #expect(PbrainReply.parse("message thinking") == .message("thinking"))
        #expect(PbrainReply.parse("UNKNOWN command FOO") == .unknown("command FOO"))
        #expect(PbrainReply.parse("1234,1") == .other("1234,1"), "at most 3 digits")
        #expect(PbrainReply.parse("-1,2") == .other("-1,2"))
        #expect(PbrainReply.parse("1,2,3") == .other("1,2,3"))
    }

    @Test func aboutGivesNameAndVersion() {
        let line = #"name="pbrain-tiny", version="1.0", author="tictac", country="LAN""#
        #expect(PbrainAbout.fields(line)["author"] == "tictac")
        #expect(PbrainAbout.description(line) == "pbrain-tiny 1.0")
        #expect(PbrainAbout.description("Some Engine\u{7}") == "Some Engine", "no control characters")
    }

    // MARK: The session

    func turn(_ moves: [Int], ticket: UInt64 = 1, round: Int = 1, engineFirst: Bool = true,
              size: BoardSize? = nil, moveTime: Int = 10) -> EngineTurn {
        EngineTurn(link: 1, ticket: ticket, round: round, size: size ?? gomoku, moves: moves, engineFirst: engineFirst,
                   moveTime: moveTime, opponentIsBot: true)
    }

    /// The commands written, without INFO lines.
    func commands(_ outputs: [PbrainSession.Output]) -> [String] {
        outputs.compactMap { if case let .send(t) = $0 { t } else { nil } }.filter { !$0.hasPrefix("INFO") }
    }

    @Test func theFirstTurnStartsTheBoardThenBegins() {
        var s = PbrainSession(maxMemory: 1 << 20)
        s.ask(turn([]))
        #expect(commands(s.poll()) == ["START 15\r\n"])
        s.received("OK")
        let out = s.poll()
        let infos = out.compactMap { if case let .send(t) = $0, t.hasPrefix("INFO") { t } else { nil } }
        #expect(infos.contains("INFO timeout_turn 5000\r\n"), "the think time, within the 10 s clock less 2 s: \(infos)")
        #expect(infos.contains("INFO max_memory 1048576\r\n"))
        #expect(infos.contains("INFO rule 0\r\n"), "five or more wins here")
        // No match clock: Gomocup's "no limit" (timeout_match 0, time_left 2^31 - 1), not a made-up one.
        #expect(infos.contains("INFO timeout_match 0\r\n"))
        #expect(infos.contains("INFO time_left 2147483647\r\n"))
        #expect(commands(out) == ["BEGIN\r\n"])
        s.received("7,7")
        #expect(s.poll() == [.move(ticket: 1, cell: 7 * 15 + 7)])
    }

    /// The engine is told the think time, or the move clock less its margin when that is shorter.
    @Test(arguments: [(10, 3000, 3000), (10, 60_000, 8000), (0, 60_000, 30_000), (120, 5000, 5000)])
    func theEngineIsToldItsThinkTimeWithinTheClock(moveTime: Int, think: Int, told: Int) {
        var s = PbrainSession(maxMemory: 0, thinkMillis: think)
        s.ask(turn([], moveTime: moveTime))
        s.received("OK")
        let infos = s.poll().compactMap { if case let .send(t) = $0, t.hasPrefix("INFO timeout_turn") { t } else { nil } }
        #expect(infos == ["INFO timeout_turn \(told)\r\n"])
    }

    @Test func theOpponentsMoveIsSentAsTurnThenANewGameRestarts() {
        var s = PbrainSession(maxMemory: 0)
        s.ask(turn([]))
        s.received("OK")
        s.received("7,7")
        _ = s.poll()
        s.ask(turn([112, 113], ticket: 2)) // the opponent played x 8, y 7
        #expect(commands(s.poll()) == ["TURN 8,7\r\n"])
        s.received("6,7")
        #expect(s.poll() == [.move(ticket: 2, cell: 111)])
        // The next game of the match: RESTART, OK, then the opponent's first move as a BOARD.
        s.ask(turn([0], ticket: 3, round: 2, engineFirst: false))
        #expect(commands(s.poll()) == ["RESTART\r\n"])
        s.received("OK")
        #expect(commands(s.poll()) == ["BOARD\r\n0,0,2\r\nDONE\r\n"])
    }

    @Test func aResumedPositionIsSentAsABoardInTheOrderPlayed() {
        var s = PbrainSession(maxMemory: 0)
        s.ask(turn([17, 0, 34], engineFirst: false, size: wide))
        #expect(commands(s.poll()) == ["RECTSTART 7,5\r\n"])
        s.received("OK")
        #expect(commands(s.poll()) == ["BOARD\r\n3,2,2\r\n0,0,1\r\n6,4,2\r\nDONE\r\n"])
    }

    @Test(arguments: [
        ("7,7", "taken"), ("15,0", "off the 15x15 board"), ("nonsense", "where a move was due"),
    ])
    func aBadAnswerIsAFaultOfThatTurn(_ answer: String, _ why: String) {
        var s = PbrainSession(maxMemory: 0)
        s.ask(turn([112], ticket: 9, engineFirst: false))
        s.received("OK")
        _ = s.poll()
        s.received(answer)
        let out = s.poll()
        guard case let .fault(ticket, text) = out.last else { Issue.record("\(out)"); return }
        #expect(ticket == 9)
        #expect(text.contains(why), "\(text)")
        #expect(s.failed)
        s.received("8,8")
        #expect(s.poll().isEmpty, "a failed session reads nothing more")
    }

    /// An ERROR or UNKNOWN line while a move is due is the engine's message, as Piskvork reads it
    /// (a real engine printed "ERROR Unknown command: TIME_LEFT" on a won position): logged, and
    /// the move that follows counts. Only no move, a bad move or a crash lose.
    @Test(arguments: ["ERROR out of memory", "UNKNOWN"])
    func anErrorLineWhileThinkingIsAMessage(_ line: String) {
        var s = PbrainSession(maxMemory: 0)
        s.ask(turn([112], ticket: 9, engineFirst: false))
        s.received("OK")
        _ = s.poll()
        s.received(line)
        #expect(!s.failed)
        #expect(s.poll() == [.log("engine \(line.split(separator: " ")[0]): \(line.split(separator: " ").dropFirst().joined(separator: " "))")])
        s.received("8,8")
        #expect(s.poll().contains(.move(ticket: 9, cell: 8 * 15 + 8)))
    }

    @Test func tooManyMessagesInATurnAreAFlood() {
        var s = PbrainSession(maxMemory: 0)
        s.ask(turn([]))
        s.received("OK")
        _ = s.poll()
        for _ in 0..<PbrainSession.maxNotesPerTurn { s.received("MESSAGE hi") }
        #expect(!s.failed)
        s.received("DEBUG one more")
        #expect(s.failed)
        guard case .fault(1, _) = s.poll().last else { Issue.record("no fault"); return }
    }

    @Test func anEngineThatExitsWhileThinkingFailsItsTurn() {
        var s = PbrainSession(maxMemory: 0)
        s.ask(turn([]))
        s.received("OK")
        _ = s.poll()
        s.exited("exited with status 3")
        #expect(s.poll() == [.fault(ticket: 1, "exited with status 3")])
    }

    @Test func refusingTheBoardIsAFault() {
        var s = PbrainSession(maxMemory: 0)
        s.ask(turn([]))
        _ = s.poll()
        s.received("ERROR too big")
        guard case let .fault(1, text) = s.poll().last else { Issue.record("no fault"); return }
        #expect(text.contains("refused"))
    }

    // MARK: The probe

    @Test func theProbeAsksAboutThenEveryBoard() throws {
        let sizes = [gomoku, wide, try BoardSize(rows: 20, cols: 20, k: 5)]
        var p = PbrainProbe(candidates: sizes)
        #expect(p.poll() == "ABOUT\r\n")
        #expect(p.waitingFor == "ABOUT")
        p.received(#"name="x", version="2""#)
        #expect(p.about == "x 2")
        #expect(p.waitingFor == "START 15")
        #expect(p.poll() == "START 15\r\n")
        p.received("MESSAGE allocating")
        p.received("OK")
        #expect(p.poll() == "RECTSTART 7,5\r\n")
        p.received("ERROR squares only")
        #expect(p.poll() == "START 20\r\n")
        p.received("OK")
        #expect(p.poll() == "END\r\n")
        #expect(p.done)
        #expect(p.accepted == [gomoku, sizes[2]])
    }

    @Test func anEngineWithoutRectstartIsAskedSquaresOnly() throws {
        let other = try BoardSize(rows: 6, cols: 9, k: 5)
        var p = PbrainProbe(candidates: [wide, other, gomoku])
        _ = p.poll()
        p.received("UNKNOWN")
        #expect(p.about == nil)
        #expect(p.poll() == "RECTSTART 7,5\r\n")
        p.received("UNKNOWN command RECTSTART")
        #expect(p.poll() == "START 15\r\n", "no other RECTSTART")
        p.received("OK")
        #expect(p.accepted == [gomoku])
    }

    @Test func everyCandidateHasFiveInARowAndFits() {
        let all = EngineBoards.candidates
        #expect(all.count == 16 * 16)
        #expect(all.allSatisfy { $0.k == 5 && $0.rows >= 5 && $0.cols >= 5 })
        #expect(all.first == (try? BoardSize(rows: 5, cols: 5, k: 5)))
        let boards = EngineBoards(sizes: [gomoku])
        #expect(boards.plays(gomoku))
        #expect(!boards.plays(.classic))
    }
}
