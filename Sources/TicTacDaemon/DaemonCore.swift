import TicTacDiscovery
import TicTacEngine
import TicTacWire
import TicTacTime

// Theory of operation
//
// DaemonCore is the whole daemon without I/O: every connection ("link") with its handshake,
// liveness, invitations and game, driven by inputs that carry the current time and drained as
// actions (bytes to send, links to close, events for the player). The I/O shell (Daemon) owns
// the sockets and the reactor and does exactly what the actions say.
//
// A link's life (Protocol.md §4; LinkState.swift has its states and transitions as tables):
// opened -> both sides send HELLO (version negotiated, the id checked against the public key)
// -> the dialler sends PROOF, the acceptor checks it and sends its own -> ready once the peer's
// PROOF verifies -> closed. While ready: PING after `pingAfter` of silence, dead after
// `deadAfter`; INVITE / ACCEPT / DECLINE / CANCEL; then a GameSession carries the game. Any
// protocol fault sends ERROR and closes the link; the daemon and its other links carry on.
//
// Presence is not a link. Discovery tells the core who is on the LAN (`presence(_:now:)`); a
// link is opened only when our player invites a peer we have no link to (the `dial` action,
// and the invitation goes out once the handshake is done) or when a peer dials us. The lobby
// is the union of both, one entry per instance id: peer-found when a peer first appears by
// either way, peer-updated when what discovery says of it changes, peer-lost when neither is
// left.
//
// Two tie-breaks keep both daemons in agreement without another round trip:
// - two ready links to one peer (both dialled at once, a retry landing late; Protocol.md §4,
//   duplicate links): the side with the lower instance id closes the newer one the moment it is
//   ready, before using it; the higher side keeps every link until then, uses the first, and
//   moves its own pending invitation to the survivor. A running game is never on the link closed.
// - two INVITEs crossing (on one link or two): the invitation of the lower instance id stands.
public struct DaemonCore {
    public let config: DaemonConfig

    private var links = LinkTable()
    /// Peers discovery sees, by instance id (whether or not we have a link to them).
    private var present: [ID128: PresencePeer] = [:]
    /// Our invitations waiting for a dial to finish its handshake: peer -> when asked.
    private var dialing: [ID128: Instant] = [:]
    /// A bot's peers it dialled to play (`--connect`): it invites them whenever idle with them,
    /// on whichever link to them survives.
    private var botWants: Set<ID128> = []
    /// How long a dial may take to end in a handshaken link (connect, HELLO) before we give up.
    public static let dialTimeout: Duration = .seconds(10)
    /// An incoming invitation lapses this long after the inviter's own deadline, so the
    /// inviter's CANCEL normally settles it first (Protocol.md §6, INVITE: 30 s, then 32 s).
    public static let inviteGrace: Duration = .seconds(2)
    /// Each present peer's running score from earlier matches (a new match carries it on).
    private var scores: [ID128: Score] = [:]
    private var actions: [DaemonAction] = []
    /// A game's actions being handled (kept between frames for its capacity).
    private var gameActions: [GameAction] = []
    /// Emptied frame buffers the shell gave back (`recycle`): frames are encoded into them, so
    /// a warm loop allocates no array per frame sent.
    private var spareFrameBuffers: [[UInt8]] = []
    private var random: AnyRandom
    /// The bot's move choices: seeded from `random`, no system call per draw (die rolls and
    /// nonces keep `random`, in production the system's cryptographic generator).
    private var botRandom: SplitMix64
    /// The searches' generator: it starts as `botRandom` did and travels with each search
    /// (nil while one is out), so a session of one kind of game draws as it always did.
    private var searchRandom: SplitMix64?
    /// Bot moves to make once the current input is processed (avoids re-entrancy).
    private var botTurns: [LinkID] = []
    /// Bot moves waiting for a search, in the order they came (see `runBotTurns`).
    private var waitingSearches: [LinkID] = []
    /// The search handed out and not yet answered: its link, ticket and position.
    private var searching: (link: LinkID, ticket: UInt64, board: Board)?
    private var nextTicket: UInt64 = 1
    /// When each source address last had a search handed out (a counter): the next goes to the
    /// address served longest ago (round-robin by address).
    private var lastSearched: [String: UInt64] = [:]
    /// Links whose deadline may have moved since the last refresh.
    private var touched: [LinkID] = []
    /// Min-heap of (deadline, link); an entry is current only while it equals the link's
    /// `heapAt`: a deadline that comes earlier pushes a new entry, one that moves later waits
    /// for its entry to come up (lazy deletion; see Link.heapAt).
    private var deadlines = DeadlineHeap<LinkID>()
    /// The link timeouts of `config` in nanoseconds, summed with instants for every deadline
    /// refresh (each `Instant + Duration` converts the duration's 128-bit attoseconds).
    private let deadAfterNs: Int64, pingAfterNs: Int64, handshakeTimeoutNs: Int64, inviteTimeoutNs: Int64

    public init(config: DaemonConfig) {
        self.config = config
        deadAfterNs = config.deadAfter.wholeNanoseconds
        pingAfterNs = config.pingAfter.wholeNanoseconds
        handshakeTimeoutNs = config.handshakeTimeout.wholeNanoseconds
        inviteTimeoutNs = config.inviteTimeout.wholeNanoseconds
        var random = AnyRandom(config.makeRandom())
        let seed = random.next()
        self.botRandom = SplitMix64(seed: seed)
        self.searchRandom = SplitMix64(seed: seed)
        self.random = random
    }

    // MARK: - Queries

    /// The lobby: every peer discovery sees or a handshaken link carries, sorted by name.
    public var peers: [PeerInfo] {
        var byID: [ID128: PeerInfo] = [:]
        for link in links.values where link.announced { if let p = link.peer, p.capabilities.listedInLobby { byID[p.id] = p } }
        for (id, p) in present { byID[id] = info(p, link: byID[id]) }
        return byID.values.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
    }

