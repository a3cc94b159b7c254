import TicTacWire
import TicTacTime

// Theory of operation
//
// One GameSession is one side of a match between two players over an ordered, reliable link
// (TCP). It does no I/O and reads no clock: the owner feeds it inputs with the current time
// (`handle(_:now:)`, `handleTimeout(now:)`) and its player's commands (`perform(_:now:)`), then
// drains `pollActions()` (frames to send, events to show, a fatal protocol error) and asks
// `pollTimeout()` when to call back. Its state is one enum with what each state holds: the roll
// exchange while rolling (RollExchange.swift), whose turn and its clock while playing, the
// rematch time when done. Messages that crossed the end of a game are Crossing.swift's.
// How a game ends is GameSession+Ends.swift.
//
// A game (Protocol.md §8) runs: Beginning -> RollingDice -> MyTurn/OpponentTurn -> Done, and after
// `rematchDelay` in Done a new game starts on its own. Each "new game" clears the board, sends
// RESET, then ROLL_COMMIT. Once a side has sent its commitment and holds the peer's, it sends ROLL
// (roll + nonce); on the peer's ROLL it checks the commitment and answers ROLL_ACK echoing the roll.
// On the peer's ROLL_ACK (which the stream order guarantees comes after the peer's ROLL) the side
// decides with `FirstMove` from both secrets, so neither side alone steers it and ties cannot
// happen. All die state is then cleared so no roll is reused. RESET received in Done clears die
// state (the seed's rule: the peer's next commitment follows on the stream and must be kept);
// RESET in RollingDice is the peer's own start and changes nothing. Quick rolls (`quickRoll`)
// send neither RESET nor ROLL_ACK: ROLL_COMMIT opens the game, and the peer's ROLL decides.
//
// Timers (Protocol.md §9), one at a time (`pollTimeout()`): the first move must be decided within
// `rollTimeout` of our RESET or quick ROLL_COMMIT (a peer that saw our reveal and withholds its own forfeits, and the
// link closes); our player's move clock resigns for it with TIME_UP; the peer's move clock, plus
// `moveGrace`, ends a game the peer stalls (forfeit, and the link closes).
//
// Leaving (Protocol.md §8): once our ROLL is out the peer can know who moves first, so a peer that
// then ends the game any way (LEAVE, CANCEL, a closed link, a protocol fault; `.peerLeft`)
// forfeits it, as in a game in play. Before our reveal it knows nothing and loses nothing. Where
// both sides keep rolls (`keepsRoll`), a lost link is not a leaving: the owner's `pause` keeps
// the roll, and RESUME decides it later from both secrets (GameSession+Resume, §13).
//
// Rounds: every RESET starts a round, so each side counts the rounds it started and the rounds the
// peer started. A peer message from the round we already finished crossed our final MOVE or our
// RESIGN on the wire; it is settled the same way on both sides (a RESIGN crossing our winning move
// changes nothing; two crossing RESIGNs, or a RESIGN crossing a drawing move, make a draw) and
// never leaks into the next game.
//
// Every remote message is checked against the state. A violation emits `.fail` and moves to
// Interrupted; the owner sends ERROR and closes. The board is never changed by a bad message.

/// One side of a match. See the theory of operation above.
public struct GameSession: SansIOCore {
    public let size: BoardSize
    public let rematchDelay: Duration
    public internal(set) var board: Board
    public internal(set) var piece: Piece = .empty
    public internal(set) var score = Score()
    /// Cells played this game, in order (both sides).
    public internal(set) var moves: [Int] = []
    /// The last finished game's result.
    public internal(set) var lastResult: GameResult?
    /// How the last game ended.
    public internal(set) var lastHow: GameEnding?
    /// Games finished with this peer.
    public var gamesPlayed: Int { score.won + score.lost + score.drawn }
    /// Seconds per move our player asks for (0: none); the game uses the shorter nonzero ask.
    public let moveTime: UInt16
    /// The agreed seconds per move of the running game (0: no clock).
    public internal(set) var agreedMoveTime: UInt16 = 0
    /// The rolls that decided this game's first move (ours, theirs); nil in a game taken up
    /// from the history, which does not keep them.
    public internal(set) var rolls: (yours: Int, theirs: Int)?

