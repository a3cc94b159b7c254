import TicTacAPI
import TicTacEngine
import TicTacTime
import TicTacWire

/// Invitations either way (Protocol.md §6 INVITE, ACCEPT, DECLINE, CANCEL), the dials our
/// invitations wait for, and the one-game-at-a-time rule of a human (the seat). A bot playing
/// under our name (BotPlayer) answers the peer's invitations itself and plays any number of games.
final class Invitations {
    /// Our invitations waiting for a dial to finish its handshake: peer -> when asked.
    private(set) var dialing: [ID128: Instant] {
        get { dials }
        _modify { var all = takeOut(&dials); defer { dials = all }; yield &all }
    }
    // Read through a copy and changed while taken out (`takeOut`): no access to the stored property
    // spans a lookup's calls, so the compiler checks none at run time (docs/performance.md,
    // "Exclusivity"). Nothing a change calls reads it.
    private var dials: [ID128: Instant] = [:]
    private let config: DaemonConfig
    private let links: LinkRegistry
    private let outbox: Outbox
    private let lobby: Lobby
    private let matches: Matches
    /// The bot playing under our name; nil for a human.
    private let bot: BotPlayer?
    private let random: CoreRandom
    /// Declines per source address in the current second (`maxDeclinesPerAddressPerSecond`).
    private var declinesBy = AddressBudget()
    /// Until when a peer whose invitation to our player lapsed or was declined is answered
    /// `busy` without asking the player (`reinviteQuiet`, Protocol.md §8).
    private var quietUntil: [ID128: Instant] = [:]
    /// Links holding an invitation for our player (`Link.heldInvite`), in the order they came.
    private var held: [LinkID] {
        get { heldLinks }
        _modify { var all = takeOut(&heldLinks); defer { heldLinks = all }; yield &all }
    }
    private var heldLinks: [LinkID] = [] // as `dials`

    init(config: DaemonConfig, links: LinkRegistry, outbox: Outbox, lobby: Lobby, matches: Matches, bot: BotPlayer?, random: CoreRandom) {
        self.config = config
        self.links = links
        self.outbox = outbox
        self.lobby = lobby
        self.matches = matches
        self.bot = bot
        self.random = random
    }

    // MARK: Our player

    /// Invites a peer by name or id: on its link, else through a dial (`dial` action).
    func invite(_ who: String, now: Instant) throws(CommandError) {
        let peer = try lobby.find(who)
        if links.tracksSeat { // one game at a time
            switch links.seat {
            case let .invited(id):
                // Inviting the peer whose invitation waits for our answer is saying yes to it:
                // two players who invite each other play (Protocol.md §6, INVITE).
                guard let link = links[id], let invite = link.incomingInvite else { break }
                if link.provenID == peer.id, !link.closing { return accept(link, invite, now: now) }
                throw .answerFirst(link.peer?.name ?? peer.name)
            case .inviting, .dialling: throw .alreadyInvited
            case .playing, .suspended: throw .busy
            case .idle: break
            }
        }
        guard let link = links.announced(peer.id) else {
            // Presence only: dial it; the invitation goes out once the link is up.
            guard let p = lobby.present[peer.id], !p.addresses.isEmpty else { throw .noSuchPeer(who) }
            guard dialing[peer.id] == nil else { throw .alreadyInvited }
            dialing[peer.id] = now
            links.seatDialling(peer.id, since: now)
            outbox.append(.dial(peer.id, addresses: p.addresses, port: p.port))
            outbox.emit(.inviteSent(to: peer))
            return
        }
        try send(on: link, to: peer, now: now, announce: true)
    }

    func accept(now: Instant) throws(CommandError) {
        guard let link = links.seatLink, let invite = link.incomingInvite else { throw .noInvitation }
        accept(link, invite, now: now)
    }

    func decline(now: Instant) throws(CommandError) {
        guard let link = links.seatLink, let invite = link.incomingInvite else { throw .noInvitation }
        links.setActivity(link, .idle)
        if let peer = link.peerID { quiet(peer, now: now) }
        outbox.send(link, .decline(gameID: invite.id, reason: .declined))
    }

