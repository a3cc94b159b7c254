import TicTacAPI
import TicTacEngine
import TicTacTime
import TicTacWire

// Theory of operation (Protocol.md §14)
//
// A watcher's link asks (WATCH) for a game one of our links carries. Each watch remembers what
// the watcher was told of it: the game's key, how many of its moves, whether its end. `sync`
// compares that with the game as it is and sends the difference: WATCHING for a game not yet
// described, WATCH_MOVE per new move, WATCH_END once. Nothing of the game is changed or
// delayed: `sync` runs in `DaemonCore.pollLateActions`, which the shell calls once it has sent
// the input's other frames, and watchers' links are late links (Outbox) whose every frame waits
// for that. A game whose board goes within one input (a bot's rematch, a match that ends, a
// link that closes) is synced just before (`Matches.beforeGameGone`), its end then told.
// A watcher's link is bounded (`DaemonAction.boundQueue`): one that does not read is dropped by
// the shell once its unsent frames pass `DaemonConfig.maxWatcherBacklog`.
// Either player's no counts: a game is served only while the opponent allows it too, as its
// HELLO's bit said and then its SPECTATORS say (`peerChose`); our own player's changes of mind
// go to every player we have a link with (`setAllowed`, `linkProven`), a few per second at most.

/// The watchers of our games (the serving side of Protocol.md §14).
final class Spectators: MessagePart {
    /// What one watcher follows, and what it was told so far.
    struct Follow {
        /// The link whose game it watches.
        var game: LinkID
        /// The game described (WATCHING), by key; nil before the first.
        var key: ID128?
        /// Its moves told.
        var sent = 0
        /// WATCH_END told for `key`.
        var ended = false
    }

    private let config: DaemonConfig
    private let links: LinkRegistry
    private let outbox: Outbox
    /// By the watcher's link. Our player hears how many watch when that changes, and the
    /// players whose games they watch are told (SPECTATORS field 2).
    private(set) var follows: [LinkID: Follow] = [:] {
        didSet {
            guard follows.count != oldValue.count || follows.contains(where: { oldValue[$0.key]?.game != $0.value.game }) else { return }
            report()
            countsChanged()
        }
    }
    /// The count last told (`DaemonEvent.watchers`).
    private var reported = 0
    /// Watchers each opponent's daemon serves of the game on that link (its SPECTATORS field 2).
    private var theirs: [LinkID: UInt16] = [:]
    /// What each player's link was last told of the watchers we serve of its game.
    private var toldCounts: [LinkID: UInt16] = [:]
    /// When the counts are told next (nil: nothing new), and when they last were.
    private var countsDue: Instant?
    private var lastCountRound: Instant?
    /// The latest time an input brought (a change between inputs is due from then).
    private var lastNow = Instant(nanoseconds: 0)
    /// One round of counts at most this often: with the choice's 4 rounds a second, within the
    /// receiver's bound of 8 SPECTATORS a second (Protocol.md §14).
    static let countSpacing: Duration = .milliseconds(500)
    /// Links that asked anything: they stay watchers' links (no INVITE, Protocol.md §14).
    private(set) var watchers: Set<LinkID> = []
    /// Our player allows watchers (`--no-spectators`, the full screen's key).
    private(set) var allowed: Bool
    /// SPECTATORS rounds sent in the current second (`DaemonConfig.maxSpectatorChangesPerSecond`).
    private var notices = RateWindow()
    /// A change that waits for that second to end: when it goes.
    private var choiceDeadline: Instant?
    /// When `timeouts` has work: a choice or counts to tell.
    var nextDeadline: Instant? { Instant.earliest(choiceDeadline, countsDue) }

    init(config: DaemonConfig, links: LinkRegistry, outbox: Outbox) {
        self.config = config
        self.links = links
        self.outbox = outbox
        allowed = config.spectators
    }

    func isWatcher(_ link: Link) -> Bool { watchers.contains(link.id) }

    /// How many watch the game on `link`.
    func count(watching game: LinkID) -> Int { follows.values.count { $0.game == game } }

    let kinds: [Message.Kind] = [.watch, .spectators]

    func received(_ message: Message, on link: Link, now: Instant) {
        switch message {
        case let .watch(w): received(w, on: link, now: now)
        case let .spectators(on, watchers): peerChose(on, watchers: watchers, on: link, now: now)
        default: break
        }
    }

