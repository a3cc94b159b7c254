import TicTacAPI
import TicTacEngine
import TicTacTime
import TicTacWire

/// The games on our links: starting one, feeding it the peer's frames and our player's
/// commands, moving its actions out (frames to the link, events to the player, faults to
/// ERROR), and the bot's moves (BotScheduler says when).
final class Matches {
    private let config: DaemonConfig
    private let links: LinkRegistry
    private let outbox: Outbox
    private let lobby: Lobby
    let bot: BotScheduler
    /// A bot's games per peer per minute (`DaemonConfig.maxGamesPerPeerPerMinute`).
    let rate: GameRate
    /// Our player let its move clock run out and has given no command since: shown away.
    var playerAway = false
    /// The bot's finished games in which the opponent moved (`DaemonConfig.maxBotGames`).
    private var botGames = 0
    /// Called before a game's board goes within one input (a bot's next game starts, the match
    /// ends): its watchers are told its last moves and its end first (Protocol.md §14).
    var beforeGameGone: ((Link) -> Void)?
    /// A game's actions being handled (kept between frames for its capacity).
    private var gameActions: [GameAction] = []

    init(config: DaemonConfig, links: LinkRegistry, outbox: Outbox, lobby: Lobby, bot: BotScheduler) {
        self.config = config
        self.links = links
        self.outbox = outbox
        self.lobby = lobby
        self.bot = bot
        rate = GameRate(limit: config.bot == nil ? 0 : config.maxGamesPerPeerPerMinute)
    }

    /// The game our player is in (a human has one at a time): where `move`, `new` and `resign` go.
    var current: Link? {
        guard let link = links.seatLink, link.match != nil else { return nil }
        return link
    }

    /// An invitation was accepted (by either side): the game starts on `link`.
    func start(_ link: Link, gameID: ID128, size: BoardSize, now: Instant) {
        link.ignoreGameFrames = false
        link.leftMatch = nil
        let score = link.peer.flatMap { lobby.scores[$0.id] } ?? Score()
        let match = Match(id: gameID, game: GameSession(size: size, rng: config.makeRandom(), rematchDelay: config.rematchDelay,
                                                        score: score, moveTime: config.moveTime))
        prepare(&match.game, on: link)
        if let peer = link.peerID { rate.count(peer, now: now) }
        links.setActivity(link, .playing(match))
        match.game.handle(.start, now: now)
        drain(link, now: now)
    }

    /// Sets what a game of ours tells: the front's events and those the bot acts on (drain), and
    /// the history's facts.
    /// `on`: the link it is played on; a roll is kept past a lost link when both sides can.
    func prepare(_ game: inout GameSession, on link: Link? = nil) {
        game.shownEvents = config.gameEvents.union(config.bot == nil ? [] : [.yourTurn, .gameOver])
        game.recordsFacts = config.keepsHistory
        guard let link else { return }
        let rolls: Capabilities = [.resume, .rollResume]
        game.keepsRoll = config.resumeWindow > .zero && config.capabilities.isSuperset(of: rolls)
            && link.peer?.capabilities.isSuperset(of: rolls) == true
    }

    /// The match on `link` ends and the link goes back to the lobby; the score is kept.
    /// `byUs`: our player left it (the peer's game frames in flight are then ignored). Whoever
    /// leaves a running game once the other's roll is out loses it (Protocol.md §8).
    func end(_ link: Link, byUs: Bool, now: Instant) {
        guard let match = link.match, let peer = link.peer else { return }
        let over = match.game.state == .done
        if byUs {
            do throws(GameCommandError) { try match.game.perform(.leave, now: now) } catch {
                outbox.log("leaving the game on link \(link.id) was refused: \(error)") // never: leave always can
            }
        } else {
            match.game.handle(.peerLeft, now: now)
        }
        drain(link, now: now) // our RESIGN goes out before the CANCEL
        beforeGameGone?(link)
        stopped(link)
        stopEngine(link)
        lobby.scores[peer.id] = match.game.score
        links.setActivity(link, .idle)
        if byUs {
            link.ignoreGameFrames = true
            link.leftMatch = over ? match : nil
            outbox.send(link, .cancel(gameID: match.id))
        }
        outbox.emit(.matchEnded(peer, byUs: byUs))
    }

    /// The game on `link` stops (its link is lost, or its match ends): a game still being played
    /// is recorded as interrupted (or, when our player quits, adjourned: a restart offers it again).
    func stopped(_ link: Link, as fact: GameFact = .interrupted) {
        guard config.keepsHistory, let match = link.match, let peer = link.peer, match.game.resumeKey != nil else { return }
        switch match.game.state {
        case .rollingDice, .myTurn, .opponentTurn:
            outbox.append(.record(GameFactRecord(fact, of: match, peer: peer.id, peerName: peer.name)))
        case .beginning, .interrupted, .done:
            break
        }
    }