    /// What this daemon announces about itself (Protocol.md §6 ANNOUNCE field 6): a human in a
    /// game is playing; one answering or awaiting an invitation is busy; a bot is always idle.
    public var presenceState: PresenceState {
        guard config.bot == nil else { return .idle }
        if links.values.contains(where: { $0.match != nil && !$0.closing }) { return .playing }
        if isBusy(except: nil) || !dialing.isEmpty { return .busy }
        return .idle
    }

    public var linkCount: Int { links.count }

    /// The state `presenceChanged()` last returned.
    private var reportedPresence: PresenceState?

    /// `presenceState` when it differs from what this last returned, else nil. The shell asks
    /// after every batch of actions; mutating, it runs on the core in place (calling the getter
    /// on the shell's stored core copied the whole core each time).
    public mutating func presenceChanged() -> PresenceState? {
        let state = presenceState
        guard state != reportedPresence else { return nil }
        reportedPresence = state
        return state
    }

    /// Faults on links whose peer never proved an id (strangers): logged and counted here, never
    /// shown to the player (a stranger must not be able to make the front write).
    public private(set) var strangerFaults = 0

    /// The link to drop to make room for a new connection (Protocol.md §5, `busy`): a stranger
    /// still in its handshake, oldest first, else the oldest ready link carrying no game and no
    /// invitation. Nil when every link is in use (a game or an invitation): refuse the newcomer.
    public func idleLinkToDrop() -> LinkID? {
        let idle = links.values.filter {
            !$0.closing && $0.isIdle
        }
        let pick = idle.filter { !$0.ready }.min { ($0.openedAt, $0.id) < ($1.openedAt, $1.id) }
            ?? idle.filter { !$0.announced }.min { ($0.openedAt, $0.id) < ($1.openedAt, $1.id) }
            ?? idle.min { ($0.lastHeard, $0.id) < ($1.lastHeard, $1.id) }
        return pick?.id
    }

    /// Drops `id` to make room: ERROR `busy`, then close (Protocol.md §5).
    public mutating func dropForRoom(_ id: LinkID, now: Instant) {
        fail(id, .busy, "dropped to make room for another connection")
    }
    /// Peers whose score is kept (for tests: bounded by the links).
    var rememberedScores: Int { scores.count }

    /// The game a human is playing (the one `move`, `new` and `resign` go to).
    public var currentGame: GameSession? {
        links.values.first { $0.match != nil && !$0.closing }?.game
    }

    /// Games in progress (RollingDice through Done).
    public var gameCount: Int { links.values.count { $0.match != nil } }

    /// The nearest time `handleTimeout(now:)` has work to do. O(log n): each link's deadline
    /// lives in a heap, recomputed only for the links an input touched.
    public mutating func nextDeadline() -> Instant? {
        refreshDeadlines()
        while let top = deadlines.first, links[top.value]?.heapAt != top.at { deadlines.popFirst() } // stale
        var best = deadlines.first?.at
        for at in dialing.values { best = min(best ?? at + Self.dialTimeout, at + Self.dialTimeout) }
        return best
    }

    public mutating func pollActions() -> [DaemonAction] {
        var out: [DaemonAction] = []
        swap(&out, &actions)
        return out
    }

    /// The same, into `out`: an empty array whose capacity is kept. The buffers trade places
    /// (nothing allocated per frame).
    public mutating func pollActions(into out: inout [DaemonAction]) {
        precondition(out.isEmpty, "pollActions(into:) takes an empty buffer") // our callers' own
        swap(&out, &actions)
    }

    // MARK: - Link inputs

    /// A connection is up (accepted, or our connect completed): send HELLO with a fresh nonce.
    public mutating func linkOpened(_ id: LinkID, outgoing: Bool, address: String, port: UInt16?, now: Instant) {
        let nonce = ID128.random(using: &random)
        links.insert(Link(id: id, outgoing: outgoing, address: address, port: outgoing ? port : nil,
                          openedAt: now, nonce: nonce))
        touched.append(id)
        let hello = Hello(instanceID: config.instanceID, name: config.name, capabilities: config.capabilities,
                          publicKey: config.identity.publicKey, nonce: nonce)
        send(id, .hello(hello), version: ProtocolVersion.current)
    }

    /// A frame arrived on a link.
    public mutating func linkReceived(_ id: LinkID, _ frame: Frame, now: Instant) {
        guard let link = links[id], !link.closing else { return }
        link.lastHeard = now
        touch(id)
        let version = link.version
        // HELLO and ERROR are read whatever the header's version (Protocol.md §4); before the
        // peer's HELLO nothing else is, whatever it holds.
        let anyVersion = frame.type == Message.Kind.hello.rawValue || frame.type == Message.Kind.error.rawValue
        if version == nil, !anyVersion {
            return fail(id, .unexpectedMessage, "expected HELLO first, got message type \(frame.type)")
        }
        if let version, frame.version != version, !anyVersion {
            return fail(id, .unsupportedVersion, "frame of version \(frame.version) on a version \(version) connection")
        }
        let message: Message
        do {
            message = try Message(frame: frame)
        } catch {
            if case .unknownType(_, ignorable: true) = error { return } // Protocol.md §2: skip it
            return fail(id, error.code, error.description)
        }
        if link.ready {
            receive(link, message, now: now)
        } else {
            handshake(id, message, now: now)
        }
        runBotTurns(now: now)
    }

    /// The stream decoder refused the bytes: tell the peer why, then close.
    public mutating func linkDecodeFailed(_ id: LinkID, _ error: WireError, now: Instant) {
        fail(id, error.code, error.description)
    }