    /// A WATCH from `link`.
    func received(_ watch: Watch, on link: Link, now: Instant) {
        lastNow = now
        guard link.isIdle, link.heldInvite == nil else {
            return outbox.fail(link, .unexpectedMessage, "WATCH on a link that carries an invitation or a game")
        }
        // Each WATCH costs an answer: a watcher that asks again and again is a flood (Protocol.md §14).
        let limit = config.maxWatchesPerSecond
        guard limit == 0 || link.floods.watches.count(now: now, limit: limit) else {
            return outbox.fail(link, .unexpectedMessage, "WATCH flood: more than \(limit) in one second (Protocol.md §14)")
        }
        if !watchers.contains(link.id) {
            watchers.insert(link.id)
            // From now on its frames go after every game's, and its backlog is bounded.
            outbox.makeLate(link.id)
            outbox.append(.boundQueue(link.id, maxBytes: config.maxWatcherBacklog))
        }
        switch watch.action {
        case .stop:
            follows[link.id] = nil
            outbox.send(link, .watchStop(.stopped))
        case .list:
            guard allowed else { return outbox.send(link, .watchStop(.off)) }
            outbox.send(link, .games(listed()))
        case .follow:
            follows[link.id] = nil // a second WATCH replaces the first
            guard allowed else { return outbox.send(link, .watchStop(.off)) }
            guard let game = gameLink(against: watch.opponent) else { return outbox.send(link, .watchStop(.noGame)) }
            // Either player's no counts: an opponent that serves no watchers (`--no-spectators`,
            // or a daemon without §14) said none (Protocol.md §14).
            guard Self.opponentAllows(game) else { return outbox.send(link, .watchStop(.off)) }
            guard count(watching: game.id) < config.maxWatchersPerGame, follows.count < config.maxWatchers,
                  watchers(from: link.address) < config.maxWatchersPerAddress else {
                return outbox.send(link, .watchStop(.full))
            }
            follows[link.id] = Follow(game: game.id)
            if let peer = link.peer { outbox.log("\(peer.name) (\(peer.id.description.prefix(8))) watches the game on link \(game.id)") }
        }
    }

    /// Watchers served whose links come from `address` (one host cannot take every place).
    private func watchers(from address: String) -> Int { links.ids(from: address).count { follow($0) != nil } }

    /// `id`'s follow, looked up in a copy of `follows`: no access to the property spans the
    /// lookup's calls, so the compiler checks none at run time (docs/performance.md, "Exclusivity").
    private func follow(_ id: LinkID) -> Follow? {
        let all = follows
        return all[id]
    }

    /// Our player turns watching on or off; off stops every watcher at once. The players we
    /// have links with are told (SPECTATORS), so that their daemons stop serving our games too.
    func setAllowed(_ on: Bool, now: Instant) {
        allowed = on
        if !on {
            for id in follows.keys.sorted() {
                if let link = links[id] { outbox.send(link, .watchStop(.off)) }
            }
            follows.removeAll()
        }
        tellPlayers(now: now)
    }

    /// SPECTATORS with our player's choice on every link whose peer was told otherwise: the last
    /// choice only, and past the second's bound once that second is over (Protocol.md §14).
    private func tellPlayers(now: Instant) {
        guard choiceDeadline == nil else { return } // the waiting round tells the choice as it is then
        let due = links.sortedIDs.compactMap { links[$0] }.filter { !$0.closing && $0.watchChoice.told.map { $0 != allowed } == true }
        guard !due.isEmpty else { return }
        let limit = config.maxSpectatorChangesPerSecond
        guard limit == 0 || notices.count(now: now, limit: limit) else {
            choiceDeadline = now + .seconds(1)
            return
        }
        for link in due { tell(link) }
    }

    func timeouts(now: Instant) {
        lastNow = now
        tellCounts(now: now)
        guard let at = choiceDeadline, now >= at else { return }
        choiceDeadline = nil
        tellPlayers(now: now)
    }

    /// Our player hears how many watch its games: through our daemon and through its opponents'.
    private func report() {
        let total = follows.count + theirs.values.reduce(0) { $0 + Int($1) }
        guard total != reported else { return }
        reported = total
        outbox.emit(.watchers(reported))
    }

    private func countsChanged() {
        guard countsDue == nil else { return }
        countsDue = lastCountRound.map { max(lastNow, $0 + Self.countSpacing) } ?? lastNow
    }

