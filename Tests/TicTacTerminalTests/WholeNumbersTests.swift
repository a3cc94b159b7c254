import Testing
import TicTacAPI
import TicTacDaemonCore
import TicTacEngine
@testable import TicTacTerminal
import TicTacWire

/// A number on the full screen (an address, a port) shows whole or not at all: a narrow window
/// never cuts one silently ("198.18.0.1:379" for port 37997 read as a real address).
@Suite struct WholeNumbersTests {
    func lobby(name: String = "ann", addresses: [String] = ["198.18.0.1"]) -> FullScreenModel {
        var m = FullScreenModel(color: false)
        m.apply(.ready(name: name, id: ID128(high: 1, low: 1), port: 37997))
        m.addresses = addresses
        return m
    }

    /// Every run of digits, dots and colons in `line` that starts like `whole` is all of it.
    func expectWholeOrAbsent(_ line: String, _ whole: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var rest = Substring(line)
        let head = String(whole.prefix(4))
        while let r = rest.range(of: head) {
            let run = rest[r.lowerBound...].prefix { $0.isNumber || $0 == "." || $0 == ":" || $0 == "[" || $0 == "]" }
            #expect(String(run) == whole, "cut: \(line)", sourceLocation: sourceLocation)
            rest = rest[r.upperBound...]
        }
    }

    @Test func ownAddressIsWholeAtEveryWidth() {
        let m = lobby()
        for width in 10...80 {
            let line = screen(m, width, 14)[1]
            expectWholeOrAbsent(line, "198.18.0.1:37997")
        }
        #expect(screen(m, 30, 14)[1] == "  Address: 198.18.0.1:37997")
        #expect(screen(m, 80, 14)[1] == "  Your address: 198.18.0.1:37997")
        #expect(screen(m, 17, 14)[1] == "", "too narrow for the address: no line rather than part of it")
        // Addresses left out for room are said to be.
        let two = lobby(addresses: ["198.18.0.1", "2001:db8::1234:5678:9abc:def0"])
        #expect(screen(two, 50, 14)[1] == "  Your address: 198.18.0.1:37997  +1 more")
    }

    @Test func titlePortIsWholeWithALongName() {
        let m = lobby(name: String(repeating: "annabelle ", count: 5))
        for width in 8...80 {
            let title = screen(m, width, 14)[0]
            expectWholeOrAbsent(title, "37997")
            if width >= 30 { #expect(title.contains("port 37997"), "\(width): \(title)") }
        }
    }

    @Test func peerAddressesAreWholeOrLeftOut() {
        var m = lobby()
        m.apply(.peerFound(PeerInfo(id: ID128(high: 2, low: 2), name: "a rather long player name here", address: "203.0.113.123",
                                    port: 41237, capabilities: [.tictactoe, .bot])))
        for width in 10...80 {
            for line in screen(m, width, 14) { expectWholeOrAbsent(line, "203.0.113.123") }
        }
        #expect(screen(m, 40, 14).contains { $0.contains("203.0.113.123  (bot)") }, "the name is clipped first")
    }
}

/// The roll that decided who moves first stays on the board screen until our own first move,
/// so a second mover reads it even when the first mover (a bot) moved at once.
@Suite struct RollLineTests {
    @Test func theSecondMoverStillSeesTheRollsAfterTheFirstMove() throws {
        var m = FullScreenModel(color: false, unicode: true)
        m.apply(.ready(name: "ann", id: ID128(high: 1, low: 1), port: 50000))
        m.apply(.game(.rolls(yours: 4, theirs: 9, moveTime: 120), opponent: bobOpponent))
        m.apply(.game(.gameStarted(piece: .x, first: false, size: .classic), opponent: bobOpponent))
        m.apply(.game(.opponentTurn, opponent: bobOpponent))
        #expect(screen(m).contains { $0.contains("You rolled 4, bob rolled 9") })
        m.apply(.game(.opponentMoved(cell: 4), opponent: bobOpponent))
        m.apply(.game(.board(try board(o: [4], x: [])), opponent: bobOpponent))
        m.apply(.game(.yourTurn, opponent: bobOpponent))
        #expect(screen(m).contains { $0.contains("You rolled 4, bob rolled 9") }, "bob's quick move must not take it away")
        // A refused key's message goes over it.
        m.apply(.error(code: "illegal-move", message: "cell 5 is already taken"))
        #expect(!screen(m).contains { $0.contains("You rolled") })
        m.apply(.game(.board(try board(o: [4], x: [0])), opponent: bobOpponent))
        #expect(!screen(m).contains { $0.contains("You rolled") }, "our own move: read, and gone")
    }

    @Test func theFirstMoverSeesThemUntilItMoves() throws {
        var m = FullScreenModel(color: false, unicode: true)
        m.apply(.game(.rolls(yours: 9, theirs: 4, moveTime: 0), opponent: bobOpponent))
        m.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        #expect(screen(m).contains { $0.contains("You rolled 9, bob rolled 4; no move clock") })
        m.apply(.game(.board(try board(o: [0], x: [])), opponent: bobOpponent))
        #expect(!screen(m).contains { $0.contains("You rolled") })
    }
}

/// The status under the board, cut for a narrow window, says it was cut.
@Suite struct MarkedCutTests {
    @Test func aCutStatusEndsInAMark() throws {
        var m = gameModel(size: try BoardSize(rows: 15, cols: 15, k: 5))
        m.apply(.game(.opponentMoved(cell: 11 * 15 + 7), opponent: bobOpponent))
        let full = try #require(m.statusText)
        #expect(full.hasSuffix("bob played h12"))
        // Too narrow for both: the move goes on a line of its own, whole (TruthfulScreenTests).
        let lines = screen(m, 20, 40)
        #expect(lines.contains("  Your Turn") && lines.contains("  bob played h12"), "\(lines)")
        let line = try #require(screen(m, 10, 40).first { $0.hasPrefix("  Your") })
        #expect(line.hasSuffix("…"), "\(line)")
    }
}