    /// The connection is gone (EOF, reset, write queue overflow, or our own close).
    public mutating func linkClosed(_ id: LinkID, reason: String, now: Instant) {
        guard let link = links.removeValue(forKey: id) else { return }
        // A handshake that was taking over an announced link counts as that link.
        guard let peer = link.peer ?? link.heir else { return }
        let announced = link.announced || link.heir != nil
        let why = link.closeReason ?? reason
        // Another link to the peer carries on (Protocol.md §4, duplicate links): a ready one, else
        // one whose HELLO names the peer and whose PROOF is on its way.
        // One pass over the links for all that follows (a close at 10,000 links is a scan each).
        let others = links.values.filter { $0.peerID == peer.id }
        let successor = others.first { $0.provenID == peer.id && !$0.closing }
            ?? others.first { $0.claimedID == peer.id && !$0.closing }
        let peerStays = !announced || successor != nil
        // What the link carried ends with it, except our own invitation, which moves.
        if link.incomingInvite != nil, peerStays { emit(.inviteCancelled(by: peer)) }
        if link.match != nil { emit(.disconnected(peer, reason: why)) }
        if let successor, let invite = link.outgoingInvite, successor.isIdle {
            successor.activity = .inviting(invite)
            if successor.ready { sendInvite(invite, on: successor.id) } // else once it is ready
        }
        // Kept while some link to the peer remains (so the table is bounded by the links).
        if !others.isEmpty {
            if let game = link.game { scores[peer.id] = game.score }
        } else {
            scores[peer.id] = nil
            botWants.remove(peer.id)
        }
        guard announced else { return }
        if let successor {
            if successor.ready {
                successor.announce()
                botInviteIfWanted(peer.id, now: now)
            } else {
                successor.inherit(peer)
            }
            return
        }
        // Another of its links is closing too: the last one to close reports the peer's end
        // (after what it carried).
        if let other = others.first(where: { $0.provenID == peer.id }) {
            other.announce()
            return
        }
        if let p = present[peer.id] { return emit(.peerUpdated(info(p, link: nil))) } // still on the LAN
        if peer.capabilities.listedInLobby { emit(.peerLost(peer, reason: why)) } // else never listed
    }

    // MARK: - Presence

    /// Discovery saw a peer appear, change or go.
    public mutating func presence(_ event: DiscoveryEvent, now: Instant) {
        switch event {
        case let .found(p), let .updated(p):
            // The field hears of a peer the lobby does not list from the presence table itself
            // (Daemon.onPresence).
            guard p.capabilities.listedInLobby else { return presence(.lost(p, reason: "offers no tic-tac-toe"), now: now) }
            let known = present[p.id] != nil || linkedPeer(p.id) != nil
            present[p.id] = p
            let shown = info(p, link: linkedPeer(p.id))
            emit(known ? .peerUpdated(shown) : .peerFound(shown))
        case let .lost(p, reason):
            guard present.removeValue(forKey: p.id) != nil else { return }
            if let linked = linkedPeer(p.id) { return emit(.peerUpdated(linked)) } // the link still carries it
            emit(.peerLost(info(p, link: nil), reason: reason))
        }
    }

    /// A `dial` action ended without a link (every address refused or timed out).
    public mutating func dialFailed(_ peer: ID128, reason: String, now: Instant) {
        guard dialing.removeValue(forKey: peer) != nil else { return }
        let name = present[peer]?.name ?? peer.description
        emit(.connectFailed(name, reason: reason))
    }

    /// The handshaken, announced link to a peer, if any.
    private func linkedPeer(_ id: ID128) -> PeerInfo? {
        links.values.first { $0.announced && $0.peer?.id == id }?.peer
    }

    /// A present peer as the lobby shows it; the link's capabilities (from HELLO) win.
    private func info(_ p: PresencePeer, link: PeerInfo?) -> PeerInfo {
        PeerInfo(id: p.id, name: p.name, addresses: p.addresses, port: p.port,
                 capabilities: link?.capabilities ?? p.capabilities, state: p.state, via: p.via)
    }

    /// A link to `peer` finished its handshake: an invitation waiting for that dial goes out.
    private mutating func linkReady(_ id: LinkID, _ peer: PeerInfo, now: Instant) {
        if let p = present[peer.id] {
            // Already in the lobby by discovery; HELLO's capabilities may say more than it did.
            if info(p, link: peer) != info(p, link: nil) { emit(.peerUpdated(info(p, link: peer))) }
        } else if peer.capabilities.listedInLobby {
            emit(.peerFound(peer))
        } else {
            // As presence() does for discovery: a link's peer is listed only if it offers tic-tac-toe.
            log("\(peer.name) at \(peer.address) offers no tic-tac-toe (capabilities \(peer.capabilities.rawValue)): not listed in the lobby")
        }
        guard dialing.removeValue(forKey: peer.id) != nil else { return }
        try? sendInvite(on: id, to: peer, now: now)
    }

    // MARK: - Player input

