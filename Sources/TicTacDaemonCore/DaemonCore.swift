import TicTacAPI
import TicTacDiscoveryCore
import TicTacEngine
import TicTacTime
import TicTacWire

// Theory of operation
//
// DaemonCore is the whole daemon without I/O: every connection ("link") with its handshake,
// liveness, invitations and game, driven by inputs that carry the current time and drained as
// actions (bytes to send, links to close, events for the player). The I/O shell (Daemon) owns
// the sockets and the reactor and does exactly what the actions say.
//
// It is a facade over parts, each in its own file: LinkRegistry (links by id and by peer, the
// human's Seat), Handshake (HELLO/PROOF, Protocol.md §4), Lobby (presence merged with links,
// scores), Invitations (INVITE/ACCEPT/DECLINE/CANCEL, dials, the one-game rule), Matches (games
// and the bot's moves, with BotScheduler), LinkDeadlines (timers), Outbox (actions, faults).
// What stays here is what crosses parts: a link's life from open to close.
//
// A link's life (Link.swift has its states and transitions as tables): opened -> both sides
// send HELLO -> the dialler sends PROOF, the acceptor checks it and sends its own -> ready once
// the peer's PROOF verifies -> closed. While ready: PING after `pingAfter` of silence, dead
// after `deadAfter`; after a stall of our own loop (`stalled`: the process was stopped) every
// link is PINGed and nothing is judged for one round, since the silence was ours. Any protocol
// fault sends ERROR and closes the link; the daemon and its other links carry on.
//
// Presence is not a link. A link is opened only when our player invites a peer we have no link
// to (the `dial` action; the invitation goes out once the handshake is done) or when a peer
// dials us.
//
// Two tie-breaks keep both daemons in agreement without another round trip:
// - two ready links to one peer (both dialled at once, a retry landing late; Protocol.md §4,
//   duplicate links): the side with the lower instance id closes the newer one the moment it is
//   ready, before using it; the higher side keeps every link until then, uses the first, and
//   moves its own pending invitation to the survivor. A running game is never on the link closed.
// - two INVITEs crossing (on one link or two): the invitation of the lower instance id stands.

/// The daemon's sans-I/O core (see the theory of operation above).
public final class DaemonCore: SansIOCore {
    public let config: DaemonConfig
    /// How long a dial may take to end in a handshaken link (connect, HELLO) before we give up.
    public static let dialTimeout: Duration = .seconds(10)
    /// An incoming invitation lapses this long after the inviter's own deadline, so the
    /// inviter's CANCEL normally settles it first (Protocol.md §6, INVITE: 30 s, then 32 s).
    public static let inviteGrace: Duration = .seconds(2)

    let links: LinkRegistry
    let deadlines: LinkDeadlines
    let outbox: Outbox
    let random: CoreRandom
    let handshake: Handshake
    let lobby: Lobby
    let matches: Matches
    /// The bot playing under our name (`Player.bot`): the parts ask it where they would ask a
    /// human. Nil for a human.
    let bot: BotPlayer?
    let invitations: Invitations
    let suspensions: Suspensions
    let spectators: Spectators
    let watching: Watching
    /// The parts that own a message set of their own (MessagePart): a new set is listed here.
    let messageParts: MessageParts
    /// The state `presenceChanged()` last returned.
    private var reportedPresence: PresenceState?
    /// The buffer sealed frames are opened into, kept from frame to frame (`linkReceived`).
    var openedSpare: [UInt8] = []
    /// After a stall of our own loop (`DaemonInput.stalled`), if any.
    var stall: Stall?
    /// PINGs per source address in the current second (`maxPingsPerAddressPerSecond`).
    var pingsBy = AddressBudget()
    var handshakes: HandshakeBudget
    var admission = Admission()

    public init(config: DaemonConfig) {
        self.config = config
        random = CoreRandom(AnyRandom(config.makeRandom()))
        links = LinkRegistry(tracksSeat: config.player.isHuman)
        deadlines = LinkDeadlines(config: config, inviteGrace: Self.inviteGrace)
        outbox = Outbox(deadlines: deadlines, version: config.versions.upperBound)
        handshake = Handshake(config: config)
        lobby = Lobby(links: links, outbox: outbox, scores: config.scores)
        let botSeed = random.next() // drawn by a human too: the captures replay with this order of draws
        if case let .bot(bot, engine) = config.player {
            self.bot = BotPlayer(bot, engine: engine, config: config, links: links, outbox: outbox, lobby: lobby, seed: botSeed)
        } else {
            bot = nil
        }
        matches = Matches(config: config, links: links, outbox: outbox, lobby: lobby, bot: bot)
        invitations = Invitations(config: config, links: links, outbox: outbox, lobby: lobby, matches: matches, bot: bot, random: random)
        suspensions = Suspensions(config: config, links: links, outbox: outbox, lobby: lobby, matches: matches)
        handshakes = HandshakeBudget(perAddress: config.maxHandshakesPerAddressPerSecond, perPrefix: config.maxHandshakesPerPrefixPerSecond)
        suspensions.restore(config.restored, ends: config.restoredEnds)
        spectators = Spectators(config: config, links: links, outbox: outbox)
        watching = Watching(links: links, outbox: outbox, lobby: lobby)
        messageParts = MessageParts([watching, spectators])
        matches.beforeGameGone = { [unowned spectators] in spectators.sync(game: $0) }
        suspensions.dropLink = { [unowned self] link, why, now in
            link.closeReason = why
            outbox.close(link.id, flush: false)
            linkClosed(link.id, reason: why, now: now)
        }
    }

