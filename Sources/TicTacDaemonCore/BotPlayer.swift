import TicTacAPI
import TicTacEngine
import TicTacPbrain
import TicTacTime
import TicTacWire

/// The headless bot as the core's player (`Player.bot`): the parts ask it where they would ask a
/// human. It answers invitations at once (accepted unless a limit says busy or the board is not
/// its own), invites the peers it dialled whenever idle with them, makes its moves (at once, by a
/// search handed to the shell, or by its engine) and starts the next game as soon as one ends.
/// It plays through the Matches it is given.
/// A human's daemon has none: its invitations wait for the player, one game at a time (the seat).
final class BotPlayer {
    private let bot: Bot
    /// The k = 5 boards an external Gomocup engine plays for it (`Player.bot`'s `engine`).
    private let engine: EngineBoards?
    private let config: DaemonConfig
    private let links: LinkRegistry
    private let outbox: Outbox
    private let lobby: Lobby
    /// When and where it thinks.
    let scheduler: BotScheduler
    /// Peers it dialled to play (`--connect`): it invites them whenever idle with them.
    var wants: Set<ID128> = []
    /// Games per peer per minute (`DaemonConfig.maxGamesPerPeerPerMinute`).
    private var rate: GameRate
    /// Its finished games in which the opponent moved (`DaemonConfig.maxBotGames`).
    private var games = 0
    /// Players the history has never seen that it took on, per address (`NewPlayerRate`).
    private var newPlayers: NewPlayerRate
    /// When the engine host may start the engine again after too many failures: engine boards
    /// are declined until then.
    private var engineResumes: Instant?

    /// The game events it acts on, added to those the front is given.
    static let actsOn: GameEventKinds = [.yourTurn, .gameOver]

    init(_ bot: Bot, engine: EngineBoards?, config: DaemonConfig, links: LinkRegistry, outbox: Outbox, lobby: Lobby, seed: UInt64) {
        self.bot = bot
        self.engine = engine
        self.config = config
        self.links = links
        self.outbox = outbox
        self.lobby = lobby
        scheduler = BotScheduler(seed: seed)
        rate = GameRate(limit: config.maxGamesPerPeerPerMinute)
        newPlayers = NewPlayerRate(perAddress: config.maxNewPlayersPerAddressPerHour)
    }

    /// Who makes its move on a board: the engine, a search, or a draw at once.
    private enum Mover { case engine, search, atOnce }

    private func mover(on size: BoardSize) -> Mover {
        if engine?.plays(size) == true { return .engine }
        return bot.searches(on: size) ? .search : .atOnce
    }

    // MARK: Invitations

    /// Why it declines `peer`'s invitation to a game on `size` (the reason sent and the line
    /// logged), or nil: it accepts.
    func refusal(of size: BoardSize, from peer: PeerInfo, on link: Link, now: Instant) -> (DeclineReason, String)? {
        if let engine, size != .classic, let why = engineRefusal(engine, size, now: now) {
            return (why.hasPrefix("busy") ? .busy : .unsupported, "declined \(peer.name)'s \(size) invitation: \(why)")
        }
        // Engine games count too: one address cannot take every engine process.
        if size != .classic, mover(on: size) != .atOnce {
            let large = links.values.count { $0.address == link.address && $0.game.map { $0.size != .classic } == true }
            if large >= config.maxLargeGamesPerAddress {
                return (.busy, "declined \(peer.name)'s \(size) invitation: busy (\(large) large-board games from \(link.address))")
            }
        }
        if !rate.allows(peer.id, now: now) {
            return (.busy, "declined \(peer.name)'s invitation: busy (\(config.maxGamesPerPeerPerMinute) games within a minute)")
        }
        if config.keepsHistory, lobby.scores[peer.id] == nil, let why = newPlayers.refusal(link.address, now: now) {
            return (.busy, "declined \(peer.name)'s invitation: busy (\(why))")
        }
        return nil
    }