    public mutating func command(_ command: PlayerCommand, now: Instant) throws(CommandError) {
        switch command {
        case let .invite(who):
            let peer = try findPeer(who)
            if config.bot == nil {
                // Inviting the peer whose invitation waits for our answer is saying yes to it:
                // two players who invite each other play (Protocol.md §6, INVITE).
                if let link = links.values.first(where: { $0.peer?.id == peer.id && $0.incomingInvite != nil && !$0.closing }),
                   let invite = link.incomingInvite {
                    accept(link.id, gameID: invite.id, size: invite.size, now: now)
                    break
                }
                if links.values.contains(where: { $0.outgoingInvite != nil }) || !dialing.isEmpty { throw .alreadyInvited }
                if let waiting = links.values.first(where: { $0.incomingInvite != nil })?.peer {
                    throw .answerFirst(waiting.name)
                }
                if isBusy(except: nil) { throw .busy }
            }
            guard let link = links.values.first(where: { $0.peer?.id == peer.id && $0.announced }) else {
                // Presence only: dial it; the invitation goes out once the link is up.
                guard let p = present[peer.id], !p.addresses.isEmpty else { throw .noSuchPeer(who) }
                guard dialing[peer.id] == nil else { throw .alreadyInvited }
                dialing[peer.id] = now
                actions.append(.dial(peer.id, addresses: p.addresses, port: p.port))
                emit(.inviteSent(to: peer))
                break
            }
            try sendInvite(on: link.id, to: peer, now: now, announce: true)
        case .accept:
            guard let link = links.values.first(where: { $0.incomingInvite != nil }),
                  let invite = link.incomingInvite else { throw .noInvitation }
            accept(link.id, gameID: invite.id, size: invite.size, now: now)
        case .decline:
            guard let link = links.values.first(where: { $0.incomingInvite != nil }),
                  let invite = link.incomingInvite else { throw .noInvitation }
            link.activity = .idle
            send(link.id, .decline(gameID: invite.id, reason: .declined))
        case .leaveMatch:
            guard let link = links.values.first(where: { $0.match != nil && !$0.closing }),
                  let match = link.match, let peer = link.peer else { throw .notInGame }
            scores[peer.id] = match.game.score
            link.activity = .idle
            link.ignoreGameFrames = true // the peer's game frames in flight are stale
            send(link.id, .cancel(gameID: match.id))
            emit(.matchEnded(peer, byUs: true))
        case .cancel:
            if !dialing.isEmpty, !links.values.contains(where: { $0.outgoingInvite != nil }) {
                // Still dialling: the invitation is not sent yet, and now never will be.
                dialing.removeAll()
                break
            }
            guard let link = links.values.first(where: { $0.outgoingInvite != nil }),
                  let invite = link.outgoingInvite else { throw .nothingToCancel }
            link.activity = .idle
            link.ignoreGameFrames = true
            send(link.id, .cancel(gameID: invite.id))
        case let .move(cell):
            try gameCommand(.localMove(cell), now: now)
        case .new:
            try gameCommand(.localNewGame, now: now)
        case .resign:
            try gameCommand(.localResign, now: now)
        }
        runBotTurns(now: now)
    }

    /// Sends our invitation on a ready link. `announce`: tell the player (a dialled invitation
    /// was told when the dial began).
    private mutating func sendInvite(on id: LinkID, to peer: PeerInfo, now: Instant, announce: Bool = false) throws(CommandError) {
        guard let link = links[id] else { throw .noSuchPeer(peer.name) }
        guard link.outgoingInvite == nil else { throw .alreadyInvited }
        guard link.match == nil else { throw .busy }
        let gameID = ID128.random(using: &random)
        link.activity = .inviting(Invitation(id: gameID, size: config.size, at: now))
        send(link.id, .invite(Invite(gameID: gameID, rows: UInt8(config.size.rows),
                                     cols: UInt8(config.size.cols), k: UInt8(config.size.k))))
        if announce { emit(.inviteSent(to: peer)) }
    }

    /// Sends (again) an invitation of ours already recorded on a link.
    private mutating func sendInvite(_ invite: Invitation, on id: LinkID) {
        send(id, .invite(Invite(gameID: invite.id, rows: UInt8(invite.size.rows),
                                cols: UInt8(invite.size.cols), k: UInt8(invite.size.k))))
    }

    /// A bot invites a peer it dialled whenever it has nothing pending with it: on the link that
    /// survived, whichever side dialled it (Protocol.md §4, duplicate links).
    private mutating func botInviteIfWanted(_ peerID: ID128, now: Instant) {
        guard config.bot != nil, botWants.contains(peerID) else { return }
        let toPeer = links.values.filter { ($0.peer?.id == peerID || $0.heir?.id == peerID) && !$0.closing }
        guard toPeer.allSatisfy(\.isIdle),
              let link = toPeer.first(where: { $0.announced && $0.ready }), let peer = link.peer else { return }
        do {
            try sendInvite(on: link.id, to: peer, now: now, announce: true)
        } catch {
            log("the bot could not invite \(peer.name): \(error)")
        }
    }

    /// The player leaves: LEAVE on every ready link, then close them after flushing.
    public mutating func leaveAll() {
        for id in links.keys.sorted() {
            guard let link = links[id], !link.closing else { continue }
            if link.ready { send(id, .leave) }
            actions.append(.close(id, flush: true))
            // We are the ones leaving: nothing more to tell our own player about this link.
            links.removeValue(forKey: id)
        }
    }

    /// Runs every timer that is due.
    public mutating func handleTimeout(now: Instant) {
        for (peer, at) in dialing where now >= at + Self.dialTimeout {
            dialFailed(peer, reason: "no answer within \(Self.dialTimeout)", now: now)
        }
        refreshDeadlines()
        var due: [LinkID] = []
        while let top = deadlines.first, top.at <= now {
            deadlines.popFirst()
            guard let link = links[top.value], link.heapAt == top.at else { continue } // stale
            link.heapAt = nil
            guard let d = link.deadline else { continue }
            if d <= now {
                due.append(link.id)
            } else { // early: the deadline moved later since the entry was pushed
                deadlines.push(d, link.id)
                link.heapAt = d
            }
        }
        for id in due.sorted() {
            links[id]?.deadline = nil // popped: the refresh below pushes its next one
            touched.append(id)
            guard let link = links[id], !link.closing else { continue }
            if !link.ready, now >= link.openedAt + config.handshakeTimeout {
                fail(id, .timeout, "no HELLO and PROOF within \(config.handshakeTimeout)")
                continue
            }
            if now >= link.lastHeard + config.deadAfter {
                // Tell the peer why, in case only its side of the path is broken (Protocol.md §5).
                let text = "no answer for \(config.deadAfter)"
                send(id, .error(code: ErrorCode.timeout.rawValue, message: text))
                link.closeReason = text
                actions.append(.close(id, flush: true))
                continue
            }
            // No PING during the handshake: the peer would take it for a fault (Protocol.md §4).
            if link.ready, now >= max(link.lastHeard, link.lastPing ?? link.lastHeard) + config.pingAfter {
                link.lastPing = now
                send(id, .ping(nonce: random.next()))
            }
            if let invite = link.outgoingInvite, now >= invite.at + config.inviteTimeout, let peer = link.peer {
                link.activity = .idle
                link.ignoreGameFrames = true
                send(id, .cancel(gameID: invite.id))
                emit(.declined(by: peer, reason: .noAnswer))
            }
            if let invite = link.incomingInvite, now >= invite.at + config.inviteTimeout + Self.inviteGrace, let peer = link.peer {
                // Nobody answered ours: the invitee is free again, and the player hears so.
                link.activity = .idle
                send(id, .decline(gameID: invite.id, reason: .noAnswer))
                emit(.inviteExpired(by: peer))
            }
            if link.match?.game.nextDeadline.map({ now >= $0 }) == true {
                links[id]?.match?.game.handleTimeout(now: now)
                drainGame(id, now: now)
            }
        }
        runBotTurns(now: now)
    }

