import TicTacAPI
import TicTacDiscoveryCore
import TicTacEngine
import TicTacTime
import TicTacWire

/// Games that outlive their link (Protocol.md §13): paused when the link is lost mid-game (not
/// for a protocol fault), redialled while the peer is away, taken up again once both sides'
/// RESUMEs agree on the moves, adjourned when the window passes or our player says so. At most
/// one per peer: one link, one match, one game.
final class Suspensions {
    let config: DaemonConfig
    let links: LinkRegistry
    let outbox: Outbox
    let lobby: Lobby
    let matches: Matches
    var games: [ID128: Suspended] {
        get { kept }
        _modify { var all = takeOut(&kept); defer { kept = all }; yield &all }
    }
    // Read through a copy and changed while taken out (`takeOut`): no access to the stored property
    // spans a lookup's calls, so the compiler checks none at run time (docs/performance.md,
    // "Exclusivity"). Nothing a change calls reads it.
    private var kept: [ID128: Suspended] = [:]
    /// The last game with each peer that ended before its link was lost, its end perhaps unread.
    var ended: EndedGames
    /// Games stopped because the history could not store them: held in the store, not here, so
    /// a peer asking is told "busy" (it waits) until a restart with room takes them up.
    var unstored: Set<ID128> = []
    /// Closes a link at once as lost, not faulted (its game is kept): DaemonCore's own close.
    var dropLink: ((Link, String, Instant) -> Void)?
    /// How often a peer that is away is dialled.
    static let redial: Duration = .seconds(2)

    init(config: DaemonConfig, links: LinkRegistry, outbox: Outbox, lobby: Lobby, matches: Matches) {
        self.config = config
        self.links = links
        self.outbox = outbox
        self.lobby = lobby
        self.matches = matches
        ended = EndedGames(limit: config.maxKeptGames, perAddress: config.maxKeptGamesPerAddress,
                           perPrefix: config.maxKeptGamesPerPrefix)
    }

    /// Games rebuilt from the history after a restart: adjourned, offered to their peers when
    /// they are back (dialled as soon as discovery sees them).
    func restore(_ restored: [RestoredGame], ends: [RestoredEnd]) {
        for e in ends.prefix(config.maxKeptGames) { ended.keep(e.game, peer: e.peer, address: "") }
        // Past the bound a game cannot be kept: void here, so it is never claimed later (§13).
        for r in restored.dropFirst(config.maxKeptGames) {
            outbox.append(.record(GameFactRecord(peer: r.peer.id, peerName: r.peer.name, match: r.match, size: r.game.size,
                                                 number: r.game.round, key: r.game.resumeKey, fact: .void)))
        }
        for r in restored.prefix(config.maxKeptGames) where games[r.peer.id] == nil {
            var game = r.game
            matches.prepare(&game)
            let held = Suspended(peer: r.peer, match: Match(id: r.match, game: game), until: nil, dialled: nil, address: "", now: .zero)
            held.claimed = r.claimed
            games[r.peer.id] = held
        }
    }

    /// `link` is closing with a match on it: true when its game is kept (the caller then does not
    /// end it). Kept: a game in play, a link lost without a protocol fault, a peer that can resume.
    /// A game that just ended is remembered, for a peer that did not hear the end.
    func keep(_ link: Link, peer: PeerInfo, reason: String, now: Instant) -> Bool {
        // The rematch may have begun; until its roll decided the peer may not have read the end.
        if let last = link.match?.lastEnded, link.match?.game.key.map({ $0 == last.key }) ?? true, !link.faulted,
           peer.capabilities.contains(.resume) {
            ended.keep(last, peer: peer.id, address: link.address)
        }
        guard config.resumeWindow > .zero, !link.faulted, peer.capabilities.contains(.resume),
              config.capabilities.contains(.resume), let match = link.match, games[peer.id] == nil,
              hasShare(link.address), match.game.pause(now: now, lastHeard: link.liveness.lastHeard) else { return false }
        let held = Suspended(peer: peer, match: match, until: now + config.resumeWindow,
                             dialled: link.port.map { (link.address, $0) }, address: link.address, now: now)
        held.claimAt = now + config.adjournLimit
        games[peer.id] = held
        matches.drain(link, now: now) // the `interrupted` record
        links.seatSuspended(peer.id)
        outbox.emit(.gameInterrupted(peer, window: config.resumeWindow, reason: reason))
        // The peer already came back on another link (it saw the loss first): offer there now.
        if let other = links.links(to: peer.id).first(where: { $0 !== link && $0.ready && !$0.closing }) {
            linkReady(other, now: now)
        }
        return true
    }

