import TicTacWire
import TicTacTime

/// How a game ends (its result, score, history fact and the crossing it leaves) and how the
/// session queues what the owner is given.
extension GameSession {
    /// Our resignation crossed the peer's resignation or drawing move: both sides call it a draw.
    mutating func settleAsDraw() {
        score.lost -= 1
        score.drawn += 1
        lastResult = .draw
        record(.ended(.draw, how: .crossed), ofLastGame: true)
        if case .done = phase { show(.gameOver(result: .draw, line: nil, resigned: true)) }
        show(.score(score))
    }

    /// Gives up the game: RESIGN from the player, TIME_UP when our own clock ran out.
    mutating func resign(now: Instant, message: Message = .resign) {
        let how: GameEnding = message == .timeUp ? .time : .resigned
        record(.ended(.lost, how: how)) // stored before the peer hears it
        emit(.send(message))
        let inTheirTurn = state == .opponentTurn
        end(.lost, line: nil, ending: .ourResign, now: now, resignedIn: inTheirTurn ? (board, piece.opponent) : nil,
            how: how, recorded: true)
    }

    /// Ends the game if the last move (on `cell`) won or filled the board.
    mutating func finishIfOver(after cell: Int, ending: Crossing.Ending, now: Instant) -> Bool {
        switch board.outcome(after: cell) {
        case .inProgress:
            return false
        case .draw:
            end(.draw, line: nil, ending: ending, now: now)
        case let .won(line):
            end(line.piece == piece ? .won : .lost, line: line.cells, ending: ending, now: now)
        }
        return true
    }

    mutating func end(_ result: GameResult, line: [Int]?, ending: Crossing.Ending, now: Instant,
                              resignedIn: (board: Board, theirPiece: Piece)? = nil, how: GameEnding? = nil,
                              recorded: Bool = false) {
        switch result {
        case .won: score.won += 1
        case .lost: score.lost += 1
        case .draw: score.drawn += 1
        }
        lastResult = result
        lastHow = how ?? Self.how(ending, line: line)
        lastKey = key
        lastMoveCount = moves.count
        if recordsFacts, !recorded, let lastHow { record(.ended(result, how: lastHow)) }
        crossing.ended(ending, resignedIn: resignedIn)
        phase = .done(rematchAt: now + rematchDelay, early: RollExchange())
        show(.gameOver(result: result, line: line, resigned: ending == .ourResign || ending == .theirResign))
        show(.score(score))
    }

    mutating func fail(_ fault: GameFault) {
        phase = .interrupted
        emit(.fail(fault.code, fault.text))
    }

    mutating func emit(_ action: consuming GameAction) { actions.append(action) }

    /// `ofLastGame`: a fact about the game that ended last (the running one may have started since).
    mutating func record(_ fact: GameFact, ofLastGame: Bool = false) {
        if recordsFacts { actions.append(.record(fact, key: ofLastGame ? lastKey : resumeKey)) } // a kept roll's, before it decides
    }

    /// How the history names an ending the caller did not name.
    private static func how(_ ending: Crossing.Ending, line: [Int]?) -> GameEnding {
        switch ending {
        case .ourMove, .theirMove: line == nil ? .full : .line
        case .ourResign, .theirResign: .resigned
        case .settled: .forfeit
        }
    }

    /// The board after a move, built only when it is shown (a headless bot never reads it).
    mutating func showBoard() {
        guard shownEvents.contains(.board) else { return }
        actions.append(.show(.board(board)))
    }

    /// Queues an event the owner is given (`shownEvents`); the others are dropped here.
    mutating func show(_ event: consuming GameEvent) {
        guard shownEvents.contains(event.kind) else { return }
        actions.append(.show(event))
    }
}