    // MARK: - Handshake

    /// Before the link is ready: the peer's HELLO, then its PROOF (Protocol.md §4).
    private mutating func handshake(_ id: LinkID, _ message: Message, now: Instant) {
        guard let link = links[id] else { return }
        switch message {
        case let .error(code, text):
            peerError(id, code, text)
        case let .hello(hello) where link.peerHello == nil:
            helloReceived(id, hello)
        case let .proof(signature) where link.peerHello != nil:
            proofReceived(id, signature, now: now)
        case .hello:
            fail(id, .unexpectedMessage, "second HELLO")
        default:
            fail(id, .unexpectedMessage, "expected \(link.peerHello == nil ? "HELLO" : "PROOF") first, got \(message.kind)")
        }
    }

    private mutating func helloReceived(_ id: LinkID, _ hello: Hello) {
        guard let version = ProtocolVersion.negotiate(remoteMin: hello.minVersion, remoteMax: hello.maxVersion) else {
            let ours = ProtocolVersion.supported
            return fail(id, .unsupportedVersion,
                        "no common version: we speak \(ours.lowerBound)...\(ours.upperBound), the peer \(hello.minVersion)...\(hello.maxVersion)")
        }
        guard hello.instanceID != config.instanceID else {
            return fail(id, .unexpectedMessage, "connected to itself")
        }
        guard Identity.instanceID(forPublicKey: hello.publicKey) == hello.instanceID else {
            return fail(id, .badIdentity, "the public key in HELLO does not give instance id \(hello.instanceID)")
        }
        guard let link = links[id] else { return }
        link.handshake = .awaitingProof(hello, version: version, heir: nil)
        // The dialler proves first; the acceptor signs only for a peer that has proven its own id,
        // so dialling us cannot obtain our signature for a transcript naming someone else.
        if link.outgoing { sendProof(id) }
    }

    private mutating func sendProof(_ id: LinkID) {
        guard let link = links[id], let version = link.version, let hello = link.peerHello else { return }
        guard let signature = config.identity.proof(version: version, ourNonce: link.nonce,
                                                    peer: hello.instanceID, peerNonce: hello.nonce) else {
            return fail(id, .internalError, "could not sign the handshake")
        }
        send(id, .proof(signature: signature))
    }

    private mutating func proofReceived(_ id: LinkID, _ signature: [UInt8], now: Instant) {
        guard let link = links[id], let version = link.version, let hello = link.peerHello else { return }
        guard config.identity.verifyProof(signature, version: version, peer: hello, ourNonce: link.nonce) else {
            return fail(id, .badIdentity, "PROOF does not verify with the key of instance id \(hello.instanceID)")
        }
        if !link.outgoing { sendProof(id) }
        guard links[id]?.closing == false else { return }
        let heir = link.heir
        let peer = PeerInfo(id: hello.instanceID, name: hello.name.value, address: link.address,
                            port: link.port, capabilities: hello.capabilities)
        link.handshake = .ready(peer, version: version, announced: false)
        if config.bot != nil, link.outgoing { botWants.insert(hello.instanceID) }
        // Two ready links to the same daemon (Protocol.md §4, duplicate links). The lower instance
        // id decides: it closes the newer link now, before anything but the handshake went on it,
        // so nothing it knows of is lost; the higher keeps a spare until the lower closes one.
        if links.values.contains(where: { $0.provenID == hello.instanceID && $0.id != id && $0.ready && !$0.closing }) {
            if config.instanceID < hello.instanceID {
                link.closeReason = "a duplicate of another link to \(peer.name)"
                actions.append(.close(id, flush: false))
                links.removeValue(forKey: id)
                botInviteIfWanted(hello.instanceID, now: now)
            }
            return
        }
        link.announce()
        if heir != nil {
            // It takes over from an announced link that closed: the peer never left the lobby.
            if let invite = link.outgoingInvite { sendInvite(invite, on: id) } // moved here
        } else {
            linkReady(id, peer, now: now)
        }
        botInviteIfWanted(peer.id, now: now)
    }

    // MARK: - Ready links

