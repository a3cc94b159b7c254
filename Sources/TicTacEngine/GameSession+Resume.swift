import TicTacTime
import TicTacWire

// A game that outlives its link (Protocol.md §13): paused when the link is lost mid-game,
// resumed on a new link once both sides agree on the moves, or rebuilt from the history after
// a restart. Nothing is sent while paused; the peer hears of it in RESUME.
extension GameSession {
    /// The last game ended by our own resignation (or our clock): the peer is told so if it
    /// missed it.
    public var endedByOurResignation: Bool { lastResult == .lost && crossing.lastEnding == .ourResign }

    /// True while the game waits for its link (`pause`): no clock runs.
    public var isPaused: Bool {
        switch phase { case .paused, .pausedRoll: true; default: false }
    }

    /// The key a kept game is known by: the decided game's, or a waiting roll's (fixed by both
    /// commitments).
    public var resumeKey: ID128? {
        if let key { return key }
        switch phase {
        case let .pausedRoll(exchange): return exchange.key
        case let .rolling(exchange, _): return keepsRoll ? exchange.key : nil
        default: return nil
        }
    }

    /// What RESUME tells of our roll while the game has no move: our secret (§13). After a quick
    /// roll also after the first: it decides on the peer's ROLL, so the peer may lack ours while
    /// we already moved first (or ended the game).
    public var resumeSecret: [UInt8]? {
        if case let .pausedRoll(exchange) = phase { return exchange.ourSecret }
        return moves.count <= (rolledQuickly ? 1 : 0) ? rollSecret : nil
    }

    /// A roll kept undecided: RESUME tells our secret, and `decideRoll` takes the peer's.
    public var rollUndecided: Bool { if case .pausedRoll = phase { true } else { false } }

    /// The opponent made a move in the running (or last) game.
    public var opponentMoved: Bool { piece != .empty && moves.count >= (piece == .o ? 2 : 1) }

    /// The peer's move on `cell` (one it made that never reached us) would end the paused game.
    public func wouldEnd(peerMove cell: Int) -> Bool {
        guard case .paused = phase else { return false }
        var b = board
        do { try b.place(piece.opponent, at: cell) } catch { return false }
        if case .inProgress = b.outcome(after: cell) { return false }
        return true
    }

    /// The side to move when paused (nil when not paused).
    public var pausedWithOurTurn: Bool? { if case let .paused(ourTurn, _) = phase { ourTurn } else { nil } }

    /// The link is lost: a game being played is kept, its clock stopped (a roll lost between its
    /// two ROLL_ACKs is decided first, below). False (and nothing changes) in any other state:
    /// the caller ends the game as before. `lastHeard`: when the link was last known alive; the
    /// side to move is charged up to then, not for the silence before the loss was noticed.
    public mutating func pause(now: Instant, lastHeard: Instant? = nil) -> Bool {
        // Lost between the two ROLL_ACKs: with both reveals in and ours acknowledged, the peer
        // may have decided on our ACK; we decide alike, so one game stands on both sides (§13).
        if case var .rolling(exchange, _) = phase, exchange.settleUnacknowledged(),
           let decision = try? exchange.decision() {
            decide(decision, exchange, now: now)
        }
        // Not decided, both commitments in: the roll waits for the peer's secret (§13).
        if keepsRoll, case let .rolling(exchange, _) = phase, let rollKey = exchange.key {
            phase = .pausedRoll(exchange)
            if recordsFacts { emit(.record(.interrupted, key: rollKey)) }
            return true
        }
        guard case let .playing(ourTurn, clock) = phase, key != nil else { return false }
        let stopped = lastHeard.map { min($0, now) } ?? now
        phase = .paused(ourTurn: ourTurn, remaining: clock.map { max(.zero, $0 - stopped) })
        record(.interrupted)
        return true
    }

    /// The peer's RESUME gave its roll secret for the roll we kept undecided: checked against
    /// its commitment, then decided as the link would have; the game waits paused at its first
    /// move for `resume` (Protocol.md §13).
    public mutating func decideRoll(theirSecret: [UInt8], now: Instant) throws(GameFault) {
        guard case var .pausedRoll(exchange) = phase else { return }
        try exchange.take(theirSecret: theirSecret)
        guard let decision = try exchange.decision() else { throw GameFault(.internalError, "a roll with both secrets did not decide") }
        decide(decision, exchange, now: now, starting: false)
    }

    /// The peer holds no such roll: it never read our commitment, so nobody decided; forgotten
    /// on our side too (Protocol.md §13).
    public mutating func forgetRoll() {
        guard case let .pausedRoll(exchange) = phase else { return }
        if recordsFacts { emit(.record(.forgotten, key: exchange.key)) }
        phase = .interrupted
    }

    /// Takes the game up again on a new link. `peerMove`: the move the peer made that never
    /// reached us (reconciled from RESUME): applied as if its MOVE had come. The side to move
    /// gets what was left of its clock, at least the shortest clock a game may have.
    public mutating func resume(peerMove: Int? = nil, now: Instant) throws(GameFault) {
        guard case let .paused(ourTurn, remaining) = phase else { return }
        if let cell = peerMove {
            guard !ourTurn else { throw GameFault(.illegalMove, "RESUME gives the peer a move in our turn") }
            phase = .playing(ourTurn: false, clock: nil)
            try receiveInGame(.move(cell: UInt16(cell)), now: now)
            return
        }
        let least = Duration.seconds(Int64(Self.minimumMoveTime))
        let left = remaining.map { max($0, least) }
        phase = .playing(ourTurn: ourTurn, clock: left.map { now + $0 })
        show(ourTurn ? .yourTurn : .opponentTurn)
        // The front counts down what is really left (the peer's clock holds its grace too).
        if let left {
            let shown = ourTurn ? left : max(.zero, left - Self.moveGrace)
            if shown < .seconds(Int64(agreedMoveTime)) { show(.turnClock(seconds: Int(shown.wholeSecondsRoundedUp))) }
        }
    }

