import TicTacAPI
import TicTacEngine
import TicTacTime
import TicTacWire

// A link's state is two enums, one for the handshake and one for what the link carries, plus
// why it is closing. A combination the protocol has no name for cannot be written.
//
// Handshake (Protocol.md §4; the duplicate-link rule, §4 "Duplicate links"):
//
// | state             | event                                          | then                                  |
// |-------------------|------------------------------------------------|---------------------------------------|
// | (opened)          | -                                              | send HELLO: awaitingHello             |
// | awaitingHello     | HELLO: a common version, the key gives the id  | awaitingProof (the dialler proves)    |
// | awaitingHello     | HELLO, version 2: field 8 gives a shared secret| (keys made, not yet used)             |
// | awaitingProof     | PROOF verifies; no other ready link to the peer| (the acceptor proves) ready, announced|
// |                   |                                                | : peer-found (an heir: quietly, and   |
// |                   |                                                | our moved invitation is sent again)   |
// | awaitingProof     | PROOF verifies; another ready link, our id is  | close it at once: nothing but the     |
// |                   | the lower                                      | handshake went on it                  |
// | awaitingProof     | PROOF verifies; another ready link, our id is  | ready, a spare (not announced, unused)|
// |                   | the higher                                     |                                       |
// | awaitingProof     | the announced link to that peer closes         | heir: it takes over once ready        |
// | ready, spare      | the announced link to that peer closes         | announced (takes over, quietly)       |
// | not ready         | anything else but ERROR                        | ERROR, close                          |
// | not ready         | `handshakeTimeout` (5 s) since opened          | ERROR `timeout`, close                |
// | ready, version 2  | every frame after the PROOFs                   | sealed; one that does not open: close |
// |                   |                                                | at once, nothing sent                 |
// | ready             | `pingAfter` (1 s) of silence                   | PING                                  |
// | any               | `deadAfter` (5 s) of silence                   | ERROR `timeout`, close                |
//
// Activity, on a ready link (Protocol.md §8, "The lobby: what each connection state accepts"):
//
// | state            | event                                         | then                            |
// |------------------|-----------------------------------------------|---------------------------------|
// | idle             | our player (or bot) invites                   | send INVITE: inviting           |
// | idle             | INVITE, we are free                           | invited (a bot accepts: playing)|
// | idle             | INVITE, our player busy on any link           | send DECLINE `busy`: idle       |
// | inviting         | ACCEPT with its id                            | playing                         |
// | inviting         | DECLINE with its id                           | idle                            |
// | inviting         | CANCEL by our player / 30 s without answer    | send CANCEL: idle, ignoring     |
// | inviting         | crossing INVITE (on any link to the peer),    | ACCEPT it: playing; ours is     |
// |                  | the peer's id is lower                        | dropped (another link: ignoring)|
// | inviting         | crossing INVITE, our id is lower              | ignore it: inviting             |
// | inviting         | the link closes, another link to the peer     | moved there (sent again once    |
// |                  | carries on and is idle                        | that one is ready)              |
// | invited          | our player accepts / invites the inviter      | send ACCEPT: playing            |
// | invited          | our player declines                           | send DECLINE: idle              |
// | invited          | CANCEL with its id                            | idle                            |
// | invited          | 32 s without answer                           | send DECLINE `no-answer`: idle  |
// | playing          | CANCEL with its id                            | idle (the score is kept)        |
// | playing          | our player leaves the match                   | send CANCEL: idle, ignoring     |
// | playing          | the link closes                               | the game ends (disconnected)    |
// | invited          | the link closes, the peer stays               | the invitation is withdrawn     |
//
// "Ignoring": game frames the peer sent before it heard our CANCEL are dropped, not answered
// with ERROR, until the next game starts on the link (`ignoreGameFrames`, Protocol.md §6 CANCEL).
//
// Closing (`closeReason` set) is orthogonal: a closing link keeps its handshake and activity so
// that `linkClosed` can tell the player what ended with it; it sends and accepts nothing more.