    /// A message on a ready link, in hand (the caller looked it up). Its peer is read only by the
    /// messages that name it: a game frame never copies it (the copy retains its strings).
    private mutating func receive(_ link: Link, _ message: Message, now: Instant) {
        let id = link.id
        guard link.provenID != nil else { return } // ready (`peer != nil` would copy it to test it)
        switch message {
        case .hello:
            fail(id, .unexpectedMessage, "second HELLO")
        case .proof:
            fail(id, .unexpectedMessage, "PROOF after the handshake")
        case let .error(code, text):
            peerError(id, code, text)
        case let .ping(nonce):
            let limit = config.maxPingsPerSecond
            guard limit == 0 || link.countPing(now: now, limit: limit) else {
                return fail(id, .unexpectedMessage, "PING flood: more than \(limit) in one second (Protocol.md §6)")
            }
            send(id, .pong(nonce: nonce))
        case .pong:
            break // any frame counts as life; lastHeard is already updated
        case .leave:
            link.closeReason = "\(link.peer?.name ?? "the peer") left"
            actions.append(.close(id, flush: false))
        case let .invite(invite):
            receiveInvite(id, invite, now: now)
        case let .accept(gameID):
            guard let mine = link.outgoingInvite, mine.id == gameID else { return } // a stale answer
            startGame(id, gameID: gameID, size: mine.size, now: now)
        case let .decline(gameID, reason):
            guard let mine = link.outgoingInvite, mine.id == gameID, let peer = link.peer else { return }
            link.activity = .idle
            emit(.declined(by: peer, reason: reason))
        case let .cancel(gameID):
            guard let peer = link.peer else { return }
            if link.incomingInvite?.id == gameID {
                link.activity = .idle
                emit(.inviteCancelled(by: peer))
            } else if let match = link.match, match.id == gameID {
                // The peer left the match, or withdrew an invitation we had already accepted
                // (its CANCEL crossed our ACCEPT). It sends no more game frames.
                scores[peer.id] = match.game.score
                link.activity = .idle
                emit(.matchEnded(peer, byUs: false))
            }
        case .reset, .rollCommit, .roll, .rollAck, .move, .resign, .timeUp:
            // The hot path (a game frame): the link and its match are looked up once.
            guard let match = link.match else {
                if link.ignoreGameFrames { return }
                return fail(id, message.kind == .move ? .illegalMove : .unexpectedMessage,
                            "\(message.kind) with no game in progress")
            }
            try? match.game.handle(.received(message), now: now)
            drainGame(link, now: now)
        case .announce, .query, .goodbye, .sphere, .fieldLeave:
            fail(id, .unexpectedMessage, "\(message.kind) belongs in a UDP datagram")
        }
    }

    private mutating func receiveInvite(_ id: LinkID, _ invite: Invite, now: Instant) {
        guard let link = links[id], let peer = link.peer else { return }
        guard let size = try? BoardSize(rows: Int(invite.rows), cols: Int(invite.cols), k: Int(invite.k)) else {
            return send(id, .decline(gameID: invite.gameID, reason: .unsupported))
        }
        if link.incomingInvite?.id == invite.gameID || link.match?.id == invite.gameID {
            return // repeated on a link that replaced a duplicate: the same invitation
        }
        if link.match != nil || link.incomingInvite != nil {
            log("declined \(peer.name)'s invitation: busy (a game or an invitation on that link)")
            return send(id, .decline(gameID: invite.gameID, reason: .busy))
        }
        if let mine = links.values.first(where: { $0.provenID == peer.id && $0.outgoingInvite != nil }) {
            // Crossing invitations, on this link or on a duplicate: the lower instance id's stands
            // (Protocol.md §6, INVITE; §4, duplicate links).
            if config.instanceID < peer.id { return }
            mine.activity = .idle
            if mine.id != id { mine.ignoreGameFrames = true }
            return accept(id, gameID: invite.gameID, size: size, now: now)
        }
        if links.values.contains(where: { $0.provenID == peer.id && $0.id != id && $0.match != nil }) {
            return send(id, .decline(gameID: invite.gameID, reason: .busy)) // one game per pair
        }
        if dialing.removeValue(forKey: peer.id) != nil {
            // We were dialling it to invite it, and it invited us first: play (the dial's link,
            // if it lands, is a duplicate the link rule settles).
            return accept(id, gameID: invite.gameID, size: size, now: now)
        }
        if config.bot != nil {
            if size != .classic, config.bot?.searches(on: size) == true {
                let large = links.values.count { $0.address == link.address && $0.game.map { $0.size != .classic } == true }
                if large >= config.maxLargeGamesPerAddress {
                    log("declined \(peer.name)'s \(size) invitation: busy (\(large) large-board games from \(link.address))")
                    return send(id, .decline(gameID: invite.gameID, reason: .busy))
                }
            }
            return accept(id, gameID: invite.gameID, size: size, now: now)
        }
        if isBusy(except: id) {
            log("declined \(peer.name)'s invitation: busy")
            return send(id, .decline(gameID: invite.gameID, reason: .busy))
        }
        link.activity = .invited(Invitation(id: invite.gameID, size: size, at: now))
        emit(.invited(by: peer, size: size))
    }

    /// A human plays one game at a time and answers one invitation at a time.
    private func isBusy(except id: LinkID?) -> Bool {
        links.values.contains { $0.id != id && !$0.isIdle }
    }

    private mutating func accept(_ id: LinkID, gameID: ID128, size: BoardSize, now: Instant) {
        send(id, .accept(gameID: gameID))
        startGame(id, gameID: gameID, size: size, now: now)
    }

    private mutating func startGame(_ id: LinkID, gameID: ID128, size: BoardSize, now: Instant) {
        guard links[id] != nil else { return }
        links[id]?.ignoreGameFrames = false
        let score = links[id]?.peer.flatMap { scores[$0.id] } ?? Score()
        let match = Match(id: gameID, game: GameSession(size: size, rng: config.makeRandom(), rematchDelay: config.rematchDelay,
                                                        score: score, moveTime: config.moveTime))
        // The front's events, and those the bot acts on (drainGame).
        match.game.shownEvents = config.gameEvents.union(config.bot == nil ? [] : [.yourTurn, .gameOver])
        links[id]?.activity = .playing(match)
        try? match.game.handle(.start, now: now)
        drainGame(id, now: now)
    }

