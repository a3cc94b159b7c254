import Testing
@testable import TicTacReplay
import TicTacWire

/// What `tictac replay` tells of the fixtures: the story a person reads, checked line by line.
@Suite struct NarratorTests {
    @Test func aBotWinIsToldMoveByMoveWithTheWinningLine() throws {
        let stories = Narrator.tell(try Fixtures.capture("bot-win"))
        let events = stories.map(\.event)
        #expect(events.prefix(7) == ["connection", "hello", "hello", "proof", "proof", "invite", "accept"])
        let moves = stories.filter { $0.event == "move" }
        #expect(moves.count == 7)
        // The first mover plays O (Protocol.md §8); pieces alternate from there.
        #expect(moves.map { $0.text.contains("(O,") } == [true, false, true, false, true, false, true])
        // A 3 x 3 board is shown on each move's line, row by row.
        #expect(moves.last?.text.hasSuffix("board .OX/.XX/OOO") == true)
        let over = try #require(stories.first { $0.event == "game-over" })
        #expect(over.text.contains("wins along [7, 8, 9] (a3 b3 c3)"))
        #expect(over.json.contains(#""line":[7,8,9]"#))
        #expect(!stories.contains { $0.abnormal })
    }

    @Test func aLargeBoardIsDrawnOnceAsAGridNotOnOneLine() throws {
        let stories = Narrator.tell(try Fixtures.capture("gomoku"))
        let moves = stories.filter { $0.event == "move" }
        #expect(!moves.isEmpty)
        // Each move named as the front names cells (column letter, row from the top).
        #expect(moves.last?.text.hasSuffix("MOVE 68 (O, h5)") == true)
        #expect(moves.allSatisfy { !$0.text.contains("board") && $0.line.count < 100 })
        let over = try #require(stories.first { $0.event == "game-over" })
        let lines = over.line.split(separator: "\n")
        #expect(lines.count == 1 + 15)
        #expect(lines.dropFirst().allSatisfy { $0.drop { $0 == " " }.count == 15 })
        // The winning five are on the grid: cells 68, 83, 98, 113, 128 are one column (8), rows 5..9.
        let grid = lines.dropFirst().map { Array($0.drop { $0 == " " }) }
        #expect((4...8).allSatisfy { grid[$0][7] == "O" })
    }

    @Test func badInputIsFlaggedAbnormalWithItsOffset() throws {
        let stories = Narrator.tell(try Fixtures.capture("bad-input"))
        let abnormal = stories.filter(\.abnormal)
        #expect(!abnormal.isEmpty)
        #expect(abnormal.allSatisfy { $0.line.contains("!! ") })
        #expect(stories.contains { $0.event == "error" || $0.event == "undecodable" })
    }

    /// A player's change of mind about watchers (SPECTATORS, Protocol.md §14), in text and JSON.
    @Test func aPlayersSpectatorsChoiceIsTold() {
        var t = GameTracker(names: ["ann", "ben"])
        let off = t.tell(.spectators(false), side: 1), on = t.tell(.spectators(true), side: 0)
        #expect(off.map(\.0) == ["spectators"] && on.map(\.0) == ["spectators"])
        #expect(off.first?.2 == "ben: SPECTATORS off: its games may not be watched")
        #expect(on.first?.2 == "ann: SPECTATORS on: its games may be watched again")
        #expect(off.first?.1.first?.0 == "allowed" && off.first?.1.first?.1 == .bool(false))
        #expect(off.first?.3 == false, "not abnormal")
    }

    @Test func discoveryDatagramsAreToldWithTheirSender() throws {
        let stories = Narrator.tell(try Fixtures.capture("discovery"))
        let announces = stories.filter { $0.event == "announce" }
        #expect(!announces.isEmpty)
        #expect(announces.allSatisfy { $0.text.hasPrefix("ANNOUNCE from ") && $0.text.contains("listens on TCP") })
        // Told in capture order: times never go backwards.
        #expect(zip(stories, stories.dropFirst()).allSatisfy { $0.at <= $1.at })
    }
}