    /// SPECTATORS with the number of watchers we serve of each player's link's game, where it
    /// changed (field 2, Protocol.md §14): the opponent's player is told it is watched.
    private func tellCounts(now: Instant) {
        guard let due = countsDue, now >= due else { return }
        countsDue = nil
        lastCountRound = now
        var counts: [LinkID: UInt16] = [:]
        for f in follows.values { counts[f.game, default: 0] &+= 1 }
        for id in links.sortedIDs {
            guard let link = links[id], !link.closing, link.watchChoice.told != nil else { continue }
            let n = counts[id] ?? 0
            guard n != toldCounts[id] ?? 0 else { continue }
            toldCounts[id] = n
            link.watchChoice.told = allowed
            outbox.send(link, .spectators(allowed, watchers: n))
        }
    }

    /// `link`'s handshake is done: a player's daemon at version 2 knows our HELLO's bit, and
    /// hears now if our player changed its mind since (Protocol.md §14).
    func linkProven(_ link: Link) {
        guard config.capabilities.contains(.tictactoe), (link.version ?? 1) >= 2,
              link.peer?.capabilities.contains(.tictactoe) == true else { return }
        // Our HELLO's bit says the choice we started with (`--no-spectators`: DaemonSetup sets the bit from it).
        link.watchChoice.told = config.spectators
        if link.watchChoice.told != allowed { tell(link) }
    }

    private func tell(_ link: Link) {
        link.watchChoice.told = allowed
        outbox.send(link, .spectators(allowed))
    }

    /// SPECTATORS from the peer on `link`: its player's choice for the games on that link, now
    /// and later. Off ends their watchers at once (Protocol.md §14). On a watcher's link it is
    /// kept and changes nothing: no game goes on such a link.
    func peerChose(_ on: Bool, watchers count: UInt16? = nil, on link: Link, now: Instant) {
        lastNow = now
        let limit = config.maxSpectatorNoticesPerSecond
        guard limit == 0 || link.floods.spectatorNotices.count(now: now, limit: limit) else {
            return outbox.fail(link, .unexpectedMessage, "SPECTATORS flood: more than \(limit) in one second (Protocol.md §14)")
        }
        if let count, !watchers.contains(link.id) {
            theirs[link.id] = count == 0 ? nil : count
            report()
        }
        if on != Self.opponentAllows(link), let peer = link.peer {
            outbox.log("\(peer.name) turned spectators \(on ? "on" : "off") for its games with us (Protocol.md §14)")
            if !watchers.contains(link.id) { outbox.emit(.opponentSpectators(peer, allowed: on)) }
        }
        link.watchChoice.peer = on
        guard !on else { return }
        for id in follows.filter({ $0.value.game == link.id }).keys.sorted() {
            if let watcher = links[id] { outbox.send(watcher, .watchStop(.off)) }
            follows[id] = nil
        }
    }

    /// A link closed: a watcher's goes; a game's watchers hear of it at the next sync.
    func linkGone(_ id: LinkID) {
        follows[id] = nil
        watchers.remove(id)
        toldCounts[id] = nil
        if theirs.removeValue(forKey: id) != nil { report() }
        outbox.forgetLate(id)
    }

    /// Tells every watcher what is new in its game (see the theory of operation).
    func sync() {
        guard !follows.isEmpty else { return }
        for id in follows.keys.sorted() { sync(id) }
    }

    /// The same, for the watchers of the game on `game` only (a bot's rematch is next).
    func sync(game: Link) {
        guard !follows.isEmpty else { return }
        for (id, f) in follows where f.game == game.id { sync(id) }
    }