    /// The first move must be decided this long after our RESET: the peer's rematch wait (3.0 s)
    /// plus 5 s for an automatic reveal (Protocol.md §9).
    public static let rollTimeout: Duration = .seconds(8)
    /// Extra time the peer's move clock gets before we end a stalled game: its own daemon
    /// resigns at the clock, and its TIME_UP needs a moment to arrive (Protocol.md §9).
    public static let moveGrace: Duration = .seconds(10)
    /// A nonzero move time below this is read as this (so a peer cannot rush us).
    public static let minimumMoveTime: UInt16 = 5

    /// The events the owner is given (`.show` actions); the others are not queued. The game runs
    /// the same whatever is left out.
    public var shownEvents: GameEventKinds = .all
    /// Set when a history is kept: the game then queues `.record` actions for it.
    public var recordsFacts = false
    /// The game's id once the roll decided (`GameKey`); nil before.
    public internal(set) var key: ID128?
    /// Our roll secret for the running game, told in RESUME while it has no move (§13).
    public internal(set) var rollSecret: [UInt8]?
    /// A roll whose link is lost waits to be decided from RESUME instead of counting as the
    /// peer's forfeit: both sides keep games and rolls (capabilities `resume`, `rollResume`).
    public var keepsRoll = false
    /// Both sides roll without RESET and ROLL_ACK (capability `quickRoll`): our ROLL_COMMIT
    /// opens the game, and the roll decides on the peer's ROLL (Protocol.md §8).
    public var quickRoll = false
    /// The running (or last) game's roll was quick, so RESUME tells our secret up to its first move (§13).
    public internal(set) var rolledQuickly = false
    /// The key of the last game that ended, and how many moves its history holds.
    public internal(set) var lastKey: ID128?
    var lastMoveCount = 0

    /// Where the game is, with what only that state holds.
    enum Phase {
        /// Before the first game. `early`: the peer's commitment for it, if it came first.
        case beginning(early: RollExchange)
        /// Deciding who moves first, until `deadline`.
        case rolling(RollExchange, deadline: Instant)
        /// A game in play: whose turn, and when its clock runs out (nil: no clock).
        case playing(ourTurn: Bool, clock: Instant?)
        /// Over; the next game starts at `rematchAt`. `early`: the peer's next commitment.
        case done(rematchAt: Instant, early: RollExchange)
        /// The link failed, or the peer broke the protocol.
        case interrupted
        /// The link was lost mid-game and the game is kept to resume (GameSession+Resume): no
        /// clock runs; `remaining` is what the side to move had left (nil: no clock).
        case paused(ourTurn: Bool, remaining: Duration?)
        /// The link was lost before the roll decided, both commitments in: the roll waits for
        /// the peer's secret in RESUME (Protocol.md §13).
        case pausedRoll(RollExchange)
    }

    var phase = Phase.beginning(early: RollExchange())
    private var rng: AnyRandom
    var actions: [GameAction] = []
    /// Games started on each side: one per RESET sent and per RESET received. The peer's messages
    /// belong to its round, so a message sent before the peer saw our game end is told apart.
    var ourRound = 0
    /// The game number on our side within the match (1 for the first; 0 before it starts).
    public var round: Int { ourRound }
    var peerRound = 0
    var crossing = Crossing()

    /// `score` carries on a running score from an earlier match with the same peer. `moveTime`
    /// is the clock our player asks for per move (zero: none; Protocol.md §9).
    public init(size: BoardSize = .classic, rng: some RandomNumberGenerator, rematchDelay: Duration = .seconds(3),
                score: Score = Score(), moveTime: Duration = .zero) {
        self.size = size
        self.score = score
        self.board = Board(size: size)
        self.rng = AnyRandom(rng)
        self.rematchDelay = rematchDelay
        self.moveTime = UInt16(clamping: moveTime.components.seconds)
    }

    /// The seed's game state (its values 0...5).
    public var state: GameState {
        switch phase {
        case .beginning: .beginning
        case .rolling: .rollingDice
        case let .playing(ourTurn, _): ourTurn ? .myTurn : .opponentTurn
        case .done: .done
        case .interrupted, .paused, .pausedRoll: .interrupted
        }
    }

    /// The game's clock from both asks: the shorter nonzero one, at least `minimumMoveTime`;
    /// 0 (none) when neither asks (Protocol.md §9).
    public static func agreedMoveTime(_ a: UInt16, _ b: UInt16) -> UInt16 {
        switch (a, b) {
        case (0, 0): 0
        case (0, let ask), (let ask, 0): max(ask, minimumMoveTime)
        default: max(min(a, b), minimumMoveTime)
        }
    }

    // MARK: - The core's verbs