    /// Withdraws our invitation, or stops the dial it waits for.
    func cancel() throws(CommandError) {
        if case let .dialling(peer, _) = links.seat {
            endDial(peer) // the invitation is not sent yet, and now never will be
            return
        }
        guard let link = links.seatLink, let invite = link.outgoingInvite else { throw .nothingToCancel }
        links.setActivity(link, .idle)
        link.ignoreGameFrames = true
        outbox.send(link, .cancel(gameID: invite.id))
    }

    private func accept(_ link: Link, _ invite: Invitation, now: Instant) {
        outbox.send(link, .accept(gameID: invite.id))
        matches.start(link, gameID: invite.id, size: invite.size, now: now)
    }

    /// Sends our invitation on a ready link. `announce`: tell the player (a dialled invitation
    /// was told when the dial began).
    func send(on link: Link, to peer: PeerInfo, now: Instant, announce: Bool = false) throws(CommandError) {
        guard link.outgoingInvite == nil else { throw .alreadyInvited }
        guard link.match == nil else { throw .busy }
        let invitation = Invitation(id: random.id(), size: config.size, at: now)
        links.setActivity(link, .inviting(invitation))
        resend(invitation, on: link)
        if announce { outbox.emit(.inviteSent(to: peer)) }
    }

    /// Sends (again) an invitation of ours already recorded on a link.
    func resend(_ invite: Invitation, on link: Link) {
        outbox.send(link, .invite(Invite(gameID: invite.id, rows: UInt8(invite.size.rows),
                                         cols: UInt8(invite.size.cols), k: UInt8(invite.size.k))))
    }

    /// A bot invites a peer it dialled whenever it has nothing pending with it: on the link that
    /// survived, whichever side dialled it (Protocol.md §4, duplicate links).
    func botInviteIfWanted(_ peerID: ID128, now: Instant) {
        guard bot?.invites(peerID) == true else { return }
        let toPeer = links.links(to: peerID).filter { !$0.closing }
        guard toPeer.allSatisfy(\.isIdle),
              let link = toPeer.first(where: { $0.announced && $0.ready }), let peer = link.peer else { return }
        do {
            try send(on: link, to: peer, now: now, announce: true)
        } catch {
            outbox.log("the bot could not invite \(peer.name): \(error)")
        }
    }

    // MARK: Dials

    /// A link to `peer` finished its handshake: an invitation waiting for that dial goes out.
    func linkReady(_ link: Link, _ peer: PeerInfo, now: Instant) {
        guard dialing[peer.id] != nil else { return }
        endDial(peer.id)
        do {
            try send(on: link, to: peer, now: now)
        } catch {
            outbox.log("the invitation to \(peer.name) waiting for its dial was not sent: \(error)")
        }
    }

    /// A `dial` action ended without a link.
    func dialFailed(_ peer: ID128, reason: String) {
        guard dialing[peer] != nil else { return }
        endDial(peer)
        // Gone from the lobby meanwhile (a refused dial takes a peer that left off it, Protocol.md
        // §7): the player was told "ben has left" by peer-lost; the system's words are for the log.
        guard lobby.present[peer] != nil || links.announced(peer) != nil else {
            return outbox.log("dial to \(peer) failed after it left the lobby: \(reason)")
        }
        outbox.emit(.connectFailed(lobby.present[peer]?.name ?? peer.description, reason: reason))
    }

    /// When the oldest dial gives up.
    var nextDialDeadline: Instant? { dialing.values.min().map { $0 + DaemonCore.dialTimeout } }

    func dialTimeouts(now: Instant) {
        for (peer, at) in dialing where now >= at + DaemonCore.dialTimeout {
            dialFailed(peer, reason: "no answer within \(DaemonCore.dialTimeout)")
        }
    }

    private func endDial(_ peer: ID128) {
        dialing[peer] = nil
        links.dialEnded(peer)
    }

    // MARK: The peer

