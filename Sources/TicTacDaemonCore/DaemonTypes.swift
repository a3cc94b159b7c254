import TicTacAPI
import TicTacDiscoveryCore
import TicTacEngine
import TicTacWire

/// Identifies one connection inside a daemon.
public typealias LinkID = Int

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
    /// Append this link's traffic keys to the key log (`DaemonConfig.logsKeys`, `--key-log`).
    case keys(LinkKeys)
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