    private mutating func gameCommand(_ input: GameInput, now: Instant) throws(CommandError) {
        // The link and its match in hand (both classes): no lookup by id per move.
        guard let link = links.values.first(where: { $0.match != nil && !$0.closing }), let match = link.match else {
            throw .notInGame
        }
        do {
            try match.game.handle(input, now: now)
        } catch {
            throw .game(error)
        }
        drainGame(link, now: now)
    }

    /// Moves a game's actions out: frames to the link, events to the player, faults to ERROR.
    private mutating func drainGame(_ id: LinkID, now: Instant) {
        guard let link = links[id] else { return }
        drainGame(link, now: now)
    }

    /// The same for a link in hand (no lookup per action: each one hashed the id).
    private mutating func drainGame(_ link: Link, now: Instant) {
        // The peer is read only for an event the front asked for (a copy retains its strings).
        guard link.provenID != nil else { return } // ready (`peer != nil` would copy it to test it)
        let id = link.id
        let isBot = config.bot != nil
        var pending: [GameAction] = []
        swap(&pending, &gameActions) // a buffer kept from the last call (none when re-entered)
        defer { pending.clearKeepingCapacity(); swap(&pending, &gameActions) }
        link.match?.game.pollActions(into: &pending)
        while !pending.isEmpty {
            for i in pending.indices {
                // Each action is moved out (a payload-free one left in its place until the buffer
                // is emptied): copying it cost more than most actions' work.
                var action = GameAction.show(.yourTurn)
                swap(&action, &pending[i])
                switch consume action {
                case let .send(m):
                    send(link, m)
                case .show(.interrupted):
                    break // the player hears `disconnected`, with the reason, when the link closes
                case let .show(event):
                    if config.gameEvents.contains(event.kind), let peer = link.peer { emit(.game(event, opponent: peer)) }
                    guard isBot else { continue }
                    switch event {
                    case .yourTurn: botTurns.append(id)
                    case .gameOver: try? link.match?.game.handle(.localNewGame, now: now) // a bot rematches at once
                    default: break
                    }
                case let .fail(code, text):
                    return fail(id, code, text)
                }
            }
            pending.clearKeepingCapacity()
            link.match?.game.pollActions(into: &pending) // a bot's rematch queues more
        }
    }

    /// Makes the bot's due moves (issue 7 §4, the bot's CPU). A move on the classic board (or a
    /// random one) takes microseconds: it is made at once, inside the input that asked for it,
    /// so it never waits behind a search. A search on a larger board may use its whole node
    /// budget (about 200 ms): it is queued, and handed to the shell as a `think` action, one at
    /// a time (at most one core searches), the next going to the source address served longest
    /// ago (round-robin). Its answer comes back through `botMoveReady`.
    private mutating func runBotTurns(now: Instant) {
        guard let bot = config.bot else { return }
        while !botTurns.isEmpty {
            let id = botTurns.removeFirst()
            // The game is read where it lives (a copy would retain its buffers, then release them).
            guard let link = links[id], let match = link.match, match.game.state == .myTurn else { continue }
            if bot.searches(on: match.game.size) {
                if !waitingSearches.contains(id), searching?.link != id { waitingSearches.append(id) }
                continue
            }
            let cell = bot.chooseMove(on: match.game.board, as: match.game.piece, using: &botRandom)
            botMove(cell, in: match, link: id, now: now)
            drainGame(link, now: now)
        }
        startSearch()
    }

    /// Hands out the next search when none is out: the waiting move of the address served
    /// longest ago, oldest first within it.
    private mutating func startSearch() {
        guard let bot = config.bot, searching == nil, !waitingSearches.isEmpty, let random = searchRandom else { return }
        waitingSearches.removeAll { links[$0]?.game?.state != .myTurn || links[$0]?.closing != false }
        let pick = waitingSearches.indices.min { a, b in
            let x = lastSearched[links[waitingSearches[a]]?.address ?? ""] ?? 0
            let y = lastSearched[links[waitingSearches[b]]?.address ?? ""] ?? 0
            return (x, a) < (y, b)
        }
        guard let pick, let link = links[waitingSearches[pick]], let game = link.game else { return }
        waitingSearches.remove(at: pick)
        let ticket = nextTicket
        nextTicket += 1
        lastSearched[link.address] = ticket
        if lastSearched.count > 4 * links.count + 64 { // bounded by the links: forget the gone
            let live = Set(links.values.map(\.address))
            lastSearched = lastSearched.filter { live.contains($0.key) }
        }
        searching = (link.id, ticket, game.board)
        searchRandom = nil
        actions.append(.think(BotSearchJob(link: link.id, ticket: ticket, address: link.address, bot: bot,
                                           board: game.board, piece: game.piece, nodes: config.botNodes, random: random)))
    }

    /// A search handed out with `think` is done: the move is made if its game still waits for
    /// it in the same position (the game may have ended meanwhile), and the next search goes out.
    public mutating func botMoveReady(_ result: BotSearchResult, now: Instant) {
        guard let out = searching, out.ticket == result.ticket, out.link == result.link else { return }
        searching = nil
        searchRandom = result.random
        if let game = links[out.link]?.game, game.state == .myTurn, game.board == out.board, links[out.link]?.closing == false {
            if let match = links[out.link]?.match { botMove(result.cell, in: match, link: out.link, now: now) }
            drainGame(out.link, now: now)
        } else if links[out.link]?.game?.state == .myTurn {
            botTurns.append(out.link) // another position by now: search it again
        }
        runBotTurns(now: now)
    }

    /// The bot only picks legal moves: a refusal is our bug, and its game would wait for a move
    /// that never comes, so it is logged rather than swallowed (issue 7 §6).
    private mutating func botMove(_ cell: Int, in match: Match, link: LinkID, now: Instant) {
        do {
            try match.game.handle(.localMove(cell), now: now)
        } catch {
            actions.append(.log("the bot's move \(cell + 1) on link \(link) was refused: \(error)"))
        }
    }