    /// Why the engine does not play `size` now (nil: it does). A reason starting with "busy" is
    /// declined `busy` (try later), any other `unsupported`.
    private func engineRefusal(_ engine: EngineBoards, _ size: BoardSize, now: Instant) -> String? {
        guard engine.plays(size) else {
            let boards = engine.sizes.count
            return "the engine plays k = 5 on \(boards) board size\(boards == 1 ? "" : "s") (and the bot 3x3 k=3), not \(size)"
        }
        if let pause = enginePause(now) {
            return "busy (the engine failed too often: not started again for \(pause.wholeSecondsRoundedUp) s)"
        }
        let running = links.values.count { link in link.game.map { engine.plays($0.size) } == true }
        if running >= engine.maxGames { return "busy (\(running) engine games, at most \(engine.maxGames))" }
        return nil
    }

    /// Whether it invites `peer` now: it dialled it, and the peer is not shown away (a player
    /// whose clock ran out and who did nothing since is invited once it is back).
    func invites(_ peer: ID128) -> Bool { wants.contains(peer) && lobby.present[peer]?.state != .away }

    // MARK: Games

    /// A game with `peer` starts.
    func gameStarted(with peer: ID128, now: Instant) { rate.count(peer, now: now) }

    /// A game event on `link` (`actsOn`): its turn is queued, and a game over starts the next.
    func shown(_ event: GameEvent, on link: Link, in matches: Matches, now: Instant) {
        switch event {
        case .yourTurn: scheduler.turnDue(link.id)
        case .gameOver:
            matches.beforeGameGone?(link)
            if let size = link.match?.game.size, mover(on: size) == .engine, scheduler.engineForget(link.id) {
                outbox.append(.engine(.cancel(link.id))) // it was thinking: the answer would be stale
            }
            link.match?.noteEnd() // before the rematch clears it
            if link.match?.game.opponentMoved == true { games += 1 }
            rematch(link, in: matches, now: now)
        default: break
        }
    }

    /// Makes the due moves: at once without a search, else queued for the shell (`think`) or
    /// asked of the engine.
    func playTurns(_ matches: Matches, now: Instant) {
        while let id = scheduler.nextTurn() {
            guard let link = links[id], let match = link.match, match.game.state == .myTurn else { continue }
            switch mover(on: match.game.size) {
            case .engine:
                if let turn = scheduler.engineTurn(link, opponentIsBot: link.peer?.capabilities.contains(.bot) == true) {
                    outbox.append(.engine(.turn(turn)))
                }
            case .search:
                scheduler.queueSearch(id)
            case .atOnce:
                move(scheduler.quickMove(bot, on: match.game.board, as: match.game.piece), in: match, link: link, now: now)
                matches.drain(link, now: now)
            }
        }
        if let job = scheduler.nextSearch(bot, nodes: config.botNodes, links: links) { outbox.append(.think(job)) }
    }

    /// A search handed out with `think` is done: the move is made if its game still waits for
    /// it in the same position (the game may have ended meanwhile).
    func searchDone(_ result: BotSearchResult, _ matches: Matches, now: Instant) {
        guard let board = scheduler.searchDone(result) else { return }
        if let link = links[result.link], !link.closing, let match = link.match, match.game.state == .myTurn {
            if match.game.board == board {
                move(result.cell, in: match, link: link, now: now)
                matches.drain(link, now: now)
            } else {
                scheduler.turnDue(link.id) // another position by now: search it again
            }
        }
        playTurns(matches, now: now)
    }

