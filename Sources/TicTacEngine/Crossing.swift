import TicTacWire

extension GameFault {
    /// A message that does not fit where the game is: `context` says where, in words.
    static func rejecting(_ message: Message, _ context: String) -> GameFault {
        if case .move = message { return GameFault(.illegalMove, "MOVE \(context)") }
        return GameFault(.unexpectedMessage, "unexpected \(message.kind) \(context)")
    }
}

/// Messages the peer sent before it saw the end of the game we finished last: they crossed our
/// final MOVE or our RESIGN on the wire. Neither side can tell which came first, so both settle
/// on the same result (Protocol.md §8, "Crossing messages"): a RESIGN crossing our winning move
/// changes nothing; two crossing RESIGNs, or a RESIGN crossing a drawing move, make a draw.
struct Crossing {
    /// How a game ended, as far as crossing messages care.
    enum Ending { case ourMove, theirMove, ourResign, theirResign, settled }

    /// What a crossing message changes.
    enum Verdict { case nothing, draw }

    /// How the last game ended; nil before any did.
    private(set) var lastEnding: Ending?
    /// The board when we resigned in the peer's turn, and the peer's piece: only then may a peer
    /// MOVE have crossed our RESIGN (resigning in our own turn, no peer MOVE can be in flight).
    private var atResign: (board: Board, theirPiece: Piece)?

    /// A game ended. `resignedIn`: the board and the peer's piece when we resigned in its turn.
    mutating func ended(_ ending: Ending, resignedIn: (board: Board, theirPiece: Piece)? = nil) {
        lastEnding = ending
        atResign = ending == .ourResign ? resignedIn : nil
    }

    /// A message from the round we already finished.
    mutating func receive(_ message: Message) throws(GameFault) -> Verdict {
        switch (lastEnding, message) {
        case (.ourResign, .move(let wireCell)):
            // The peer moved before it saw our RESIGN: it sees the game as that move left it.
            guard var final = atResign?.board, let theirs = atResign?.theirPiece else {
                throw .rejecting(message, "out of turn: we resigned in our own turn")
            }
            do { try final.place(theirs, at: Int(wireCell)) } catch {
                throw GameFault(.illegalMove, "illegal MOVE: \(error)")
            }
            atResign = nil // at most one move can cross a RESIGN
            if case .draw = final.outcome { return settle() } // the peer saw a draw, not our RESIGN
            return .nothing
        case (.ourResign, .resign):
            return settle() // both resigned at once
        case (.ourResign, .timeUp) where atResign != nil:
            return settle() // we resigned in the peer's turn, as its clock ran out: both gave up
        case (.ourMove, .resign):
            lastEnding = .settled // the peer resigned before it saw our final move; ours stands
            return .nothing
        default:
            throw .rejecting(message, lastEnding == nil ? "before the first move was decided" : "after the game ended")
        }
    }

    private mutating func settle() -> Verdict {
        lastEnding = .settled
        atResign = nil
        return .draw
    }
}

extension GameSession {
    /// The peer's MOVE crossed our RESIGN (Crossing let it through): it was made, so both
    /// histories keep it, and the game has one move list on both sides (Protocol.md §13).
    mutating func recordCrossed(_ cell: Int) {
        lastMoveCount += 1
        record(.moved(number: lastMoveCount, cell: cell, byUs: false), ofLastGame: true)
    }

    /// A MOVE or RESIGN that crossed our resignation arrived after our player left the match:
    /// settled as in the game (the move kept, or a draw), nothing sent.
    public mutating func crossedAfterLeaving(_ message: Message) {
        guard let verdict = try? crossing.receive(message) else { return }
        if case let .move(cell) = message { recordCrossed(Int(cell)) }
        if verdict == .draw { settleAsDraw() }
    }
}
