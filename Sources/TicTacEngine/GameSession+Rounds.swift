import TicTacWire

// Rounds (Protocol.md §8, "Rounds and crossing messages"): each side counts the games it
// started and the games the peer started, so a message from a finished game is told apart.
extension GameSession {
    /// The peer started the next game first: its commitment is kept for ours.
    func keepEarly(_ message: Message, _ early: inout RollExchange) throws(GameFault) {
        guard case let .rollCommit(c, moveTime) = message, early.keepEarly(c, moveTime: moveTime) else {
            throw GameFault.rejecting(message, "before our next game started")
        }
    }

    /// With quick rolls the peer's ROLL_COMMIT opens its round, as its RESET does without; a
    /// RESET or ROLL_ACK is never sent, so one received is refused (Protocol.md §8).
    mutating func opensRound(_ message: Message) throws(GameFault) {
        switch message {
        case .rollCommit:
            switch (peerRound + 1 - ourRound, phase) {
            case (0, .rolling), (1, .done), (1, .beginning): try receiveReset()
            default: throw GameFault.rejecting(message, stateContext)
            }
        case .reset, .rollAck:
            throw GameFault(.unexpectedMessage, "unexpected \(message.kind): this link rolls without RESET and ROLL_ACK")
        default:
            break
        }
    }

    /// RESET opens the peer's next round: it is the peer's "new game" (Protocol.md §8). Anywhere
    /// else it is a fault, and like any fault after our reveal the peer's forfeit.
    mutating func receiveReset() throws(GameFault) {
        peerRound += 1
        switch (peerRound - ourRound, phase) {
        case (0, .rolling):
            break // the peer joins the game we started
        case (1, .done(let at, _)):
            phase = .done(rematchAt: at, early: RollExchange()) // the peer starts the next game before us
        case (1, .beginning):
            phase = .beginning(early: RollExchange())
        default:
            throw GameFault(.unexpectedMessage, "RESET in state \(state)")
        }
    }
}
