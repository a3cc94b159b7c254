import TicTacDiscoveryCore
import TicTacEngine
import TicTacWire

/// Identifies one connection inside a daemon.
public typealias LinkID = Int

/// A peer in the lobby: seen on the LAN (discovery), connected to (a link that finished its
/// handshake), or both.
public struct PeerInfo: Sendable, Equatable, Hashable {
    public var id: ID128
    public var name: String
    /// Where it can be reached: every address discovery saw, else the one its link came from.
    public var addresses: [String]
    /// Its listening port, when known (announced, or we dialled it).
    public var port: UInt16?
    public var capabilities: Capabilities
    /// What it says it is doing (discovery); idle for a peer only known by its link.
    public var state: PresenceState
    /// How discovery knows it; empty for a peer only known by a link.
    public var via: PeerSources
    /// The program playing under its name, when it says (HELLO field 9, ANNOUNCE field 13).
    public var program: String?

    public init(id: ID128, name: String, addresses: [String], port: UInt16?, capabilities: Capabilities,
                state: PresenceState = .idle, via: PeerSources = [], program: String? = nil) {
        self.program = program
        self.id = id
        self.name = name
        self.addresses = addresses
        self.port = port
        self.capabilities = capabilities
        self.state = state
        self.via = via
    }

    public init(id: ID128, name: String, address: String, port: UInt16?, capabilities: Capabilities,
                program: String? = nil) {
        self.init(id: id, name: name, addresses: [address], port: port, capabilities: capabilities, program: program)
    }

    /// The address to show a person: the first (the one a link came from, or the most recently
    /// heard) that is not IPv6 link-local, which means nothing without its interface and reads
    /// worse than the IPv4 address discovery also saw; else the first. Dialling uses `addresses`.
    public var address: String { addresses.first { !Self.isLinkLocalIPv6($0) } ?? addresses.first ?? "" }

    /// fe80::/10, as text ("fe80::1%2").
    static func isLinkLocalIPv6(_ address: String) -> Bool {
        let a = address.lowercased()
        return a.contains(":") && ["fe8", "fe9", "fea", "feb"].contains { a.hasPrefix($0) }
    }
}

/// What the player (terminal, plain mode, or the bot's log) is told.
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
    case gameResumed(PeerInfo, resigned: Bool, opponentMoved: Bool)
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
    /// How many watch our games now (it changed).
    case watchers(Int)
    /// The opponent's player turned watching of its games with us off or on (SPECTATORS).
    case opponentSpectators(PeerInfo, allowed: Bool)
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

/// What the I/O shell must do.
public enum DaemonAction: Sendable, Equatable {
    case send(LinkID, [UInt8])
    /// Close the link; with `flush`, after queued bytes (an ERROR, a LEAVE) are written.
    case close(LinkID, flush: Bool)
    /// Open a link to a peer discovery knows (someone invited it); `dialFailed` if it fails.
    case dial(ID128, addresses: [String], port: UInt16)
    case event(DaemonEvent)
    /// A line for the operator's log (stderr), not the player: a stranger's bad input, an
    /// automatic action that failed. Never shown by the front.
    case log(String)
    /// Store this in the history before carrying out the actions after it (a move is stored
    /// before its frame leaves). Only when `DaemonConfig.keepsHistory`.
    case record(GameFactRecord)
    /// Run this bot search off the loop's thread and give the result to `botMoveReady` (one is
    /// handed out at a time; the next waits for that answer).
    case think(BotSearchJob)
    /// The link's unsent output may hold at most `maxBytes` from now on; past it the shell
    /// closes the link (a watcher that does not read, Protocol.md §14).
    case boundQueue(LinkID, maxBytes: Int)
    /// Ask the external engine for a move, or stop a match's engine (`DaemonConfig.engine`);
    /// a turn is answered with `engineAnswered`. Turns of different links run side by side.
    case engine(EngineRequest)
}

/// An unfinished game rebuilt from the history (`DaemonConfig.restored`).
public struct RestoredGame {
    public var peer: PeerInfo
    /// Its match's id (the accepted invitation's).
    public var match: ID128
    /// Paused (`GameSession(restoring:...)`).
    public var game: GameSession
    /// We claimed it (our history holds it won): the claim is offered until the peer answers.
    public var claimed: Bool

    public init(peer: PeerInfo, match: ID128, game: GameSession, claimed: Bool = false) {
        self.peer = peer
        self.match = match
        self.game = game
        self.claimed = claimed
    }
}

/// A finished game rebuilt from the history (`DaemonConfig.restoredEnds`).
public struct RestoredEnd {
    public var peer: ID128
    public var game: EndedGame

    public init(peer: ID128, game: EndedGame) {
        self.peer = peer
        self.game = game
    }
}

/// A game fact with the match it belongs to (`DaemonAction.record`).
public struct GameFactRecord: Sendable, Equatable {
    public var peer: ID128
    /// The name the peer proved its id under.
    public var peerName: String
    /// The accepted invitation's id.
    public var match: ID128
    public var size: BoardSize
    /// The game number within the match this fact is about (1 for the first).
    public var number: Int
    /// The game's key (`GameKey`) once its roll decided: what the history knows the game by.
    public var key: ID128?
    public var fact: GameFact

    public init(peer: ID128, peerName: String, match: ID128, size: BoardSize, number: Int, key: ID128? = nil, fact: GameFact) {
        self.peer = peer
        self.peerName = peerName
        self.match = match
        self.size = size
        self.number = number
        self.key = key
        self.fact = fact
    }
}

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

/// What the shell tells the core.
public enum DaemonInput: Sendable {
    /// A connection is up (accepted, or our connect completed).
    case linkOpened(LinkID, outgoing: Bool, address: String, port: UInt16?)
    /// A frame arrived on a link.
    case frame(LinkID, Frame)
    /// The stream decoder refused a link's bytes.
    case decodeFailed(LinkID, WireError)
    /// The connection is gone (EOF, reset, write queue overflow, or our own close).
    case linkClosed(LinkID, reason: String)
    /// The history could not store the facts of these peers' games (a full disk): the shell
    /// sent none of that turn's frames to them (Protocol.md §13: a move is stored before it is sent).
    case historyFailed(Set<ID128>)
    /// Discovery saw a peer appear, change or go.
    case presence(DiscoveryEvent)
    /// A `dial` action ended without a link (every address refused or timed out).
    case dialFailed(ID128, reason: String)
    /// A search handed out with `think` is done.
    case botMoveReady(BotSearchResult)
    /// The engine host's answer to an `engine(.turn)` action.
    case engineAnswered(EngineAnswer)
    /// Our own loop could not run for this long (the process was stopped: Ctrl-Z, SIGSTOP; or
    /// starved): the peers' silence meanwhile was ours, so no link is judged before one PING
    /// round from now, and a link lost in that round is said to be lost to the stop.
    case stalled(Duration)
}

/// Where a link stands (`DaemonCore.linkProgress`): its handshake running, done (the peer it
/// proved to be), or the link closed (or never known).
public enum LinkProgress: Sendable, Equatable {
    case handshaking
    case proven(PeerInfo)
    case closed
}
