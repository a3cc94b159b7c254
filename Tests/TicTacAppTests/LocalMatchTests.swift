import Testing
import TicTacAPI
import TicTacApp
import TicTacDaemonCore
import TicTacEngine
import TicTacTerminal
import TicTacTime
import TicTacWire

@Suite struct LocalMatchTests {
    /// Plays a human that always takes the lowest free cell against a bot, by commands only.
    private func play(level: BotLevel, seed: UInt64, games: Int) -> (out: [DaemonEvent], humanMoves: Int) {
        var m = LocalMatch(level: level, rng: SplitMix64(seed: seed))
        var now = Instant.zero
        var out = m.start(now: now)
        var finished = 0
        var guardSteps = 0
        var humanMoves = 0
        while finished < games, guardSteps < 1000 {
            guardSteps += 1
            if m.human.state == .myTurn, let cell = m.human.board.emptyCells.first {
                out += m.command(.move(cell + 1), now: now)
                humanMoves += 1
            } else if let d = m.nextDeadline {
                now = d
                out += m.timeout(now: now)
            }
            finished = out.filter { if case .game(.gameOver, _) = $0 { true } else { false } }.count
        }
        return (out, humanMoves)
    }

    @Test func perfectBotNeverLosesAndEveryMoveShowsTheBoard() {
        for seed in UInt64(0)..<10 {
            let (out, humanMoves) = play(level: .perfect, seed: seed, games: 3)
            let overs = out.compactMap { if case let .game(.gameOver(r, _, _), _) = $0 { r } else { nil } }
            #expect(overs.count == 3)
            #expect(!overs.contains(.won), "seed \(seed): the human beat the perfect bot")
            let boards = out.filter { if case .game(.board, _) = $0 { true } else { false } }.count
            let moved = out.filter { if case .game(.opponentMoved, _) = $0 { true } else { false } }.count
            #expect(boards == moved + humanMoves, "one board event after every move, ours and the bot's")
            #expect(!out.contains { if case .error = $0 { true } else { false } })
        }
    }

    @Test func badCommandsAreErrorsAndTheGameGoesOn() {
        var m = LocalMatch(level: .random, rng: SplitMix64(seed: 4))
        _ = m.start(now: .zero)
        let waiting = m.human.state != .myTurn
        let out = m.command(.move(42), now: .zero)
        #expect(out.count == 1)
        if case let .error(code, _) = out.first {
            #expect(code == (waiting ? "not-your-turn" : "illegal-move"))
        } else {
            Issue.record("expected an error, got \(out)")
        }
        #expect(m.human.state == .myTurn || m.human.state == .opponentTurn)
    }

    @Test func cancelInALocalGameSaysWhatToTypeInstead() {
        var m = LocalMatch(level: .random, rng: SplitMix64(seed: 4))
        _ = m.start(now: .zero)
        #expect(m.command(.cancel, now: .zero) == [.error(code: "no-invitation", message: Command.cancelLocalText)])
        #expect(Command.cancelLocalText.contains("type resign"))
        #expect(m.command(.lobby, now: .zero).first.map { if case .error("bad-command", _) = $0 { true } else { false } } == true)
    }

    @Test func newResignsAndTheBotJoinsAtOnce() {
        var m = LocalMatch(level: .good, rng: SplitMix64(seed: 8))
        _ = m.start(now: .zero)
        let out = m.command(.new, now: .zero)
        #expect(out.contains(.game(.gameOver(result: .lost, line: nil, resigned: true), opponent: m.opponent)))
        #expect(m.human.state == .myTurn || m.human.state == .opponentTurn)
        #expect(m.human.score == Score(lost: 1))
    }
}

@Suite struct LocalMatchNamesAndSeatsTests {
    @Test func aLocalGamePlaysANamedCell() throws {
        let size = try BoardSize(rows: 4, cols: 4, k: 3)
        for seed in UInt64(0)..<20 {
            var m = LocalMatch(size: size, level: .random, rng: SplitMix64(seed: seed))
            _ = m.start(now: .zero)
            guard m.human.state == .myTurn, m.human.board.cells[9] == .empty else { continue }
            _ = m.command(.moveAt(CellName.Ref(col: 1, row: 2)), now: .zero) // b3 = cell 10
            #expect(m.human.board.cells[9] == m.human.piece)
            let out = m.command(.moveAt(CellName.Ref(col: 1, row: 5)), now: .zero) // b6: no such row
            #expect(out.contains { if case let .error(code, message) = $0 { code == "illegal-move" && message.contains("b6") } else { false } })
            return
        }
        Issue.record("no seed let the player move first")
    }