    /// The link of a match closed: once our roll is out the peer forfeits the game if it could
    /// know the roll and ended it itself (`deliberate`: LEAVE, a protocol fault) or the roll is
    /// still being decided (any close then: Protocol.md §8). A game in play whose link was
    /// merely lost ends without a result (or is kept to resume, Suspensions).
    func linkClosed(_ link: Link, deliberate: Bool, now: Instant) {
        guard let match = link.match else { return }
        match.game.handle(deliberate ? .peerLeft : .linkLost, now: now)
        drain(link, now: now)
    }

    /// A game frame from the peer.
    func received(_ message: Message, on link: Link, now: Instant) {
        guard let match = link.match else {
            if link.ignoreGameFrames, let left = link.leftMatch, message.kind == .move || message.kind == .resign {
                return crossedOurLeaving(message, left, on: link, now: now)
            }
            if link.ignoreGameFrames { return }
            return outbox.fail(link, message.kind == .move ? .illegalMove : .unexpectedMessage,
                               "\(message.kind) with no game in progress")
        }
        match.game.handle(.received(message), now: now)
        drain(link, now: now)
    }

    /// A MOVE or RESIGN that crossed our resignation and then our leaving: the game settles it
    /// as any crossing (its history keeps the move, or a draw); nothing is sent or shown.
    private func crossedOurLeaving(_ message: Message, _ left: Match, on link: Link, now: Instant) {
        guard let peer = link.peer else { return }
        left.game.crossedAfterLeaving(message)
        var actions: [GameAction] = []
        left.game.pollActions(into: &actions)
        for case let .record(fact, key) in actions {
            outbox.append(.record(GameFactRecord(peer: peer.id, peerName: peer.name, match: left.id, size: left.game.size,
                                                 number: left.game.round, key: key, fact: fact)))
        }
    }

    /// Our player's move, new game or resignation.
    func command(_ command: GameCommand, now: Instant) throws(CommandError) {
        guard let link = current, let match = link.match else { throw .notInGame }
        do {
            try match.game.perform(command, now: now)
        } catch {
            throw .game(error)
        }
        drain(link, now: now)
    }

    /// The game's clock on `link` may be due.
    func timeout(_ link: Link, now: Instant) {
        guard let match = link.match, match.game.pollTimeout().map({ now >= $0 }) == true else { return }
        match.game.handleTimeout(now: now)
        drain(link, now: now)
    }

    /// Moves a game's actions out: frames to the link, events to the player, faults to ERROR.
    func drain(_ link: Link, now: Instant) {
        guard link.provenID != nil else { return } // ready
        let isBot = config.bot != nil
        var away = false
        var pending: [GameAction] = []
        swap(&pending, &gameActions) // the buffer kept from the last call (none when re-entered)
        defer { pending.clearKeepingCapacity(); swap(&pending, &gameActions) }
        link.match?.game.pollActions(into: &pending)
        while !pending.isEmpty {
            for i in pending.indices {
                // Moved out, a payload-free action left in its place (docs/performance.md).
                var action = GameAction.show(.yourTurn)
                swap(&action, &pending[i])
                switch consume action {
                case let .send(m):
                    outbox.send(link, m)
                case .show(.interrupted):
                    break // the player hears `disconnected`, with the reason, when the link closes
                case let .show(event):
                    if config.gameEvents.contains(event.kind), let peer = link.peer { outbox.emit(.game(event, opponent: peer)) }
                    if case .timeUp(yours: true, .move) = event { away = !isBot }
                    guard isBot else { continue }
                    switch event {
                    case .yourTurn: bot.turnDue(link.id)
                    case .gameOver:
                        beforeGameGone?(link)
                        if let size = link.match?.game.size, config.engine?.plays(size) == true, bot.engineForget(link.id) {
                            outbox.append(.engine(.cancel(link.id))) // it was thinking: the answer would be stale
                        }
                        link.match?.noteEnd() // before the rematch clears it
                        if link.match?.game.opponentMoved == true { botGames += 1 }
                        rematch(link, now: now)
                    default: break
                    }
                case let .fail(code, text):
                    return outbox.fail(link, code, text)
                case let .record(fact, key):
                    guard let peer = link.peer, let match = link.match else { continue }
                    let number = if case let .started(n) = fact { n } else { match.game.round }
                    outbox.append(.record(GameFactRecord(peer: peer.id, peerName: peer.name, match: match.id, size: match.game.size,
                                                         number: number, key: key, fact: fact)))
                }
            }
            pending.clearKeepingCapacity()
            link.match?.game.pollActions(into: &pending) // a bot's rematch queues more
        }
        link.match?.noteEnd()
        // Our player let the clock run out: away, so no next game starts by itself (it would be
        // lost the same way, and the next); the match ends and a new invitation plays again.
        if away, link.match?.game.state == .done {
            playerAway = true
            end(link, byUs: true, now: now)
        }
    }