    /// Searches waiting for their turn (not counting the one out), for tests and stats.
    public var queuedSearches: Int { waitingSearches.count }

    // MARK: - Peers

    private func findPeer(_ text: String) throws(CommandError) -> PeerInfo {
        let all = peers
        let lower = text.lowercased()
        if let id = ID128(hex: lower), let p = all.first(where: { $0.id == id }) { return p }
        let byName = all.filter { $0.name.lowercased() == lower }
        if byName.count == 1 { return byName[0] }
        if byName.count > 1 { throw .ambiguous(text, byName) }
        if lower.count >= 4, lower.allSatisfy(\.isHexDigit) {
            let byPrefix = all.filter { $0.id.description.hasPrefix(lower) }
            if byPrefix.count == 1 { return byPrefix[0] }
            if byPrefix.count > 1 { throw .ambiguous(text, byPrefix) }
        }
        throw .noSuchPeer(text)
    }

    // MARK: - Deadlines

    /// When a link next needs `handleTimeout`: handshake limit, liveness, ping, invitation, game.
    private func deadline(of link: Link) -> Instant? {
        guard !link.closing else { return nil }
        func after(_ at: Instant, _ ns: Int64) -> Instant { Instant(nanoseconds: at.nanoseconds &+ ns) }
        var best = after(link.lastHeard, deadAfterNs)
        if link.ready {
            best = min(best, after(max(link.lastHeard, link.lastPing ?? link.lastHeard), pingAfterNs))
        } else {
            best = min(best, after(link.openedAt, handshakeTimeoutNs))
        }
        if let inv = link.outgoingInvite { best = min(best, after(inv.at, inviteTimeoutNs)) }
        if let inv = link.incomingInvite { best = min(best, after(inv.at, inviteTimeoutNs) + Self.inviteGrace) }
        if let g = link.match?.game.nextDeadline { best = min(best, g) } // read in place: `game` copies
        return best
    }

    private mutating func refreshDeadlines() {
        for id in touched {
            guard let link = links[id] else { continue }
            let d = deadline(of: link)
            link.deadline = d // a class: one lookup, not a second one to write
            // Pushed only when earlier than the link's entry (see Link.heapAt).
            if let d, link.heapAt.map({ d < $0 }) ?? true {
                deadlines.push(d, id)
                link.heapAt = d
            }
        }
        touched.clearKeepingCapacity()
    }

    // MARK: - Output

    private mutating func send(_ id: LinkID, _ message: Message, version: UInt8? = nil) {
        guard let link = links[id] else { return }
        send(link, message, version: version)
    }

    /// The same for a link in hand (a game's frames: no lookup per frame).
    private mutating func send(_ link: Link, _ message: Message, version: UInt8? = nil) {
        guard !link.closing else { return }
        touch(link.id) // sending is how almost every state change shows; its timers may move
        var bytes = spareFrameBuffers.popLast() ?? []
        message.encode(into: &bytes, version: version ?? link.version ?? ProtocolVersion.current)
        actions.append(.send(link.id, bytes))
    }

    /// Gives back the bytes of a `send` action once they are written (or queued elsewhere):
    /// the buffer is reused for a later frame. Optional: a buffer not given back is freed.
    public mutating func recycle(_ bytes: consuming [UInt8]) {
        var buffer = bytes
        guard spareFrameBuffers.count < 4, buffer.capacity <= 4096 else { return }
        buffer.removeAll(keepingCapacity: true)
        spareFrameBuffers.append(buffer)
    }

    /// Marks a link's deadline for recomputing at the next refresh. A frame and its answer touch
    /// the same link several times in a row: one entry is enough.
    private mutating func touch(_ id: LinkID) {
        if touched.last != id { touched.append(id) }
    }

    private mutating func emit(_ event: consuming DaemonEvent) { actions.append(.event(event)) } // moved in, not copied

    /// A line for the operator's log, not the player.
    private mutating func log(_ line: String) { actions.append(.log(line)) }

    /// A protocol fault: ERROR to the peer, then close after flushing it.
    private mutating func fail(_ id: LinkID, _ code: ErrorCode, _ text: String) {
        guard let link = links[id], !link.closing else { return }
        send(id, .error(code: code.rawValue, message: text))
        links[id]?.closeReason = text
        // The event goes first: closing may report the link's end (peer-lost) at once. A
        // stranger's fault is the operator's business, not the player's.
        if let peer = link.peer {
            emit(.protocolError(peer, code: code, message: text, sent: true))
        } else {
            strangerFaults += 1
            log("sent ERROR \(code) to \(link.address): \(text)")
        }
        actions.append(.close(id, flush: true))
    }

    /// The peer sent ERROR: show it and close.
    private mutating func peerError(_ id: LinkID, _ rawCode: UInt16, _ text: String) {
        guard let link = links[id] else { return }
        links[id]?.closeReason = "\(link.peer?.name ?? "the peer") reported: \(text)"
        let code = ErrorCode(rawValue: rawCode) ?? .internalError
        if let peer = link.peer {
            emit(.protocolError(peer, code: code, message: text, sent: false))
        } else {
            strangerFaults += 1
            log("ERROR \(code) from \(link.address): \(text)")
        }
        actions.append(.close(id, flush: false))
    }
}

extension Capabilities {
    /// The lobby lists only peers that offer tic-tac-toe (capability bit 0, Protocol.md §6
    /// ANNOUNCE; TXT `g=ttt`, §10), whether discovery or a link's HELLO tells: a `tictac spheres`
    /// daemon announces the field alone.
    var listedInLobby: Bool { contains(.tictactoe) }
}
