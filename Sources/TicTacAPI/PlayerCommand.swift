import TicTacEngine
import TicTacWire

/// Commands from the player.
public enum PlayerCommand: Sendable, Equatable {
    /// A peer by name (case-insensitive) or by id (32 hex digits, or a unique prefix of 4 or more).
    case invite(String)
    case accept
    case decline
    case cancel
    /// End the running match and go back to the lobby (the connection stays). A game in play
    /// is given up first (RESIGN: a loss), as `new` does; a roll whose peer reveal is in, too.
    case leaveMatch
    /// 0-based cell.
    case move(Int)
    case new
    case resign
    /// Sends WATCH to a peer (a name or id, as `invite`), dialling it first when needed
    /// (Protocol.md §14); what it answers comes as `DaemonEvent.watched`.
    case watch(String, Watch)
    /// Our player allows watchers of its games, or not (off stops those watching now).
    case spectators(Bool)
}

/// A command that cannot be carried out; nothing changed.
public enum CommandError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchPeer(String)
    case ambiguous(String, [PeerInfo])
    /// `accept` or `decline` with no invitation waiting.
    case noInvitation
    /// `cancel` with no invitation of ours waiting.
    case nothingToCancel
    case alreadyInvited
    /// `invite` while another peer's invitation (this name's) waits for our answer.
    case answerFirst(String)
    case busy
    case notInGame
    case game(GameCommandError)
    /// `watch` names a peer that serves no watchers (no `spectators` capability).
    case noSpectators(String)

    public var code: String {
        switch self {
        case .noSuchPeer: "no-such-peer"
        case .ambiguous: "ambiguous-peer"
        case .noInvitation, .nothingToCancel: "no-invitation"
        case .answerFirst: "invitation-waiting"
        case .alreadyInvited: "already-invited"
        case .busy: "busy"
        case .notInGame: "no-game"
        case .noSpectators: "no-spectators"
        case let .game(e):
            switch e {
            case .notYourTurn: "not-your-turn"
            case .illegal: "illegal-move"
            case .noGame: "no-game"
            }
        }
    }

    public var description: String {
        switch self {
        case let .noSuchPeer(s): "no peer called '\(s.prefix(64))' (type 'peers' to list them)"
        case let .ambiguous(s, peers):
            "'\(s.prefix(64))' could be " + peers.map { "\($0.name) (\($0.id.description.prefix(8)))" }.joined(separator: " or ") + ": use the id"
        case .noInvitation: "no invitation to answer"
        case .nothingToCancel: "you have no invitation waiting to withdraw"
        case .alreadyInvited: "your invitation is still waiting for an answer (cancel withdraws it)"
        case let .answerFirst(name): "answer \(name.prefix(64))'s invitation first (accept or decline)"
        case .busy: "finish the current game first"
        case .notInGame: "no game in progress"
        case let .noSpectators(name): "\(name.prefix(64)) serves no watchers"
        case let .game(e): e.description
        }
    }
}