    /// What the front needs to draw a resumed game from nothing: the start and the board (the
    /// turn follows from `resume`).
    public mutating func showResumed() {
        guard isPaused else { return }
        show(.gameStarted(piece: piece, first: piece == .o, size: size))
        show(.score(score)) // the score so far (after a restart, the history's), not a fresh 0-0-0
        showBoard()
    }

    /// Our player resigned while the link was down: a loss, recorded now; the peer is told in
    /// RESUME when it is back.
    mutating func resignApart(now: Instant) {
        record(.ended(.lost, how: .resigned))
        end(.lost, line: nil, ending: .ourResign, now: now, how: .resigned, recorded: true)
    }

    /// The peer resigned the game while apart (RESUME `resigned`): a win.
    public mutating func peerResignedApart(now: Instant) {
        guard isPaused else { return }
        end(.won, line: nil, ending: .theirResign, now: now, how: .resigned)
    }

    /// The peer disowned the game (RESUME "unknown", or a move list that contradicts ours): ours
    /// by abandonment (Protocol.md §13).
    public mutating func peerAbandoned(now: Instant) {
        guard case .paused = phase else { return }
        end(.won, line: nil, ending: .settled, now: now, how: .abandoned)
    }

    /// The peer claimed the game while our player was in another one: a loss (Protocol.md §13).
    public mutating func lostByClaim(now: Instant) {
        guard case .paused = phase else { return }
        end(.lost, line: nil, ending: .settled, now: now, how: .claimed)
    }

    /// The peer took our claim (or resigned, or disowned the game): the win our history holds
    /// since the claim; the game is over here too.
    public mutating func claimSettled(now: Instant) {
        guard case .paused = phase else { return }
        end(.won, line: nil, ending: .settled, now: now, how: .claimed, recorded: true)
    }

    /// The game cannot be resumed (a peer under the older rules has no such game, or the lists
    /// conflict): it ends without a result, and nothing is invented.
    public mutating func interrupt() {
        guard isPaused else { return }
        phase = .interrupted
    }

    /// Both resigned while apart: a draw, as resignations that cross (Protocol.md §8).
    public mutating func bothResignedApart() {
        guard case .done = phase, lastResult == .lost else { return }
        score.lost -= 1
        score.drawn += 1
        lastResult = .draw
        record(.ended(.draw, how: .crossed))
        show(.score(score))
    }

    /// A roll rebuilt from the history, undecided: our secret, the peer's commitment, the game's
    /// agreed clock and its key, as stored when our ROLL went out.
    public init(restoringRoll size: BoardSize, secret: [UInt8], theirCommitment: [UInt8], moveTime: UInt16, key: ID128,
                round: Int, score: Score, rng: some RandomNumberGenerator, rematchDelay: Duration = .seconds(3)) throws(GameFault) {
        self.init(size: size, rng: rng, rematchDelay: rematchDelay, score: score, moveTime: .seconds(Int64(moveTime)))
        guard let exchange = RollExchange(secret: secret, theirCommitment: theirCommitment, moveTime: moveTime, key: key) else {
            throw GameFault(.internalError, "the stored roll is not \(Commitment.secretLength) bytes of secret under its key")
        }
        ourRound = round
        peerRound = round
        keepsRoll = true
        phase = .pausedRoll(exchange)
    }

    /// A game rebuilt from the history, paused: `moves` in order, the first by whoever moved
    /// first (it plays O). `round`: the game's number in its match (the peer's counter is its own:
    /// only differences between the two count).
    /// `moveTime` is the game's agreed clock; `ask`, what our player asks for the match's next
    /// games (`--move-time` now; the stored clock when nil).
    public init(restoring size: BoardSize, key: ID128, weMovedFirst: Bool, moves: [Int], moveTime: UInt16, round: Int,
                score: Score, rng: some RandomNumberGenerator, rematchDelay: Duration = .seconds(3),
                secret: [UInt8]? = nil, quick: Bool = false, ask: UInt16? = nil) throws(GameFault) {
        self.init(size: size, rng: rng, rematchDelay: rematchDelay, score: score, moveTime: .seconds(Int64(ask ?? moveTime)))
        rollSecret = moves.count <= 1 ? secret : nil
        rolledQuickly = quick
        piece = weMovedFirst ? .o : .x
        for (i, cell) in moves.enumerated() {
            let ours = (i % 2 == 0) == weMovedFirst
            do { try board.place(ours ? piece : piece.opponent, at: cell) } catch {
                throw GameFault(.internalError, "the stored move \(i + 1) (cell \(cell + 1)) does not fit the board: \(error)")
            }
            guard board.outcome(after: cell) == .inProgress else {
                throw GameFault(.internalError, "the stored moves end the game at move \(i + 1)")
            }
            self.moves.append(cell)
        }
        self.key = key
        agreedMoveTime = moveTime
        ourRound = round
        peerRound = round
        let ourTurn = (moves.count % 2 == 0) == weMovedFirst
        phase = .paused(ourTurn: ourTurn, remaining: moveTime > 0 ? .seconds(Int64(moveTime)) : nil)
    }
}