    /// When `handleTimeout` has work: the rematch (Done), the roll deadline (RollingDice), a move
    /// clock (MyTurn, OpponentTurn); else nil.
    public func pollTimeout() -> Instant? {
        switch phase {
        case let .rolling(_, deadline): deadline
        case let .playing(_, clock): clock
        case let .done(rematchAt, _): rematchAt
        case .beginning, .interrupted, .paused, .pausedRoll: nil
        }
    }

    /// Actions produced since the last call, in order; `out` must be empty (the two buffers
    /// trade places, nothing is allocated).
    public mutating func pollActions(into out: inout [GameAction]) {
        precondition(out.isEmpty, "pollActions(into:) takes an empty buffer") // our callers' own
        swap(&out, &actions)
    }

    /// What happens from outside: never refused; a remote fault becomes a `.fail` action.
    public mutating func handle(_ input: GameInput, now: Instant) {
        switch input {
        case .start:
            if case .beginning = phase { newGame(now: now) }
        case let .received(message):
            receive(message, now: now)
        case .connectionLost:
            if case .interrupted = phase { return }
            phase = .interrupted
            show(.interrupted)
        case .peerLeft:
            forfeitIfPeerCouldKnow(now: now)
            phase = .interrupted
        case .linkLost:
            if case .rolling = phase { forfeitIfPeerCouldKnow(now: now) } // in play: nobody chose to end it
            phase = .interrupted
        }
    }

    /// Our player's command. One that cannot be carried out throws and changes nothing.
    public mutating func perform(_ command: GameCommand, now: Instant) throws(GameCommandError) {
        switch command {
        case let .move(cell):
            guard case .playing(ourTurn: true, _) = phase else { throw .notYourTurn(state) }
            do { try board.place(piece, at: cell) } catch { throw .illegal(error) }
            moves.append(cell)
            record(.moved(number: moves.count, cell: cell, byUs: true)) // before the frame leaves
            emit(.send(.move(cell: UInt16(cell))))
            showBoard()
            if !finishIfOver(after: cell, ending: .ourMove, now: now) {
                startClock(ourTurn: false, now: now)
                show(.opponentTurn)
            }
        case .resign:
            if case .paused = phase { return resignApart(now: now) }
            if case .pausedRoll = phase { throw .notYourTurn(.rollingDice) } // no game yet to give up (§8)
            guard case .playing = phase else { throw .notYourTurn(state) }
            resign(now: now)
        case .newGame:
            switch phase {
            case .done:
                newGame(now: now)
            case .playing:
                resign(now: now)
                newGame(now: now)
            case .rolling:
                break // a game is already starting
            case .beginning, .interrupted, .paused, .pausedRoll:
                throw .noGame
            }
        case .leave:
            switch phase {
            case .playing:
                resign(now: now)
            case let .rolling(exchange, _) where exchange.theirsRevealed:
                // The peer's reveal went out, so it counts our leaving as its win: so do we.
                show(.left(yours: true, inRoll: true))
                end(.lost, line: nil, ending: .settled, now: now)
            case .rolling where resumeKey != nil:
                record(.forgotten) // the roll stored as our ROLL went out: no game for us
            default:
                break
            }
            phase = .interrupted
        }
    }

    /// Call when `pollTimeout()` has passed: starts the rematch, or acts on a clock that ran out.
    public mutating func handleTimeout(now: Instant) {
        guard let deadline = pollTimeout(), deadline <= now else { return }
        switch phase {
        case .done:
            newGame(now: now)
        case let .rolling(exchange, _):
            rollTimedOut(exchange, now: now)
        case .playing(ourTurn: true, _):
            // Our player's clock ran out: we give up for it, and say why (Protocol.md §9).
            show(.timeUp(yours: true, clock: .move))
            resign(now: now, message: .timeUp)
        case .playing(ourTurn: false, _):
            // The peer's daemon should have sent TIME_UP at its clock; past the grace it is
            // silent or modified. The game is ours, and the link closes (Protocol.md §9).
            show(.timeUp(yours: false, clock: .move))
            end(.won, line: nil, ending: .settled, now: now, how: .time)
            fail(GameFault(.timeout, "no MOVE within the \(agreedMoveTime) s move clock and \(Self.moveGrace) of grace: the game is forfeit"))
        case .beginning, .interrupted, .paused, .pausedRoll:
            break
        }
    }

    /// Gives the turn to a side, with its clock: ours exactly, the peer's with the grace margin.
    mutating func startClock(ourTurn: Bool, now: Instant) {
        guard agreedMoveTime > 0 else { return phase = .playing(ourTurn: ourTurn, clock: nil) }
        let clock = Duration.seconds(Int64(agreedMoveTime))
        phase = .playing(ourTurn: ourTurn, clock: now + (ourTurn ? clock : clock + Self.moveGrace))
    }