    /// INVITE on a ready link.
    func received(_ invite: Invite, on link: Link, now: Instant) {
        guard let peer = link.peer else { return }
        guard let size = try? BoardSize(rows: Int(invite.rows), cols: Int(invite.cols), k: Int(invite.k)) else {
            return refuse(invite, .unsupported, on: link, now: now)
        }
        let offered = Invitation(id: invite.gameID, size: size, at: now)
        if link.incomingInvite?.id == invite.gameID || link.heldInvite?.id == invite.gameID || link.match?.id == invite.gameID {
            return // repeated on a link that replaced a duplicate: the same invitation
        }
        if link.match != nil || link.incomingInvite != nil || link.heldInvite != nil {
            outbox.log("declined \(peer.name)'s invitation: busy (a game or an invitation on that link)")
            return refuse(invite, .busy, on: link, now: now)
        }
        let toPeer = links.links(to: peer.id).filter { $0.ready }
        if let mine = toPeer.first(where: { $0.outgoingInvite != nil }) {
            // Crossing invitations, on this link or on a duplicate: the lower instance id's stands
            // (Protocol.md §6, INVITE; §4, duplicate links).
            if config.instanceID < peer.id { return }
            links.setActivity(mine, .idle)
            if mine !== link { mine.ignoreGameFrames = true }
            return accept(link, offered, now: now)
        }
        if toPeer.contains(where: { $0 !== link && $0.match != nil }) {
            return refuse(invite, .busy, on: link, now: now) // one game per pair
        }
        if dialing[peer.id] != nil {
            // We were dialling it to invite it, and it invited us first: play (the dial's link,
            // if it lands, is a duplicate the link rule settles).
            endDial(peer.id)
            return accept(link, offered, now: now)
        }
        if let bot {
            if let (reason, why) = bot.refusal(of: size, from: peer, on: link, now: now) {
                outbox.log(why)
                return refuse(invite, reason, on: link, now: now)
            }
            return accept(link, offered, now: now)
        }
        if let until = quietUntil[peer.id], now < until {
            outbox.log("declined \(peer.name)'s invitation: busy (invited again within \(config.reinviteQuiet))")
            return refuse(invite, .busy, on: link, now: now)
        }
        if links.seat != .idle, links.seat.link != link.id {
            // Busy with another peer: playing, inviting, dialling, or answering another invitation
            // (that one may be held, to be asked next).
            if case .invited = links.seat, hold(offered, on: link, from: peer) { return }
            outbox.log("declined \(peer.name)'s invitation: busy")
            return refuse(invite, .busy, on: link, now: now)
        }
        links.setActivity(link, .invited(offered))
        outbox.emit(.invited(by: peer, size: size))
    }

    /// Holds the peer's invitation behind the one our player is answering, within the bounds
    /// (`maxHeldInvitations`, one per source address): false when it is to be declined `busy`.
    private func hold(_ invite: Invitation, on link: Link, from peer: PeerInfo) -> Bool {
        held.removeAll { links[$0]?.heldInvite == nil }
        guard held.count < config.maxHeldInvitations,
              !held.contains(where: { links[$0]?.address == link.address }) else { return false }
        link.heldInvite = invite
        held.append(link.id)
        outbox.emit(.inviteHeld(by: peer, size: invite.size, ahead: held.count))
        return true
    }

    /// After every input, held invitations follow the seat: a free player is asked the oldest
    /// one; a player who started a game or a suspended one declines them all `busy`.
    func settleHeld(now: Instant) {
        guard !held.isEmpty else { return }
        switch links.seat {
        case .invited: return
        case .idle:
            while !held.isEmpty {
                guard let link = links[held.removeFirst()], let invite = link.heldInvite else { continue }
                link.heldInvite = nil
                guard !link.closing, link.isIdle, let peer = link.peer else { continue }
                links.setActivity(link, .invited(invite))
                return outbox.emit(.invited(by: peer, size: invite.size))
            }
        case .inviting, .dialling, .playing, .suspended:
            for id in held {
                guard let link = links[id], let invite = link.heldInvite else { continue }
                link.heldInvite = nil
                guard !link.closing, let peer = link.peer else { continue }
                outbox.send(link, .decline(gameID: invite.id, reason: .busy))
                outbox.emit(.heldInviteDeclined(by: peer))
            }
            held = []
        }
    }