    // MARK: - Queries

    /// The lobby: every peer discovery sees or a handshaken link carries, sorted by name.
    public var peers: [PeerInfo] { lobby.peers }

    /// What this daemon announces about itself (Protocol.md §6 ANNOUNCE field 6); a bot is
    /// always idle.
    public var presenceState: PresenceState {
        guard bot == nil else { return .idle }
        if links.seat.link != nil, links.seatLink == nil { return .busy } // its link is closing
        if matches.playerAway, links.seat == .idle { return .away }
        return links.seat.presence
    }

    /// `presenceState` when it differs from what this last returned, else nil.
    public func presenceChanged() -> PresenceState? {
        let state = presenceState
        guard state != reportedPresence else { return nil }
        reportedPresence = state
        return state
    }

    public var linkCount: Int { links.count }

    /// What a link has come to, for the fronts to say what a connection the player asked for
    /// came to.
    public func linkProgress(_ id: LinkID) -> LinkProgress {
        guard let link = links[id] else { return .closed }
        return link.peer.map { .proven($0) } ?? .handshaking
    }
    /// Games in progress (RollingDice through Done).
    public var gameCount: Int { links.gameCount }
    /// Games kept for a link that was lost (interrupted or adjourned), for tests.
    var waitingGames: Int { suspensions.games.count }
    /// The game our player is in (a copy).
    public var currentGame: GameSession? { matches.current?.game }
    /// The board of the game our player is in, read in place.
    public var currentGameSize: BoardSize? { matches.current?.match?.game.size }
    /// Faults on links whose peer never proved an id: logged, never shown to the player.
    public var strangerFaults: Int { outbox.strangerFaults }
    /// Searches waiting for their turn (not counting the one out), for tests and stats.
    public var queuedSearches: Int { bot?.scheduler.queued ?? 0 }
    /// For tests: how the stored seat disagrees with a scan of the links, or nil.
    var seatFault: String? { links.seatFault(dialing: invitations.dialing) }
    /// Peers whose score is kept (for tests: bounded by the links).
    var rememberedScores: Int { lobby.scores.count }

    /// Whether a connection accepted from `address` is taken, the shell holding `connections`
    /// of at most `maxConnections` (Admission: Protocol.md §5's shares).
    public func admit(from address: String, connections: Int, maxConnections: Int) -> AdmissionVerdict {
        admission.verdict(for: address, connections: connections, maxConnections: maxConnections, links: links)
    }
    /// Accepted connections at most from one source address, and from one network prefix.
    public var maxLinksPerAddress: Int { get { admission.maxPerAddress } set { admission.maxPerAddress = newValue } }
    public var maxLinksPerPrefix: Int { get { admission.maxPerPrefix } set { admission.maxPerPrefix = newValue } }
    /// An accepted connection's socket is gone (it no longer counts towards its source's share).
    public func connectionGone(_ id: LinkID) { admission.gone(id) }

    // MARK: - The core's verbs

    /// Watchers of our games at this moment (Protocol.md §14).
    public var watcherCount: Int { spectators.follows.count }
    /// Our player allows watchers.
    public var spectatorsAllowed: Bool { spectators.allowed }

    public func handle(_ input: DaemonInput, now: Instant) {
        defer { invitations.settleHeld(now: now) } // held invitations move on after every input
        switch input {
        case let .linkOpened(id, outgoing, address, port): linkOpened(id, outgoing: outgoing, address: address, port: port, now: now)
        case let .frame(id, frame): linkReceived(id, frame, now: now)
        case let .decodeFailed(id, error):
            guard let link = links[id] else { return }
            if link.sealed { return outbox.closeUnread(link) } // sealed: nothing is sent (Protocol.md §4)
            outbox.fail(link, error.code, error.description)
        case let .linkClosed(id, reason): linkClosed(id, reason: reason, now: now)
        case let .historyFailed(peers): historyFailed(peers)
        case let .presence(event):
            lobby.presence(event)
            suspensions.presence(event, now: now)
            if case let .updated(p) = event, p.state == .idle { invitations.botInviteIfWanted(p.id, now: now) } // back, or free
        case let .dialFailed(peer, reason):
            invitations.dialFailed(peer, reason: reason) // a resume's dial is tried again
            for part in messageParts.all { part.dialFailed(peer, reason: reason) }
        case let .botMoveReady(result): bot?.searchDone(result, matches, now: now)
        case let .stalled(length): stalled(length, now: now)
        case let .engineAnswered(answer): bot?.engineAnswered(answer, matches, now: now)
        }
    }