    private func sync(_ id: LinkID) {
        guard var f = follow(id) else { return }
        guard let watcher = links[id], !watcher.closing else { follows[id] = nil; return }
        guard let gameLink = links[f.game], let match = gameLink.match else {
            // The match ended, or the players' link is gone (the game may resume: §13).
            if f.key != nil, !f.ended { outbox.send(watcher, .watchEnd(WatchEnd(winner: 0, how: .noResult))) }
            outbox.send(watcher, .watchStop(.over))
            follows[id] = nil
            return
        }
        let game = match.game
        if let key = game.key, key != f.key {
            if f.key != nil, !f.ended { outbox.send(watcher, .watchEnd(WatchEnd(winner: 0, how: .noResult))) }
            outbox.send(watcher, .watching(described(game, on: gameLink)))
            f = Follow(game: f.game, key: key, sent: game.moves.count, ended: false)
        } else if f.key != nil, f.key == game.key {
            while f.sent < game.moves.count {
                outbox.send(watcher, .watchMove(cell: UInt16(clamping: game.moves[f.sent]), number: UInt16(clamping: f.sent + 1)))
                f.sent += 1
            }
            // Over: Done, or ended and already past it (a forfeit as the link or match ends).
            if !f.ended, game.state == .done || game.lastKey == f.key {
                outbox.send(watcher, .watchEnd(Self.end(of: game)))
                f.ended = true
            }
        } else if f.key != nil, !f.ended, game.key == nil {
            // The next game began before the last one's end was seen: it ended with no result told.
            outbox.send(watcher, .watchEnd(WatchEnd(winner: 0, how: .noResult)))
            f.ended = true
        }
        follows[id] = f
    }

    /// The link whose game a WATCH follow names: against `opponent`, else our player's, else
    /// (a bot) the oldest.
    private func gameLink(against opponent: ID128?) -> Link? {
        let playing = links.sortedIDs.compactMap { links[$0] }.filter { $0.match != nil && $0.peer != nil && !$0.closing }
        if let opponent { return playing.first { $0.peerID == opponent } }
        if let seat = links.seatLink, seat.match != nil { return seat }
        return playing.first
    }

    /// Our games in play, for GAMES.
    private func listed() -> [ListedGame] {
        links.sortedIDs.compactMap { id -> ListedGame? in
            guard let link = links[id], let match = link.match, let peer = link.peer, !link.closing,
                  Self.opponentAllows(link) else { return nil }
            let size = match.game.size
            return ListedGame(opponent: WatchPlayer(id: peer.id, name: Self.name(peer.name)),
                              rows: UInt8(clamping: size.rows), cols: UInt8(clamping: size.cols), k: UInt8(clamping: size.k),
                              moves: UInt16(clamping: match.game.moves.count))
        }.prefix(ListedGame.maxPerList).map { $0 }
    }

    /// The opponent on `link` allows watchers: its last SPECTATORS said so, or, without one, its
    /// HELLO's `spectators` bit (a daemon without §14 has none: it said no).
    static func opponentAllows(_ link: Link) -> Bool {
        link.watchChoice.peer ?? (link.peer?.capabilities.contains(.spectators) == true)
    }

    /// WATCHING for `game`, played on `link`.
    private func described(_ game: GameSession, on link: Link) -> WatchedGame {
        let us = WatchPlayer(id: config.instanceID, name: config.name)
        let them = WatchPlayer(id: link.peer?.id ?? ID128(high: 0, low: 0), name: Self.name(link.peer?.name ?? "?"))
        let size = game.size
        return WatchedGame(o: game.piece == .o ? us : them, x: game.piece == .o ? them : us,
                           rows: UInt8(clamping: size.rows), cols: UInt8(clamping: size.cols), k: UInt8(clamping: size.k),
                           moves: game.moves.map { UInt16(clamping: $0) }, moveTime: game.agreedMoveTime,
                           number: UInt16(clamping: max(1, game.round)))
    }

    /// WATCH_END of a game that is over, from its board and our result.
    static func end(of game: GameSession) -> WatchEnd {
        if let line = game.board.winningLine { return WatchEnd(winner: line.piece.rawValue, how: .line) }
        if game.board.isFull, game.lastResult == .draw { return WatchEnd(winner: 0, how: .full) }
        switch game.lastResult {
        case .won: return WatchEnd(winner: game.piece.rawValue, how: .gaveUp)
        case .lost: return WatchEnd(winner: game.piece.opponent.rawValue, how: .gaveUp)
        case .draw, nil: return WatchEnd(winner: 0, how: .gaveUp) // resignations that crossed
        }
    }

    /// A proven peer's name (it was one in its HELLO) as a wire name.
    static func name(_ text: String) -> DisplayName {
        (try? DisplayName(text)) ?? WatchPlayer.unnamed
    }
}

extension WatchPlayer {
    /// "?" as a name (valid: a literal).
    static let unnamed: DisplayName = {
        guard let n = try? DisplayName("?") else { preconditionFailure("\"?\" is a valid name") }
        return n
    }()
}