    // MARK: - Transitions

    private mutating func newGame(now: Instant) {
        let early: RollExchange
        switch phase {
        case let .beginning(e), let .done(_, e): early = e
        default: early = RollExchange()
        }
        board.removeAll() // keeps the board's line index: a rematch does not rebuild it
        moves.removeAll(keepingCapacity: true)
        piece = .empty
        agreedMoveTime = 0
        key = nil
        rollSecret = nil
        ourRound += 1
        record(.started(number: ourRound))
        if !quickRoll { emit(.send(.reset)) }
        // Keep a commitment the peer already sent for this game (it followed its RESET).
        var exchange = peerRound == ourRound ? RollExchange(keepingCommitmentOf: early) : RollExchange()
        exchange.quick = quickRoll
        exchange.commit(moveTime: moveTime, using: &rng, into: &actions)
        reveal(&exchange)
        phase = .rolling(exchange, deadline: now + Self.rollTimeout)
    }

    private mutating func receive(_ message: Message, now: Instant) {
        switch phase { case .interrupted, .paused, .pausedRoll: return; default: break } // no link to hear
        do throws(GameFault) {
            // A pattern, not ==: no full comparison of two messages.
            if case .reset = message, !quickRoll { return try receiveReset() }
            if quickRoll { try opensRound(message) }
            switch (peerRound - ourRound, phase) {
            case (0, .rolling(var exchange, let deadline)):
                try receiveRoll(message, &exchange, now: now, deadline: deadline)
            case (0, .playing):
                try receiveInGame(message, now: now)
            case (0, .done), (-1, _):
                let verdict = try crossing.receive(message)
                if case let .move(cell) = message { recordCrossed(Int(cell)) }
                if verdict == .draw { settleAsDraw() }
            case (1, .done(let at, var early)):
                try keepEarly(message, &early)
                phase = .done(rematchAt: at, early: early)
            case (1, .beginning(var early)):
                try keepEarly(message, &early)
                phase = .beginning(early: early)
            default:
                throw GameFault.rejecting(message, stateContext)
            }
        } catch {
            forfeitIfPeerCouldKnow(now: now) // breaking the protocol is one more way to leave
            fail(error)
        }
    }

    /// The peer ended the game (left, closed the link, broke the protocol). Once our roll is out
    /// it holds both secrets and knows who moves first, so ending the game then would pick the
    /// first move for free: it forfeits (Protocol.md §8). Before our reveal it knows nothing.
    private mutating func forfeitIfPeerCouldKnow(now: Instant) {
        let inRoll: Bool
        switch phase {
        case let .rolling(exchange, _) where exchange.revealed: inRoll = true
        case .playing: inRoll = false
        default: return
        }
        show(.left(yours: false, inRoll: inRoll))
        end(.won, line: nil, ending: .settled, now: now)
    }

    mutating func receiveInGame(_ message: Message, now: Instant) throws(GameFault) {
        switch (state, message) {
        case (.opponentTurn, .move(let wireCell)):
            let cell = Int(wireCell)
            do { try board.place(piece.opponent, at: cell) } catch {
                throw GameFault(.illegalMove, "illegal MOVE: \(error)")
            }
            moves.append(cell)
            record(.moved(number: moves.count, cell: cell, byUs: false))
            show(.opponentMoved(cell: cell))
            showBoard()
            if !finishIfOver(after: cell, ending: .theirMove, now: now) {
                startClock(ourTurn: true, now: now)
                show(.yourTurn)
            }
        case (.myTurn, .resign), (.opponentTurn, .resign):
            end(.won, line: nil, ending: .theirResign, now: now)
        case (.opponentTurn, .timeUp):
            // The peer's own clock ran out in its turn: a resignation that says why (§9).
            show(.timeUp(yours: false, clock: .move))
            end(.won, line: nil, ending: .theirResign, now: now, how: .time)
        default:
            throw GameFault.rejecting(message, stateContext)
        }
    }

    /// Why a message does not fit the state, in words (for the ERROR text).
    var stateContext: String {
        switch state {
        case .beginning, .rollingDice: "before the first move was decided"
        case .myTurn: "out of turn: it is our turn"
        case .opponentTurn: "in the peer's turn"
        case .done: "after the game ended"
        case .interrupted: "after the link failed"
        }
    }
}