    /// Makes the bot's due moves: at once without a search, else queued for the shell (`think`).
    func runBotTurns(now: Instant) {
        guard let player = config.bot else { return }
        while let id = bot.nextTurn() {
            guard let link = links[id], let match = link.match, match.game.state == .myTurn else { continue }
            if config.engine?.plays(match.game.size) == true {
                if let turn = bot.engineTurn(link, opponentIsBot: link.peer?.capabilities.contains(.bot) == true) {
                    outbox.append(.engine(.turn(turn)))
                }
                continue
            }
            if player.searches(on: match.game.size) {
                bot.queueSearch(id)
                continue
            }
            let cell = bot.quickMove(player, on: match.game.board, as: match.game.piece)
            botMove(cell, in: match, link: link, now: now)
            drain(link, now: now)
        }
        if let job = bot.nextSearch(player, nodes: config.botNodes, links: links) { outbox.append(.think(job)) }
    }

    /// A search handed out with `think` is done: the move is made if its game still waits for
    /// it in the same position (the game may have ended meanwhile).
    func searchDone(_ result: BotSearchResult, now: Instant) {
        guard let board = bot.searchDone(result) else { return }
        if let link = links[result.link], !link.closing, let match = link.match, match.game.state == .myTurn {
            if match.game.board == board {
                botMove(result.cell, in: match, link: link, now: now)
                drain(link, now: now)
            } else {
                bot.turnDue(link.id) // another position by now: search it again
            }
        }
        runBotTurns(now: now)
    }

    /// The engine host answered an engine turn: its move is made if the game still waits for it
    /// in the same position; a failed engine loses the game (the bot resigns it), and one with
    /// no restart left for now (EngineRestartRate) ends the match, and engine games are
    /// declined until the engine may be started again.
    func engineAnswered(_ answer: EngineAnswer, now: Instant) {
        // The pause holds whether or not the game still waits for this answer.
        if case let .failed(_, pausedUntil: until?) = answer.outcome, now < until {
            if enginePause(now) == nil {
                outbox.log("no engine restart left for \((until - now).wholeSecondsRoundedUp) s (more failures within the window than --engine-restarts "
                           + "allows): engine matches end after their game, and engine games are declined busy until then")
            }
            engineResumes = max(engineResumes ?? until, until) // the rematch ends the match instead
        }
        guard let board = bot.engineDone(answer) else { return runBotTurns(now: now) }
        guard let link = links[answer.link], !link.closing,
              let match = link.match, match.game.state == .myTurn else { return runBotTurns(now: now) }
        guard match.game.board == board else {
            bot.turnDue(link.id) // another position by now: ask again
            return runBotTurns(now: now)
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
        drain(link, now: now)
        runBotTurns(now: now)
    }

    /// When the engine host may start the engine again after too many failures: engine boards
    /// are declined until then.
    private var engineResumes: Instant?

    /// How long engine boards are still declined at `now` (nil: they are played).
    func enginePause(_ now: Instant) -> Duration? {
        guard let engineResumes, now < engineResumes else { return nil }
        return engineResumes - now
    }

    /// The bot gives up the game on `link` (its engine failed): RESIGN, logged with the reason.
    private func lose(_ match: Match, link: Link, _ why: String, now: Instant) {
        outbox.log("lost the game against \(link.peer?.name ?? "link \(link.id)") by resigning: \(why)")
        do throws(GameCommandError) { try match.game.perform(.resign, now: now) } catch {
            outbox.log("resigning on link \(link.id) was refused: \(error)")
        }
    }

    /// The match on `link` ends: its engine process, if it has one, goes with it.
    func stopEngine(_ link: Link) {
        guard let size = link.match?.game.size, config.engine?.plays(size) == true else { return }
        bot.engineForget(link.id)
        outbox.append(.engine(.stop(link.id)))
    }

    /// A bot starts the next game at once. A game just over always can: a refusal is our bug.
    private func rematch(_ link: Link, now: Instant) {
        guard let game = link.match?.game, game.state == .done else { return } // the match ended with the game
        if enginePause(now) != nil, config.engine?.plays(game.size) == true {
            outbox.log("ended the match with \(link.peer?.name ?? "link \(link.id)"): the engine is out of restarts for now")
            return end(link, byUs: true, now: now)
        }
        if let limit = config.maxBotGames, botGames >= limit {
            outbox.log("ended the match with \(link.peer?.name ?? "link \(link.id)"): \(limit) games played (--max-games)")
            return end(link, byUs: true, now: now)
        }
        if let peer = link.peer, !rate.allows(peer.id, now: now) {
            // Past the peer's games for this minute (Protocol.md §5): the match ends instead.
            outbox.log("ended the match with \(peer.name): \(config.maxGamesPerPeerPerMinute) games within a minute")
            return end(link, byUs: true, now: now)
        }
        if let peer = link.peerID { rate.count(peer, now: now) }
        do throws(GameCommandError) {
            try link.match?.game.perform(.newGame, now: now)
        } catch {
            outbox.log("the bot's rematch on link \(link.id) was refused: \(error)")
        }
    }

    /// The bot only picks legal moves: a refusal is our bug, and its game would wait for a move
    /// that never comes, so it is logged rather than swallowed.
    private func botMove(_ cell: Int, in match: Match, link: Link, now: Instant) {
        do {
            try match.game.perform(.move(cell), now: now)
        } catch {
            outbox.log("the bot's move \(cell + 1) on link \(link.id) was refused: \(error)")
        }
    }
}