    /// A game kept from `address` stays within the bound and its address's and prefix's
    /// shares. Games restored from the history are not counted: they are bounded when loaded,
    /// and a restart must not let yesterday's throwaway peers crowd out today's games.
    private func hasShare(_ address: String) -> Bool {
        let prefix = SourcePrefix.of(address)
        var live = 0, fromAddress = 0, fromPrefix = 0
        for s in games.values where !s.address.isEmpty {
            live += 1
            if s.address == address { fromAddress += 1 }
            if SourcePrefix.of(s.address) == prefix { fromPrefix += 1 }
        }
        return live < config.maxKeptGames && fromAddress < config.maxKeptGamesPerAddress && fromPrefix < config.maxKeptGamesPerPrefix
    }

    /// Our player is in something with another peer (a game, an invitation, a dial): a RESUME
    /// from `peer` is answered busy. An invitation on a link to `peer` gives way to the game.
    func busy(apartFrom peer: ID128) -> Bool {
        guard links.tracksSeat else { return false }
        switch links.seat {
        case .idle: return false
        case let .suspended(id), let .dialling(id, _): return id != peer
        case let .inviting(link), let .invited(link): return links[link]?.peer?.id != peer
        case .playing: return true
        }
    }

    /// Our player is free and a peer we told "busy" waits on a live link: offer again now.
    private var reofferDue: Bool {
        (!links.tracksSeat || links.seat == .idle) && games.values.contains { s in
            s.toldBusy.flatMap { links[$0] }.map { $0.ready && !$0.closing } ?? false
        }
    }

    /// When `handleTimeout` has work here.
    var nextDeadline: Instant? {
        guard !games.isEmpty else { return nil }
        if reofferDue { return .zero }
        var soonest: Instant?
        for s in games.values {
            soonest = Instant.earliest(soonest, Instant.earliest(s.until, Instant.earliest(s.offeredOn == nil ? s.nextDial : nil, claimDue(s))))
        }
        return soonest
    }

    /// Discovery sees a peer we hold a game with and have no link to: dial it now, not at the
    /// next redial.
    func presence(_ event: DiscoveryEvent, now: Instant) {
        guard case let .found(p) = event, let s = games[p.id], links.links(to: p.id).isEmpty else { return }
        s.nextDial = now
        timeouts(now: now)
    }

    /// A link closed: an offer made on it waits for the next link.
    func linkGone(_ id: LinkID, now: Instant) {
        for s in games.values where s.offeredOn == id { answered(s, now: now) }
    }

    /// Our offer got its answer, or none will come: a resignation held for it is made apart.
    func answered(_ s: Suspended, now: Instant) {
        s.offeredOn = nil
        if s.resignWhenTaken { resign(s.peer.id, now: now) }
    }

    /// Windows that closed become adjourned; peers still away are dialled again; a peer told
    /// "busy" is offered the game again once our player is free.
    func timeouts(now: Instant) {
        if reofferDue {
            for s in games.values {
                guard let id = s.toldBusy, let link = links[id], link.ready, !link.closing else { continue }
                linkReady(link, now: now)
            }
        }
        for (id, s) in games {
            if let until = s.until, now >= until { adjourn(id, now: now) }
            if let due = claimDue(s), now >= due { claim(s, now: now) }
            guard s.offeredOn == nil, now >= s.nextDial else { continue }
            s.nextDial = now + Self.redial
            guard links.links(to: id).isEmpty else { continue }
            if let p = lobby.present[id], !p.addresses.isEmpty, p.port != 0, p.capabilities.contains(.resume) {
                outbox.append(.dial(id, addresses: p.addresses, port: p.port))
            } else if let d = s.dialled, s.until != nil { // adjourned: only once discovery sees it again
                outbox.append(.dial(id, addresses: [d.address], port: d.port))
            }
        }
    }

    /// The game with `peer` stops waiting: adjourned (our player left it, or the window passed).
    /// It is offered again the next time a link to the peer is ready.
    func adjourn(_ peer: ID128, now: Instant) {
        guard let s = games[peer], s.until != nil else { return }
        s.until = nil
        links.suspensionEnded(peer)
        outbox.append(.record(GameFactRecord(.adjourned, of: s.match, peer: peer, peerName: s.peer.name)))
        outbox.emit(.gameAdjourned(s.peer))
    }

