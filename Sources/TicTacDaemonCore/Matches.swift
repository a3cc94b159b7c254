import TicTacAPI
import TicTacEngine
import TicTacTime
import TicTacWire

/// The games on our links: starting one, feeding it the peer's frames and our player's
/// commands, moving its actions out (frames to the link, events to the player and to the bot,
/// faults to ERROR).
final class Matches {
    private let config: DaemonConfig
    private let links: LinkRegistry
    private let outbox: Outbox
    private let lobby: Lobby
    /// The bot playing under our name (`Player.bot`), told the events it acts on; nil for a human.
    let bot: BotPlayer?
    /// Our player let its move clock run out and has given no command since: shown away.
    var playerAway = false
    /// Called before a game's board goes within one input (a bot's next game starts, the match
    /// ends): its watchers are told its last moves and its end first (Protocol.md §14).
    var beforeGameGone: ((Link) -> Void)?
    /// A game's actions being handled (kept between frames for its capacity).
    private var gameActions: [GameAction] = []

    init(config: DaemonConfig, links: LinkRegistry, outbox: Outbox, lobby: Lobby, bot: BotPlayer?) {
        self.config = config
        self.bot = bot
        self.links = links
        self.outbox = outbox
        self.lobby = lobby
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
        if let peer = link.peerID { bot?.gameStarted(with: peer, now: now) }
        links.setActivity(link, .playing(match))
        match.game.handle(.start, now: now)
        drain(link, now: now)
    }

    /// Sets what a game of ours tells: the front's events and those the bot acts on (drain), and
    /// the history's facts.
    /// `on`: the link it is played on; a roll is kept past a lost link when both sides can.
    func prepare(_ game: inout GameSession, on link: Link? = nil) {
        game.shownEvents = config.gameEvents.union(bot == nil ? [] : BotPlayer.actsOn)
        game.recordsFacts = config.keepsHistory
        guard let link else { return }
        let rolls: Capabilities = [.resume, .rollResume]
        game.keepsRoll = config.resumeWindow > .zero && config.capabilities.isSuperset(of: rolls)
            && link.peer?.capabilities.isSuperset(of: rolls) == true
        // Both sides roll without RESET and ROLL_ACK (Protocol.md §8).
        game.quickRoll = config.capabilities.contains(.quickRoll) && link.peer?.capabilities.contains(.quickRoll) == true
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
        bot?.stopEngine(link)
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
                    if let bot, BotPlayer.actsOn.contains(event.kind) {
                        // Told to the front first: the bot's answer (a rematch, or the match's end) follows it.
                        if config.gameEvents.contains(event.kind), let peer = link.peer { outbox.emit(.game(event, opponent: peer)) }
                        bot.shown(event, on: link, in: self, now: now)
                    } else {
                        if bot == nil, case .timeUp(yours: true, .move) = event { away = true }
                        // The event's last use: handed on, not copied.
                        if config.gameEvents.contains(event.kind), let peer = link.peer { outbox.emit(.game(event, opponent: peer)) }
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
}
