import TicTacTime

extension GameSession {
    /// The events that draw the game as it is now on a front that starts from nothing (one that
    /// attaches to a running daemon, docs/control.md): its start, the score, the board, and whose
    /// turn with what is left of the clock, or how it ended. Nothing is queued or changed.
    public func snapshot(now: Instant) -> [GameEvent] {
        // The rolls first, as in play: they carry the agreed move clock the front counts from.
        let rolled: [GameEvent] = rolls.map { [.rolls(yours: $0.yours, theirs: $0.theirs, moveTime: Int(agreedMoveTime))] } ?? []
        let start = rolled + [.gameStarted(piece: piece, first: piece == .o, size: size), .score(score), .board(board)]
        switch phase {
        case .beginning, .rolling, .interrupted, .pausedRoll:
            return [.score(score)]
        case let .playing(ourTurn, clock):
            var events = start + [ourTurn ? .yourTurn : .opponentTurn]
            if let clock {
                // As `resume` shows it: the peer's clock holds its grace, ours does not.
                let left = max(.zero, clock - now)
                let shown = ourTurn ? left : max(.zero, left - Self.moveGrace)
                events.append(.turnClock(seconds: Int(shown.wholeSecondsRoundedUp)))
            }
            return events
        case let .paused(ourTurn, _):
            return start + [ourTurn ? .yourTurn : .opponentTurn]
        case .done:
            guard let result = lastResult else { return [.score(score)] }
            let line = lastHow == .line ? board.winningLine?.cells : nil
            return start + [.gameOver(result: result, line: line, resigned: lastHow == .resigned)]
        }
    }
}