/// One connection's state. A class: it is mutated where it lives, never copied out and written
/// back. Its activity changes only through `LinkRegistry.setActivity`, which keeps the seat.
final class Link {
    let id: LinkID
    let outgoing: Bool
    let address: String
    let port: UInt16?
    let openedAt: Instant
    /// When it was last heard and pinged; when it next needs the timer.
    var liveness: LinkLiveness
    /// The handshake, the proven peer and the keys (Protocol.md §4).
    var session: LinkSession
    /// What the link carries; only a ready link carries anything.
    fileprivate(set) var activity: Activity = .idle
    /// The peer's invitation held, unanswered, while our player answers another one: it becomes
    /// the link's activity when its turn comes (Invitations, Protocol.md §8). Only an idle link holds one.
    var heldInvite: Invitation?
    /// We withdrew an invitation the peer may have accepted, or left the match: its game
    /// frames still in flight are ignored until the next game starts (Protocol.md §6, CANCEL).
    /// Read only while not playing; a game starting clears it.
    var ignoreGameFrames = false
    /// The match our player left right after its game ended: a MOVE or RESIGN that crossed our
    /// resignation may still come, and was made, so it is recorded (Protocol.md §8, crossings).
    var leftMatch: Match?
    /// Why we are closing it (for the player: a protocol fault's text); nil while open.
    var closeReason: String?
    /// The peer sent LEAVE: it ended the link itself.
    var peerLeft = false
    /// It closes for a protocol fault (ours or the peer's ERROR other than `timeout`): its game
    /// is not kept to resume.
    var faulted = false
    /// What the peer sent within the current second (the flood limits), and RESUMEs heard.
    var floods = LinkFloods()
    /// Watching of the games on this link: what each side's player chose (Protocol.md §14).
    var watchChoice = WatchChoice()

    init(id: LinkID, outgoing: Bool, address: String, port: UInt16?, openedAt: Instant, nonce: ID128,
         ephemeral: EphemeralKey? = nil) {
        self.id = id
        self.outgoing = outgoing
        self.address = address
        self.port = port
        self.openedAt = openedAt
        liveness = LinkLiveness(lastHeard: openedAt)
        session = LinkSession(nonce: nonce, ephemeral: ephemeral)
    }

    var closing: Bool { closeReason != nil }

    // The handshake, read (LinkSession).

    var peer: PeerInfo? { session.peer }
    var version: UInt8? { session.version }
    var ready: Bool { session.ready }
    var announced: Bool { session.announced }
    var peerHello: Hello? { session.peerHello }
    var peerID: ID128? { session.peerID }
    var provenID: ID128? { session.provenID }
    var claimedID: ID128? { session.claimedID }
    var heir: PeerInfo? { session.heir }
    func announce() { changeSession { $0.announce() } }
    func inherit(_ peer: PeerInfo) { changeSession { $0.inherit(peer) } }
    /// Version 2, ready: the frame's keys are in use.
    var sealed: Bool { session.cipher != nil }

    // `session` is changed through a copy written back, so no access to it spans a call; the
    // compiler then proves every access to it exclusive and checks none at run time
    // (docs/performance.md, "Exclusivity"). Nothing the change calls reads the link.
    func changeSession(_ change: (inout LinkSession) -> Void) {
        var copy = session
        change(&copy)
        session = copy
    }

    /// Seals a frame encoded into `bytes` once the link has its session keys (Protocol.md §4);
    /// false when the key's frame counter is spent.
    func seal(_ bytes: inout [UInt8]) -> Bool {
        guard var cipher = session.cipher else { return true }
        let sealed = cipher.seal(&bytes, frameAt: 0)
        session.cipher = cipher // the counter moved
        return sealed
    }

    /// The plain frame inside a sealed one, or nil when it does not open (LinkCipher.open).
    func open(_ frame: Frame, reusing buffer: inout [UInt8]) -> Frame? {
        guard var cipher = session.cipher else { return nil }
        let plain = cipher.open(frame, reusing: &buffer)
        session.cipher = cipher
        return plain
    }

    // The activity, read.

    var isIdle: Bool { if case .idle = activity { true } else { false } }
    /// Our invitation waiting for an answer.
    var outgoingInvite: Invitation? { if case let .inviting(invite) = activity { invite } else { nil } }
    /// The peer's invitation waiting for our answer.
    var incomingInvite: Invitation? { if case let .invited(invite) = activity { invite } else { nil } }
    /// The match in play.
    var match: Match? { if case let .playing(match) = activity { match } else { nil } }
    /// The game in play (a copy: mutate it through `match`).
    var game: GameSession? { match?.game }
}

