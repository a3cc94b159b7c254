import TicTacAPI
import TicTacTerminal
import TicTacEngine
import TicTacWire
import TicTacTime

/// A game against the bot with no network: the player's GameSession and the bot's GameSession
/// joined by an in-process link that carries real encoded frames, so the local game runs the
/// same protocol as a networked one. Pure: the caller passes time in and prints what comes out.
public struct LocalMatch {
    public private(set) var human: GameSession
    public private(set) var botSide: GameSession
    public let bot: Bot
    public let opponent: PeerInfo
    /// Two people at one keyboard (`play --local --hotseat`): no bot; each move goes to the side
    /// whose turn it is (`human` is player 1, `botSide` player 2).
    public let hotSeat: Bool
    private var botRNG: AnyRandom
    private let budget: SearchBudget
    private var output: [DaemonEvent] = []

    /// - Parameters:
    ///   - rng: randomness for both sessions and the bot (the system generator outside tests).
    ///   - budget: the bot's search budget per move (`Bot.defaultSearchNodes` nodes in the app).
    ///   - moveTime: the player's move clock (zero: none); the bot asks for none.
    ///   - hotSeat: two people instead of a player and the bot; both sides get `moveTime`.
    ///   - playerTwo: the second hot-seat player's name ("Player 2" when nil).
    public init(size: BoardSize = .classic, level: BotLevel, rng: some RandomNumberGenerator,
                budget: SearchBudget = .unlimited, moveTime: Duration = .zero, hotSeat: Bool = false, playerTwo: String? = nil) {
        var rng = AnyRandom(rng)
        human = GameSession(size: size, rng: SplitMix64(seed: rng.next()), moveTime: moveTime)
        botSide = GameSession(size: size, rng: SplitMix64(seed: rng.next()), moveTime: hotSeat ? moveTime : .zero)
        bot = Bot(level: level)
        botRNG = AnyRandom(SplitMix64(seed: rng.next()))
        let id = ID128.random(using: &rng)
        opponent = PeerInfo(id: id, name: hotSeat ? playerTwo ?? Self.playerTwo : "bot (\(level.rawValue))")
        self.hotSeat = hotSeat
        self.budget = budget
    }

    /// The second player's name in a hot-seat game.
    public static let playerTwo = "Player 2"

    /// True when the move or resignation is player 2's (a hot-seat game, player 2 to move).
    private var secondToMove: Bool { hotSeat && human.state != .myTurn && botSide.state == .myTurn }

    /// `command` for the side to move: player 1's session, or in a hot-seat game player 2's.
    private mutating func toMover(_ command: GameCommand, now: Instant) throws(GameCommandError) {
        if secondToMove { try botSide.perform(command, now: now) } else { try human.perform(command, now: now) }
    }

    /// When `timeout(now:)` must be called next.
    public var nextDeadline: Instant? {
        [human.pollTimeout(), botSide.pollTimeout()].compactMap { $0 }.min()
    }

    public mutating func start(now: Instant) -> [DaemonEvent] {
        human.handle(.start, now: now)
        botSide.handle(.start, now: now)
        return pump(now: now)
    }

    /// Carries out one command. `quit` is the caller's to handle.
    public mutating func command(_ command: Command, now: Instant) -> [DaemonEvent] {
        do {
            switch command {
            case let .move(n): try toMover(.move(n - 1), now: now)
            case let .moveAt(ref):
                switch CellName.resolve(ref, on: human.size) {
                case let .success(n): try toMover(.move(n - 1), now: now)
                case let .failure(e): output.append(.error(code: "illegal-move", message: e.description))
                }
            case .new:
                try toMover(.newGame, now: now)
                // The other side joins a rematch asked for at once instead of waiting 3 s.
                var events = pump(now: now)
                if botSide.state == .done { try botSide.perform(.newGame, now: now) }
                if human.state == .done { try human.perform(.newGame, now: now) }
                events += pump(now: now)
                return events
            case .resign: try toMover(.resign, now: now)
            case .help: output.append(.help(Command.helpText))
            case .quit, .interrupt: break
            case .cancel:
                output.append(.error(code: "no-invitation", message: Command.cancelLocalText))
            case .peers, .invite, .accept, .decline, .lobby, .field, .connect, .spectators:
                output.append(.error(code: "bad-command", message: "no network in a local game: the bot is your only opponent"))
            }
        } catch {
            var message = error.description
            if case let .illegal(moveError) = error { // named as the player names the cell
                if case let .moveAt(ref) = command { message = CellName.message(moveError, on: human.size, typed: ref) }
                else { message = CellName.message(moveError, on: human.size) }
            }
            output.append(.error(code: Self.code(error), message: message))
        }
        return pump(now: now)
    }

    public mutating func timeout(now: Instant) -> [DaemonEvent] {
        human.handleTimeout(now: now)
        botSide.handleTimeout(now: now)
        return pump(now: now)
    }

    static func code(_ e: GameCommandError) -> String {
        switch e {
        case .notYourTurn: "not-your-turn"
        case .illegal: "illegal-move"
        case .noGame: "no-game"
        }
    }

    /// Delivers frames both ways until quiet; the bot moves as soon as it is told it is its turn.
    private mutating func pump(now: Instant) -> [DaemonEvent] {
        var progress = true
        while progress {
            progress = false
            for action in human.pollActions() {
                progress = true
                switch action {
                case let .send(m): if let d = carried(m) { botSide.handle(.received(d), now: now) }
                case let .show(e): output.append(.game(e, opponent: opponent))
                case let .fail(code, message): output.append(.error(code: code.description, message: message))
                case .record: break // a local game keeps no history
                }
            }
            for action in botSide.pollActions() {
                progress = true
                switch action {
                case let .send(m): if let d = carried(m) { human.handle(.received(d), now: now) }
                case .show(.yourTurn): if !hotSeat { botMove(now: now) }
                case .show: break
                case let .fail(code, message): output.append(.error(code: code.description, message: "\(hotSeat ? opponent.name : "bot"): \(message)"))
                case .record: break
                }
            }
        }
        defer { output.removeAll() }
        return output
    }

    private mutating func botMove(now: Instant) {
        let cell = bot.chooseMove(on: botSide.board, as: botSide.piece, using: &botRNG, budget: budget)
        do {
            try botSide.perform(.move(cell), now: now)
        } catch {
            // The bot only returns legal moves: a refusal is our bug, and the game would stall
            // without a word, so the player hears it.
            output.append(.error(code: "internal-error", message: "the bot's move \(cell + 1) was refused: \(error)"))
        }
    }

    /// `m` through the real encoder and decoder (a fault the receiving session finds shows as
    /// its `fail` action). A frame that does not come back whole is a codec bug: it is an error
    /// event, not a silent hang.
    private mutating func carried(_ m: Message) -> Message? {
        var decoder = FrameDecoder()
        decoder.feed(m.encoded())
        do {
            guard let frame = try decoder.next() else {
                output.append(.error(code: "internal-error", message: "\(m.kind) did not decode: incomplete frame"))
                return nil
            }
            return try Message(frame: frame)
        } catch {
            output.append(.error(code: "internal-error", message: "\(m.kind) did not decode: \(error)"))
            return nil
        }
    }
}
