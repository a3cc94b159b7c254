import TicTacAPI
import TicTacEngine
import TicTacWire

/// The full screen's game events: the board, whose turn and its clock, the opponent's last
/// move, and how a game ended.
extension FullScreenModel {
    mutating func apply(_ event: GameEvent, opponent: Opponent) {
        switch event {
        case let .gameStarted(piece, first, size):
            if scoreOpponent != opponent.id { score = Score() }
            scoreOpponent = opponent.id
            if game?.size != size || !(0..<size.cellCount).contains(cursor) {
                cursor = (size.rows / 2) * size.cols + size.cols / 2
            }
            game = Game(opponent: opponent, piece: piece, board: Board(size: size),
                        phase: first ? .yourTurn : .opponentTurn, lastMove: nil, moveTime: pendingMoveTime)
            incoming = nil
            outgoing = nil
            cellEntry = nil
            confirm = nil
            countdown = nil
            let said = [carriedNote, rolls].compactMap { $0 }
            notice = carriedNote == nil ? nil : Notice(text: said.joined(separator: ". "), tone: .info) // until the first move
            game?.rolls = rolls // under the board until our own first move (`shownNotice`)
            rolls = nil
            carriedNote = nil
        case let .rolls(yours, theirs, moveTime):
            let clock = moveTime > 0 ? "\(moveTime) s per move" : "no move clock"
            rolls = "\(hotSeat ? "\(playerOne) rolled" : "You rolled") \(yours), \(opponent.name) rolled \(theirs); \(clock)"
            pendingMoveTime = moveTime
        case let .timeUp(yours, clock):
            game?.ending = .time(yours: yours)
            notice = Notice(text: OutputFormatter.timeUpText(yours: yours, clock: clock, opponent: opponent.name), tone: .alert)
        case let .left(yours, inRoll):
            game?.ending = .left(yours: yours)
            notice = Notice(text: OutputFormatter.leftText(yours: yours, inRoll: inRoll, opponent: opponent.name), tone: .alert)
        case .yourTurn:
            game?.phase = .yourTurn
            startClock()
        case .opponentTurn:
            game?.phase = .opponentTurn
            startClock()
        case let .turnClock(seconds):
            game?.clockLeft = seconds
        case let .opponentMoved(cell):
            game?.lastMove = cell
        case let .board(board):
            guard game != nil else { return }
            game?.board = board
            if !(0..<board.size.cellCount).contains(cursor) { cursor = 0 }
            if notice?.tone != .alert { notice = nil }
        case let .gameOver(result, line, resigned):
            game?.phase = .over(result, line: line ?? [], resigned: resigned)
            game?.clockLeft = nil
            // As after a move: a game resigned before any move still showed its rolls.
            if notice?.tone != .alert { notice = nil }
            confirm = nil
            countdown = rematchSeconds
        case let .score(s):
            score = s
            scoreOpponent = opponent.id
        case .interrupted:
            game = nil
            notice = Notice(title: Self.disconnectedTitle, text: Self.disconnectedText, tone: .alert)
        }
    }

    /// The notice on screen: the notice, else the game's rolls until our first piece is on the
    /// board, so a second mover still reads them after a quick first move (a bot's).
    var shownNotice: Notice? {
        if let notice { return notice }
        guard let game, let rolls = game.rolls, !game.board.cells.contains(game.piece) else { return nil }
        if case .over = game.phase { return nil }
        return Notice(text: rolls, tone: .info)
    }

    /// The turn changed: its clock starts, when the game has one.
    private mutating func startClock() {
        guard let moveTime = game?.moveTime, moveTime > 0 else { return }
        game?.clockLeft = moveTime
    }

    /// The opponent of the game on screen is gone (`reason`, worded for the player). A finished
    /// game stays, with its result, until the player moves on (any key); one in progress goes.
    /// True when the game stays.
    mutating func opponentGone(_ p: PeerInfo, reason: String) -> Bool {
        guard let game, game.opponent.id == p.id, case .over = game.phase else { return false }
        self.game?.gone = reason
        countdown = nil
        confirm = nil
        return true
    }

    /// The clock shown beside whose turn it is: always when a move has under a minute, else in
    /// its last 10 seconds; nil without a clock.
    var clockText: String? {
        guard let game, let left = game.clockLeft, game.moveTime > 0 else { return nil }
        return left >= 60 ? "\(left / 60):\(left % 60 < 10 ? "0" : "")\(left % 60)" : "\(left) s"
    }

    /// The last 10 s of a running move clock: the status line says them in a warning colour.
    var clockRunningOut: Bool {
        guard let game, let left = game.clockLeft, game.moveTime > 0 else { return false }
        switch game.phase {
        case .yourTurn, .opponentTurn: return left <= 10
        case .rolling, .over: return false
        }
    }

    /// "ben played c3" (3 x 3: "ben played 5") while the game goes on.
    var lastMoveText: String? { lastMove.map { "\($0.who) played \($0.cell)" } }

    /// Who made the last move and its cell's name, while the game goes on.
    var lastMove: (who: String, cell: String)? {
        guard let game, let cell = game.lastMove else { return nil }
        if case .over = game.phase { return nil }
        return (game.opponent.name, game.size == .classic ? String(cell + 1) : CellName.name(cell, on: game.size))
    }
}