    /// Our player resigns the waiting game: a loss now; the peer hears it in RESUME.
    func resign(_ peer: ID128, now: Instant) {
        guard let s = games[peer], s.match.game.isPaused, !s.claimed else { return }
        if s.offeredOn != nil, !s.resignWhenTaken { return s.resignWhenTaken = true } // until the answer
        s.resignWhenTaken = false
        do { try s.match.game.perform(.resign, now: now) } catch { return }
        flushFacts(s)
        links.suspensionEnded(peer)
    }

    /// A link to `peer` is ready: offer the game we hold with it.
    func linkReady(_ link: Link, now: Instant) {
        guard let peer = link.peer, peer.capabilities.contains(.resume) else { return }
        guard let s = games[peer.id] else {
            if let r = ended.offer(to: peer.id, on: link.id) { outbox.send(link, .resume(r)) }
            return
        }
        s.offeredOn = link.id
        let resume = offer(s)
        s.toldBusy = resume.status == .busy ? link.id : nil
        outbox.send(link, .resume(resume))
    }

    /// RESUMEs a link may carry: an offer, a claim's answer, and an offer again after a refusal
    /// or a busy answer, with room to spare.
    static let maxPerLink = 6

    /// RESUME from the peer (Protocol.md §13).
    func received(_ r: Resume, on link: Link, now: Instant) {
        guard let peer = link.peer else { return }
        // A game in play on this link is not waiting: a RESUME now is a replay or a fault.
        if link.match != nil { return outbox.fail(link, .unexpectedMessage, "RESUME during a game") }
        link.floods.resumesHeard += 1
        guard link.floods.resumesHeard <= Self.maxPerLink else {
            return outbox.fail(link, .unexpectedMessage, "more than \(Self.maxPerLink) RESUME on one link")
        }
        // The game is still in play (or just ended) on an older link here: the peer lost that
        // link and asks on a new one. The new link takes over: the old closes as lost, and the
        // game is kept (or its end remembered) to be reconciled below.
        if let old = links.links(to: peer.id).first(where: { $0 !== link && !$0.closing
                && ($0.match?.game.resumeKey == r.key || $0.match?.lastEnded?.key == r.key) }) {
            dropLink?(old, "\(peer.name) came back on a new link: the old one was lost", now)
        }
        if let (answers, facts, game) = ended.received(r, from: peer.id, on: link.id) {
            // A game we finished: the peer missed our last MOVE or RESIGN (it reconciles from our
            // answer), or its own end crossed ours (settled alike on both sides).
            for answer in answers { outbox.send(link, .resume(answer)) }
            for fact in facts {
                outbox.append(.record(GameFactRecord(peer: peer.id, peerName: peer.name, match: game.match, size: game.size,
                                                     number: game.number, key: game.key, fact: fact)))
            }
            return
        }
        guard let s = games[peer.id], s.match.game.resumeKey == r.key else {
            if unstored.contains(r.key), r.status != .unknown {
                return outbox.send(link, .resume(Resume(key: r.key, moves: 0, digest: GameKey.digest(key: r.key, moves: []),
                                                        last: nil, status: .busy)))
            }
            // Not a game we hold with this peer (or none): say so, whatever it claims.
            if r.status != .unknown {
                outbox.send(link, .resume(Resume(key: r.key, moves: 0, digest: Array(repeating: 0, count: 32), last: nil, status: .unknown)))
            }
            return
        }
        if s.claimed || r.status.isClaim { return claimAnswered(s, r, on: link, now: now) }
        if s.offeredOn != link.id { linkReady(link, now: now) } // answer with ours first
        if s.match.game.rollUndecided, !decideRoll(s, r, on: link, now: now) { return }
        let game = s.match.game
        if !game.isPaused {
            // We resigned while apart (our RESUME said so).
            recordMissing(s, r)
            if r.status == .resigned { s.match.game.bothResignedApart(); flushFacts(s) }
            return settled(s, on: link)
        }
        switch r.status {
        case .unknown:
            return abandoned(s, "it says it has no such game", on: link, now: now)
        case .resigned:
            recordMissing(s, r)
            s.match.game.peerResignedApart(now: now)
            flushFacts(s)
            outbox.emit(.gameResumed(peer, resigned: true, opponentMoved: s.match.game.opponentMoved))
            return settled(s, on: link)
        case .busy:
            return answered(s, now: now) // it is in another game: offered again on the next link
        case .ready, .claimed, .claimAccepted, .claimRefused:
            break
        }
        let reconciled = Reconcile.decide(ours: game.moves, weMovedFirst: game.piece == .o, key: r.key, theirs: r)
        if busy(apartFrom: peer.id) {
            // Our player is in another game (the peer was told `busy`), but a move of the peer's
            // that ended the game needs no player: the game ends here as it did there.
            if case let .weMissTheirs(cell) = reconciled, game.wouldEnd(peerMove: cell) { endApart(s, peerMove: cell, on: link, now: now) }
            return
        }
        switch reconciled {
        case .conflict(let why):
            abandoned(s, why, on: link, now: now)
        case .same, .theyMissOurs:
            take(s, on: link, peerMove: nil, now: now)
        case .weMissTheirs(let cell):
            take(s, on: link, peerMove: cell, now: now)
        }
    }