/// Where a link's handshake is (Protocol.md §4).
enum HandshakeState {
    /// Our HELLO is sent; the peer's has not come.
    case awaitingHello
    /// The peer's HELLO is in and the version negotiated; its PROOF is awaited. `heir`: the
    /// peer of an announced link that closed meanwhile (this link takes over from it).
    case awaitingProof(Hello, version: UInt8, heir: PeerInfo?)
    /// The peer proved its id. `announced`: the link we use for it; else a spare
    /// (Protocol.md §4, duplicate links).
    case ready(PeerInfo, version: UInt8, announced: Bool)
}

/// What a ready link carries (Protocol.md §8, the lobby's states).
enum Activity {
    case idle
    /// Our INVITE waits for an answer.
    case inviting(Invitation)
    /// The peer's INVITE waits for our player's answer.
    case invited(Invitation)
    case playing(Match)
}

/// An invitation either way: its game id, board, and when it was sent or came. Ours
/// unanswered for `inviteTimeout` is withdrawn; the peer's, after `inviteTimeout` +
/// `inviteGrace`, lapses (DECLINE `no-answer`; Protocol.md §6, INVITE).
struct Invitation {
    let id: ID128
    let size: BoardSize
    let at: Instant
}

extension GameFactRecord {
    /// `fact` of the game `match` plays, against `peer`.
    init(_ fact: GameFact, of match: Match, peer: ID128, peerName: String, number: Int? = nil) {
        self.init(peer: peer, peerName: peerName, match: match.id, size: match.game.size, number: number ?? match.game.round,
                  key: match.game.resumeKey, fact: fact)
    }
}

/// An accepted invitation in play. A class, so the game is mutated where it lives.
final class Match {
    /// The accepted invitation's game id: CANCEL naming it ends the match.
    let id: ID128
    var game: GameSession
    /// The match's last game that ended with a key: the peer may not have read how (its last
    /// MOVE, RESIGN or TIME_UP was lost with the link), and asks in RESUME (Protocol.md §13).
    private(set) var lastEnded: EndedGame?

    init(id: ID128, game: GameSession) {
        self.id = id
        self.game = game
    }

    /// Keeps the game as it ended, before a rematch clears it (a resignation of ours stays told
    /// as one when a crossing RESIGN makes the game a draw: the peer settles it alike).
    func noteEnd() {
        guard game.state == .done, let key = game.key, lastEnded?.key != key else { return }
        lastEnded = EndedGame(key: key, moves: game.moves, weMovedFirst: game.piece == .o,
                              resignedByUs: game.endedByOurResignation, match: id, size: game.size, number: game.round,
                              claim: game.lastHow != .claimed ? nil : game.lastResult == .won ? .ours : .theirs,
                              secret: game.rolledQuickly ? game.resumeSecret : nil)
    }
}

extension LinkRegistry {
    /// The one way a link's activity changes (here, beside `Link`, for its `fileprivate(set)`):
    /// the player's seat and the game count follow it.
    func setActivity(_ link: Link, _ activity: Activity) {
        if link.match != nil { gameCount -= 1 }
        link.activity = activity
        if link.match != nil { gameCount += 1 }
        seatFollows(link.id, activity)
    }
}

/// Events counted per second from the first of each second (a flood limit).
struct RateWindow {
    private var start: Instant?
    private var count = 0

    /// Counts one event at `now`: false once more than `limit` came within one second.
    mutating func count(now: Instant, limit: Int) -> Bool {
        if let start, now - start < .seconds(1) {
            count += 1
            return count <= limit
        }
        start = now
        count = 1
        return true
    }

    /// Its second is over at `now` (an entry that can be forgotten).
    func isOver(at now: Instant) -> Bool { start.map { now - $0 >= .seconds(1) } ?? true }
}

/// `RateWindow`s per source address: a budget shared by every link from one host.
struct AddressBudget {
    private var windows: [String: RateWindow] = [:]

    /// Counts one event from `address`: false once more than `limit` came within one second.
    mutating func count(_ address: String, now: Instant, limit: Int) -> Bool {
        if windows.count >= 1024 { windows = windows.filter { !$0.value.isOver(at: now) } } // bounded
        return windows[address, default: RateWindow()].count(now: now, limit: limit)
    }
}