    /// The engine host answered an engine turn: its move is made if the game still waits for it
    /// in the same position; a failed engine loses the game (the bot resigns it), and one with
    /// no restart left for now (EngineRestartRate) ends the match, and engine games are
    /// declined until the engine may be started again.
    func engineAnswered(_ answer: EngineAnswer, _ matches: Matches, now: Instant) {
        // The pause holds whether or not the game still waits for this answer.
        if case let .failed(_, pausedUntil: until?) = answer.outcome, now < until {
            if enginePause(now) == nil {
                outbox.log("no engine restart left for \((until - now).wholeSecondsRoundedUp) s (more failures within the window than --engine-restarts "
                           + "allows): engine matches end after their game, and engine games are declined busy until then")
            }
            engineResumes = max(engineResumes ?? until, until) // the rematch ends the match instead
        }
        guard let board = scheduler.engineDone(answer) else { return playTurns(matches, now: now) }
        guard let link = links[answer.link], !link.closing,
              let match = link.match, match.game.state == .myTurn else { return playTurns(matches, now: now) }
        guard match.game.board == board else {
            scheduler.turnDue(link.id) // another position by now: ask again
            return playTurns(matches, now: now)
        }
        switch answer.outcome {
        case let .move(cell):
            do {
                try match.game.perform(.move(cell), now: now)
            } catch {
                // The host checked the cell; a refusal here is a position it did not know.
                lose(match, link: link, "the engine's move \(CellName.name(cell, on: match.game.size)) was refused (\(error))", now: now)
            }
        case let .failed(why, _):
            lose(match, link: link, "the engine failed: \(why)", now: now)
        }
        matches.drain(link, now: now)
        playTurns(matches, now: now)
    }

    /// How long engine boards are still declined at `now` (nil: they are played).
    private func enginePause(_ now: Instant) -> Duration? {
        guard let engineResumes, now < engineResumes else { return nil }
        return engineResumes - now
    }

    /// It gives up the game on `link` (its engine failed): RESIGN, logged with the reason.
    private func lose(_ match: Match, link: Link, _ why: String, now: Instant) {
        outbox.log("lost the game against \(link.peer?.name ?? "link \(link.id)") by resigning: \(why)")
        do throws(GameCommandError) { try match.game.perform(.resign, now: now) } catch {
            outbox.log("resigning on link \(link.id) was refused: \(error)")
        }
    }

    /// The match on `link` ends or stops: its engine process, if it has one, goes with it.
    func stopEngine(_ link: Link) {
        guard let size = link.match?.game.size, mover(on: size) == .engine else { return }
        scheduler.engineForget(link.id)
        outbox.append(.engine(.stop(link.id)))
    }

    /// The next game starts at once. A game just over always can: a refusal is our bug.
    private func rematch(_ link: Link, in matches: Matches, now: Instant) {
        // Read in place: a copy of the whole game cost more than the two reads.
        guard let match = link.match, match.game.state == .done else { return } // the match ended with the game
        if enginePause(now) != nil, mover(on: match.game.size) == .engine {
            outbox.log("ended the match with \(link.peer?.name ?? "link \(link.id)"): the engine is out of restarts for now")
            return matches.end(link, byUs: true, now: now)
        }
        if let limit = config.maxBotGames, games >= limit {
            outbox.log("ended the match with \(link.peer?.name ?? "link \(link.id)"): \(limit) games played (--max-games)")
            return matches.end(link, byUs: true, now: now)
        }
        if let peer = link.peer, !rate.allows(peer.id, now: now) {
            // Past the peer's games for this minute (Protocol.md §5): the match ends instead.
            outbox.log("ended the match with \(peer.name): \(config.maxGamesPerPeerPerMinute) games within a minute")
            return matches.end(link, byUs: true, now: now)
        }
        if let peer = link.peerID { rate.count(peer, now: now) }
        do throws(GameCommandError) {
            try link.match?.game.perform(.newGame, now: now)
        } catch {
            outbox.log("the bot's rematch on link \(link.id) was refused: \(error)")
        }
    }

    /// It only picks legal moves: a refusal is our bug, and its game would wait for a move that
    /// never comes, so it is logged rather than swallowed.
    private func move(_ cell: Int, in match: Match, link: Link, now: Instant) {
        do {
            try match.game.perform(.move(cell), now: now)
        } catch {
            outbox.log("the bot's move \(cell + 1) on link \(link.id) was refused: \(error)")
        }
    }
}
