import TicTacEngine
import TicTacWire

/// What the player (terminal, plain mode, or the bot's log) is told: the one event type from the
/// daemon to every front. Most come from the daemon's core; the last group is said by the fronts'
/// own parts (the shell's startup, help, plain mode's announcers) in the same words.
public enum DaemonEvent: Sendable, Equatable {
    case peerFound(PeerInfo)
    case peerLost(PeerInfo, reason: String)
    /// A peer's state, name, addresses or sources changed.
    case peerUpdated(PeerInfo)
    case invited(by: PeerInfo, size: BoardSize)
    case inviteSent(to: PeerInfo)
    /// The other side withdrew its invitation (or it lapsed).
    case inviteCancelled(by: PeerInfo)
    case declined(by: PeerInfo, reason: DeclineReason)
    /// The peer's invitation lapsed unanswered (Protocol.md §6, INVITE: 30 s): our daemon
    /// declined it with `no-answer`, and our player may be invited again.
    case inviteExpired(by: PeerInfo)
    /// The peer's invitation waits behind the one our player is answering (Protocol.md §8): it
    /// is asked (`invited`) when its turn comes. `ahead`: invitations before it.
    case inviteHeld(by: PeerInfo, size: BoardSize, ahead: Int)
    /// A held invitation was declined `busy` unasked: our player started a game.
    case heldInviteDeclined(by: PeerInfo)
    case game(GameEvent, opponent: PeerInfo)
    /// The match with this opponent is over and the player is back in the lobby: `byUs` when our
    /// player left it, else the opponent did. The connection stays.
    case matchEnded(PeerInfo, byUs: Bool)
    /// The connection to the opponent of a match is gone ("Peer Disconnected!"; `leftReason`
    /// when the opponent said LEAVE). A game it forfeited by that was told just before.
    case disconnected(PeerInfo, reason: String)
    /// The link to the opponent was lost mid-game and the game is kept: it resumes if the
    /// peer is back within `window`, else it is adjourned (Protocol.md §13).
    /// `reason`: why the link was lost ("no answer for 5.0 seconds", a stop of our own).
    case gameInterrupted(PeerInfo, window: Duration, reason: String)
    /// The interrupted or adjourned game goes on (its start, board and turn follow), or, with
    /// `resigned`, the peer resigned it while apart (the game-over follows).
    /// `opponentMoved`: the peer made a move in it before the link was lost (the bot counts it).
    case gameResumed(PeerInfo, resigned: Bool, opponentMoved: Bool = false)
    /// The game stops waiting; it is offered again the next time both are present.
    case gameAdjourned(PeerInfo)
    /// The game cannot be resumed: it ends without a result.
    case gameVoid(PeerInfo, reason: String)
    /// The peer disowned a game we hold (it says it has no such game, or gives a move list that
    /// contradicts ours): it is ours by abandonment (the game-over follows).
    case gameAbandoned(PeerInfo, reason: String)
    /// A game past the adjourn limit was claimed: by us (`won`), or by the peer while our
    /// player was in another game (Protocol.md §13).
    case gameClaimed(PeerInfo, won: Bool, reason: String)
    /// Our claim was refused (the peer is back and free, or claimed too): the game goes on.
    case claimWithdrawn(PeerInfo, reason: String)
    /// An ERROR frame went out (`sent`) or came in; the link closes.
    case protocolError(PeerInfo?, code: ErrorCode, message: String, sent: Bool)
    /// A connection could not be set up ("Error Connecting").
    case connectFailed(String, reason: String)
    /// A game we watch, from the daemon that serves it (Protocol.md §14).
    case watched(WatchUpdate, from: PeerInfo)
    /// How many watch our games now (it changed): through our daemon and our opponents'.
    case watchers(Int)
    /// The opponent's player turned watching of its games with us off or on (SPECTATORS).
    case opponentSpectators(PeerInfo, allowed: Bool)

    /// Listening: our name, id and TCP port.
    case ready(name: String, id: ID128, port: UInt16)
    /// The lobby as it is now (the `peers` command).
    case peers([PeerInfo])
    /// A command could not be done, or the shell failed at something (not a peer's fault).
    case error(code: String, message: String)
    case help(String)
    /// Something the player should know that is not an error (the network came or went).
    case notice(String)
    /// Plain mode only (the full screen counts down itself): the game is over and the next one
    /// starts by itself in `seconds`; `new` starts it now and, when `lobby` is true, `lobby`
    /// ends the match instead (docs/plain-mode.md).
    case rematch(seconds: Int, lobby: Bool)
    /// Plain mode only (the full screen shows the clock itself): `seconds` are left for the move
    /// of our player (`yours`) or of the opponent.
    case moveClock(PeerInfo, yours: Bool, seconds: Int)
}

/// What a watcher hears from the player's daemon it asked (Protocol.md §14).
public enum WatchUpdate: Sendable, Equatable {
    /// The game as it is now (WATCHING): a new one, or the one asked for.
    case game(WatchedGame)
    /// Its next move (`number` from 1).
    case move(cell: Int, number: Int)
    case ended(WatchEnd)
    /// No more from this daemon (or a refusal).
    case stopped(WatchStopReason)
    /// The daemon's games in play (the answer to WATCH list).
    case games([ListedGame])
}

extension DaemonEvent {
    /// The `disconnected` reason of a peer that said LEAVE: it left cleanly, and a front may
    /// say just that ("ben left") rather than "Peer Disconnected!".
    public static func leftReason(_ name: String) -> String { "\(name) left" }
}