    /// Our player's command; nothing changes when it throws.
    public func perform(_ command: PlayerCommand, now: Instant) throws(CommandError) {
        defer { invitations.settleHeld(now: now) }
        matches.playerAway = false // the player is back
        switch command {
        case let .invite(who): try invitations.invite(who, now: now)
        case .accept: try invitations.accept(now: now)
        case .decline: try invitations.decline(now: now)
        case .cancel: try invitations.cancel()
        case .leaveMatch:
            if case let .suspended(peer) = links.seat { return suspensions.adjourn(peer, now: now) }
            guard let link = matches.current else { throw .notInGame }
            matches.end(link, byUs: true, now: now)
        case let .move(cell): try matches.command(.move(cell), now: now)
        case .new: try matches.command(.newGame, now: now)
        case .resign:
            if case let .suspended(peer) = links.seat { return suspensions.resign(peer, now: now) }
            try matches.command(.resign, now: now)
        case let .watch(who, watch): try watching.watch(who, watch, now: now)
        case let .spectators(on): spectators.setAllowed(on, now: now)
        }
        bot?.playTurns(matches, now: now)
    }

    public func pollTimeout() -> Instant? {
        var next = Instant.earliest(deadlines.next(in: links), invitations.nextDialDeadline)
        next = Instant.earliest(next, suspensions.nextDeadline)
        next = Instant.earliest(next, messageParts.nextDeadline)
        if let s = stall {
            if s.pingsDue { return s.at }
            if let hold = s.hold { return next.map { max($0, hold) } }
        }
        return next
    }

    public func pollActions(into out: inout [DaemonAction]) { outbox.poll(into: &out) }

    /// The watchers' frames (and closes), once the shell has carried out `pollActions`' and
    /// sent the game's frames: they are made here, so that not even their encoding and sealing
    /// stands before a player's frame (Protocol.md §14). Call it after every `pollActions`.
    public func pollLateActions(into out: inout [DaemonAction]) {
        spectators.sync()
        outbox.pollLate(into: &out)
    }

    /// Gives back the bytes of a `send` action once written: the buffer is reused for a later frame.
    public func recycle(_ bytes: consuming [UInt8]) { outbox.recycle(bytes) }

    /// Drops `id` to make room: ERROR `busy`, then close (Protocol.md §5).
    public func dropForRoom(_ id: LinkID, now: Instant) {
        if let link = links[id] { outbox.fail(link, .busy, "dropped to make room for another connection") }
    }

    /// The player leaves: LEAVE on every ready link, then close them after flushing.
    public func leaveAll() {
        for id in links.sortedIDs {
            guard let link = links[id], !link.closing else { continue }
            if link.match?.game.resumeKey != nil, link.peer?.capabilities.contains(.resume) == true {
                matches.stopped(link, as: .adjourned) // it goes on when we are back (Protocol.md §13)
            } else {
                // Given up, as the peer counts our LEAVE (§8); only LEAVE goes out, as in version 1.
                matches.stopped(link, as: .ended(.lost, how: .forfeit))
            }
            bot?.stopEngine(link)
            if link.ready { outbox.send(link, .leave) }
            outbox.close(id, flush: true)
            links.remove(id) // we are the ones leaving: nothing more to tell our own player
        }
    }

    /// Runs every timer that is due.
    public func handleTimeout(now: Instant) {
        defer { invitations.settleHeld(now: now) }
        if stall?.pingsDue == true { pingAfterStall(now: now) }
        if let hold = stall?.hold { // just back from a stall: the peers get one round to be heard
            guard now >= hold else { return }
            stall?.hold = nil
        }
        invitations.dialTimeouts(now: now)
        for part in messageParts.all { part.timeouts(now: now) }
        suspensions.timeouts(now: now)
        for id in deadlines.due(at: now, in: links) {
            guard let link = links[id], !link.closing else { continue }
            if !link.ready, now >= link.openedAt + config.handshakeTimeout {
                outbox.fail(link, .timeout, "no HELLO and PROOF within \(config.handshakeTimeout)")
                continue
            }
            if now >= link.liveness.lastHeard + config.deadAfter {
                // Tell the peer why, in case only its side of the path is broken (Protocol.md §5).
                let text = "no answer for \(config.deadAfter)"
                outbox.send(link, .error(code: ErrorCode.timeout.rawValue, message: text))
                link.closeReason = stallBlame(now).map { "\($0): no answer since it went on" } ?? text
                outbox.close(id, flush: true)
                continue
            }
            // No PING during the handshake: the peer would take it for a fault (Protocol.md §4).
            if link.ready, now >= max(link.liveness.lastHeard, link.liveness.lastPing ?? link.liveness.lastHeard) + config.pingAfter {
                link.liveness.lastPing = now
                outbox.send(link, .ping(nonce: random.next()))
            }
            invitations.timeouts(link, now: now)
            matches.timeout(link, now: now)
        }
        bot?.playTurns(matches, now: now)
    }
}