    /// A roll kept undecided meets the peer's RESUME: decided from the secret it gives, or
    /// forgotten when the peer holds no such roll (it never read our commitment, so nobody
    /// decided). False when the game is gone.
    private func decideRoll(_ s: Suspended, _ r: Resume, on link: Link, now: Instant) -> Bool {
        guard r.status != .unknown, let secret = r.secret else {
            s.match.game.forgetRoll()
            flushFacts(s)
            outbox.emit(.gameVoid(s.peer, reason: r.status == .unknown ? "\(s.peer.name) never read our roll: no game was decided"
                                                                          : "\(s.peer.name) did not tell its roll: no game was decided"))
            forget(s.peer.id)
            return false
        }
        do throws(GameFault) {
            try s.match.game.decideRoll(theirSecret: secret, now: now)
        } catch {
            s.match.game.forgetRoll()
            flushFacts(s)
            forget(s.peer.id)
            outbox.fail(link, error.code, error.text)
            return false
        }
        flushFacts(s)
        return true
    }

    /// What RESUME says of the game we hold with `s.peer`.
    func offer(_ s: Suspended) -> Resume {
        let game = s.match.game
        guard let key = game.resumeKey else {
            return Resume(key: ID128(high: 0, low: 0), moves: 0, digest: Array(repeating: 0, count: 32), last: nil, status: .unknown)
        }
        let elsewhere = busy(apartFrom: s.peer.id)
        let status: Resume.Status = !game.isPaused ? .resigned : s.claimed ? .claimed : elsewhere ? .busy : .ready
        return Resume(key: key, moves: UInt16(game.moves.count), digest: GameKey.digest(key: key, moves: game.moves),
                      last: game.moves.last.map { UInt16($0) }, status: status, secret: game.resumeSecret)
    }

    /// A resignation apart meets the peer's list one move longer (its MOVE crossed the
    /// resignation): the move was made, so our history keeps it too and one list stands (§13).
    func recordMissing(_ s: Suspended, _ r: Resume) {
        let g = s.match.game
        guard let key = g.key, r.status != .unknown,
              case let .weMissTheirs(cell) = Reconcile.decide(ours: g.moves, weMovedFirst: g.piece == .o, key: key, theirs: r)
        else { return }
        let moved = GameFact.moved(number: g.moves.count + 1, cell: cell, byUs: false)
        outbox.append(.record(GameFactRecord(moved, of: s.match, peer: s.peer.id, peerName: s.peer.name)))
    }

    /// The game goes on, on `link`.
    private func take(_ s: Suspended, on link: Link, peerMove: Int?, now: Instant) {
        games[s.peer.id] = nil
        links.suspensionEnded(s.peer.id)
        link.ignoreGameFrames = false
        matches.prepare(&s.match.game, on: link) // the next games are played on this link
        links.setActivity(link, .playing(s.match))
        outbox.emit(.gameResumed(s.peer, resigned: false, opponentMoved: s.match.game.opponentMoved))
        s.match.game.showResumed()
        do {
            try s.match.game.resume(peerMove: peerMove, now: now)
        } catch {
            return outbox.fail(link, error.code, error.text)
        }
        matches.drain(link, now: now)
        // The peer's last move ended the game (it had ended there): no next game on this link.
        if s.match.game.state == .done, links[link.id]?.match === s.match { return matches.end(link, byUs: false, now: now) }
        guard s.resignWhenTaken else { return }
        try? s.match.game.perform(.resign, now: now) // RESIGN, as in any game; the match goes on
        matches.drain(link, now: now)
    }
}