    /// Two people at one keyboard: each move goes to the side to move, nobody moves by itself,
    /// and the game ends as one game between the two.
    @Test func bothSidesMoveFromTheSameKeyboard() throws {
        var m = LocalMatch(level: .perfect, rng: SplitMix64(seed: 5), hotSeat: true)
        #expect(m.opponent.name == "Player 2")
        #expect(LocalMatch(level: .perfect, rng: SplitMix64(seed: 5), hotSeat: true, playerTwo: "ben").opponent.name == "ben")
        var out = m.start(now: .zero)
        #expect(m.human.state == .myTurn || m.botSide.state == .myTurn)
        let before = m.human.board.emptyCells.count
        #expect(before == 9, "nobody moved by itself")
        // Row-major cells 1, 2, 3, 4, 5, 6, 7 in turn: the first mover gets 1, 3, 5, 7 (a diagonal).
        let first = m.human.state == .myTurn ? m.human.piece : m.human.piece.opponent
        for cell in 1...7 {
            out = m.command(.move(cell), now: .zero)
            #expect(!out.contains { if case .error = $0 { true } else { false } }, "\(cell): \(out)")
        }
        let over = out.compactMap { e -> GameResult? in
            if case let .game(.gameOver(result, _, _), _) = e { return result } else { return nil }
        }
        #expect(over == [first == m.human.piece ? .won : .lost])
        #expect(m.human.board == m.botSide.board)
    }
}

/// `bot --max-games` counts only games in which the opponent moved: resigning right
/// after the roll, or after the bot's first move, in a loop does not use it up.
@Suite struct GameCounterTests {
    @Test func resigningBeforeAnyMoveIsNotCounted() throws {
        let hostile = PeerInfo(id: ID128(high: 1, low: 1), name: "h", address: "198.18.0.1", port: nil, capabilities: [])
        let fair = PeerInfo(id: ID128(high: 2, low: 2), name: "f", address: "198.18.0.2", port: nil, capabilities: [])
        var counter = GameCounter()
        let start = GameEvent.gameStarted(piece: .o, first: true, size: .classic)
        let over = GameEvent.gameOver(result: .won, line: nil, resigned: true)
        var counted = 0
        let ours = [GameEvent.board(Board(size: .classic)), .opponentTurn] // the bot's own move
        for _ in 0..<100 { // the hostile peer: a game, then resign (at once, or after the bot's move)
            for e in [start, over] where counter.counts(.game(e, opponent: hostile)) { counted += 1 }
            for e in [start] + ours + [over] where counter.counts(.game(e, opponent: hostile)) { counted += 1 }
        }
        #expect(counted == 0)
        let moved = GameEvent.opponentMoved(cell: 4)
        for e in [start, moved, over] where counter.counts(.game(e, opponent: fair)) { counted += 1 }
        #expect(counted == 1, "a game with a move counts")
    }

    @Test func gamesWithTwoOpponentsInterleavedAreCountedApart() throws {
        let a = PeerInfo(id: ID128(high: 1, low: 1), name: "a", address: "198.18.0.1", port: nil, capabilities: [])
        let b = PeerInfo(id: ID128(high: 2, low: 2), name: "b", address: "198.18.0.2", port: nil, capabilities: [])
        var counter = GameCounter()
        func counts(_ event: DaemonEvent) -> Bool { counter.counts(event) }
        let start = GameEvent.gameStarted(piece: .o, first: true, size: .classic)
        let board = GameEvent.opponentMoved(cell: 0)
        let over = GameEvent.gameOver(result: .won, line: nil, resigned: true)
        for (e, p) in [(start, a), (start, b), (board, a), (board, a), (board, b), (board, a)] {
            #expect(!counts(.game(e, opponent: p)))
        }
        #expect(counts(.game(over, opponent: a)), "a moved")
        // A's next game: no move yet, though a's id was the last one seen with a board.
        #expect(!counts(.game(start, opponent: a)))
        #expect(!counts(.game(over, opponent: a)), "a's new game had no move")
        // A board from the same opponent as the last one before the game-over still counts.
        #expect(!counts(.game(start, opponent: a)))
        #expect(!counts(.game(board, opponent: a)))
        #expect(counts(.game(over, opponent: a)), "a moved in its third game")
        #expect(counts(.game(over, opponent: b)), "b moved")
        #expect(!counts(.game(start, opponent: b)))
        #expect(!counts(.game(board, opponent: b)))
        #expect(!counts(.disconnected(b, reason: "gone")))
        #expect(!counts(.game(over, opponent: b)), "b's move was in a game that ended with the link")
    }
}

/// A refused move names the cell the way the player typed it.
@Suite struct CellMessageTests {
    @Test func aTakenCellTypedByNameIsNamed() throws {
        var m = LocalMatch(level: .perfect, rng: SplitMix64(seed: 3))
        var now = Instant.zero
        _ = m.start(now: now)
        while m.human.state != .myTurn, let d = m.nextDeadline {
            now = d
            _ = m.timeout(now: now)
        }
        let taken = try #require(m.human.board.cells.indices.first { m.human.board.cells[$0] != .empty }
                                 ?? m.human.board.emptyCells.first)
        if m.human.board.cells[taken] == .empty { _ = m.command(.move(taken + 1), now: now) }
        while m.human.state != .myTurn, let d = m.nextDeadline {
            now = d
            _ = m.timeout(now: now)
        }
        let ref = CellName.Ref(col: taken % 3, row: taken / 3)
        let out = m.command(.moveAt(ref), now: now)
        #expect(out.contains(.error(code: "illegal-move", message: "\(ref.text) is already taken")), "\(out)")
        let byNumber = m.command(.move(taken + 1), now: now)
        #expect(byNumber.contains(.error(code: "illegal-move", message: "cell \(taken + 1) is already taken")))
    }
}