    /// DECLINE of the peer's INVITE, within the flood limits (Protocol.md §5): past them the
    /// link is closed with ERROR instead.
    private func refuse(_ invite: Invite, _ reason: DeclineReason, on link: Link, now: Instant) {
        let perLink = config.maxDeclinesPerLinkPerSecond, perAddress = config.maxDeclinesPerAddressPerSecond
        if perLink > 0, !link.floods.declines.count(now: now, limit: perLink) {
            return outbox.fail(link, .unexpectedMessage, "INVITE flood: more than \(perLink) declined in one second (Protocol.md §5)")
        }
        if perAddress > 0 {
            guard declinesBy.count(link.address, now: now, limit: perAddress) else {
                return outbox.fail(link, .unexpectedMessage,
                                   "INVITE flood: more than \(perAddress) declined in one second from \(link.address) (Protocol.md §5)")
            }
        }
        outbox.send(link, .decline(gameID: invite.gameID, reason: reason))
    }

    /// `peer`'s invitation to our player lapsed or was declined: its next one within
    /// `reinviteQuiet` is declined `busy` unasked.
    private func quiet(_ peer: ID128, now: Instant) {
        guard config.reinviteQuiet > .zero else { return }
        if quietUntil.count >= 256 { quietUntil = quietUntil.filter { now < $0.value } }
        quietUntil[peer] = now + config.reinviteQuiet
    }

    /// ACCEPT: our invitation with that id becomes a game (any other id is a stale answer).
    func accepted(_ gameID: ID128, on link: Link, now: Instant) {
        guard let mine = link.outgoingInvite, mine.id == gameID else { return }
        matches.start(link, gameID: gameID, size: mine.size, now: now)
    }

    /// DECLINE of our invitation with that id.
    func declined(_ gameID: ID128, reason: DeclineReason, on link: Link) {
        guard let mine = link.outgoingInvite, mine.id == gameID, let peer = link.peer else { return }
        links.setActivity(link, .idle)
        outbox.emit(.declined(by: peer, reason: reason))
    }

    /// CANCEL: the peer withdrew its invitation, or left the match (or withdrew an invitation we
    /// had already accepted: its CANCEL crossed our ACCEPT). It sends no more game frames.
    func cancelled(_ gameID: ID128, on link: Link, now: Instant) {
        guard let peer = link.peer else { return }
        if link.incomingInvite?.id == gameID {
            links.setActivity(link, .idle)
            outbox.emit(.inviteCancelled(by: peer))
        } else if link.heldInvite?.id == gameID {
            link.heldInvite = nil
            outbox.emit(.inviteCancelled(by: peer))
        } else if let match = link.match, match.id == gameID {
            matches.end(link, byUs: false, now: now)
        }
    }

    /// Invitations on `link` that waited too long: ours is withdrawn, the peer's lapses.
    func timeouts(_ link: Link, now: Instant) {
        if let invite = link.outgoingInvite, now >= invite.at + config.inviteTimeout, let peer = link.peer {
            links.setActivity(link, .idle)
            link.ignoreGameFrames = true
            outbox.send(link, .cancel(gameID: invite.id))
            outbox.emit(.declined(by: peer, reason: .noAnswer))
        }
        if let invite = link.incomingInvite, now >= invite.at + config.inviteTimeout + DaemonCore.inviteGrace, let peer = link.peer {
            // Nobody answered it: the invitee is free again, and the player hears so.
            links.setActivity(link, .idle)
            outbox.send(link, .decline(gameID: invite.id, reason: .noAnswer))
            outbox.emit(.inviteExpired(by: peer))
            quiet(peer.id, now: now)
        }
        if let invite = link.heldInvite, now >= invite.at + config.inviteTimeout + DaemonCore.inviteGrace, let peer = link.peer {
            link.heldInvite = nil // its turn never came
            outbox.send(link, .decline(gameID: invite.id, reason: .noAnswer))
            outbox.emit(.inviteExpired(by: peer))
            quiet(peer.id, now: now)
        }
    }

    /// `link` closed and `successor` (another link to the same peer) carries on: our invitation
    /// moves there, sent again once it is ready.
    func move(from link: Link, to successor: Link) {
        guard let invite = link.outgoingInvite, successor.isIdle else { return }
        links.setActivity(successor, .inviting(invite))
        if successor.ready { resend(invite, on: successor) }
    }
}
