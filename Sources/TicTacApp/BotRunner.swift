import TicTacAPI
import TicTacDaemon
import TicTacDaemonCore
import TicTacEngine
import TicTacJSON
import TicTacNet
import TicTacTTY
import TicTacTerminal
import TicTacTime
import TicTacWire

/// The headless bot: a daemon that accepts every invitation and plays. Prints one line per
/// finished game; leaves through `RunnerLifecycle` (LEAVE to every peer) on a signal or after
/// `maxGames` finished games with any peers, counting only games in which a move was made.
public final class BotRunner {
    private let reactor: Reactor
    private let daemon: Daemon
    private let json: Bool
    private let maxGames: Int?
    private let log: (String) -> Void
    private let lifecycle: RunnerLifecycle
    private var tally = BotTally()
    /// The last opponent's part of the `--json` game-over line (`gameOverPrefix`).
    private var lastOpponent: (id: ID128, name: String, prefix: [UInt8])?
    /// Standard output, never blocking the bot's daemon (as plain mode's, docs/plain-mode.md).
    private let output: LineWriter

    /// - Parameter log: one line for the operator's log (stderr), e.g. peers coming and going.
    /// The external engine's description (ABOUT), for the first line.
    private let engine: String?

    public init(reactor: Reactor, daemon: Daemon, json: Bool, maxGames: Int?, engine: String? = nil, log: @escaping (String) -> Void) {
        self.engine = engine
        self.reactor = reactor
        self.daemon = daemon
        self.json = json
        self.maxGames = maxGames
        self.log = log
        output = LineWriter(gapLine: OutputFormatter(style: json ? .json : .text).gapLine)
        lifecycle = RunnerLifecycle(reactor: reactor)
    }

    /// The exit status once `run` returns: 130 after SIGINT, else 0.
    public var exitStatus: Int32 { lifecycle.exitStatus }

    /// Runs until a signal, or `maxGames` games.
    public func run(connectTo peers: [[SocketAddress]]) throws(NetError) {
        try lifecycle.start { [daemon] deadline, done in daemon.leave(within: deadline, then: done) }
        daemon.onEvent = { [unowned self] event in handle(event) }
        let config = daemon.config
        log("bot \(config.name) (\(config.instanceID)) listening on port \(daemon.port)")
        output.attach(to: reactor)
        if !json {
            // One line to say it runs and where a player finds it (README "Usage").
            let addresses = FullScreenFront.hostAddresses()
            let at = addresses.isEmpty ? "this host" : addresses.joined(separator: ", ")
            let bot = engine.map { " (engine: \($0))" } ?? ""
            output.write("bot \(config.name) (\(config.instanceID.description.prefix(8)))\(bot) listening on \(at), port \(daemon.port)")
        } else {
            output.write(OutputFormatter(style: .json).json(.ready(name: config.name.value, id: config.instanceID, port: daemon.port)).serialized)
        }
        for addresses in peers { daemon.keepConnecting(to: addresses) }
        defer { output.drain(within: .seconds(1)) }
        try lifecycle.run()
    }

    private func handle(_ event: DaemonEvent) {
        let finished = tally.take(event) // every event: the counter follows the games
        switch event {
        case let .game(.gameOver(result, _, _), opponent):
            guard let finished else {
                // Who ended it is not known here: the bot may have resigned (its engine failed).
                return log("a game with \(opponent.name) ended (\(result) for the bot) before they made a move: not counted")
            }
            if json {
                // The opponent's part of the line is made once per opponent, not once per game.
                if lastOpponent?.id != opponent.id || lastOpponent?.name != opponent.name {
                    lastOpponent = (opponent.id, opponent.name, Self.gameOverPrefix(opponent: opponent))
                }
                output.write(utf8: Self.gameOverLine(prefix: lastOpponent?.prefix ?? [], result: finished.result,
                                                     games: finished.games, forfeit: finished.forfeit))
            } else {
                output.write(BotTally.text(finished))
            }
            if finished.counted, let maxGames, finished.games >= maxGames { lifecycle.quit() }
        case let .peerFound(p): log("peer \(p.name) (\(p.id)) at \(p.address)")
        case let .peerLost(p, reason): log("peer \(p.name) gone: \(reason)")
        case let .declined(p, reason): log("\(p.name) declined: \(reason.name)")
        case let .protocolError(p, code, message, sent):
            log("\(sent ? "sent" : "received") error \(code) \(sent ? "to" : "from") \(p?.name ?? "a peer"): \(message)")
        case let .connectFailed(to, reason): log("cannot connect to \(to): \(reason)")
        case .gameInterrupted, .gameResumed, .gameAdjourned, .gameVoid, .gameAbandoned, .gameClaimed, .claimWithdrawn:
            // A game that outlives its link is reported as a finished one is (Protocol.md §13).
            output.write(json ? OutputFormatter(style: .json).json(event).serialized : Self.waitingText(event))
        default: break
        }
    }

    /// The bot's line for a game kept across a lost link.
    static func waitingText(_ event: DaemonEvent) -> String {
        switch event {
        case let .gameInterrupted(p, window, reason):
            "game with \(p.name) interrupted (\(reason)): kept up to \(window.wholeSecondsRoundedUp) s for \(p.name) to come back"
        case let .gameResumed(p, resigned, _):
            resigned ? "\(p.name) resigned the game while apart" : "\(p.name) is back: the game goes on"
        case let .gameAdjourned(p): "game with \(p.name) adjourned: offered again when \(p.name) is back"
        case let .gameVoid(p, reason): "game with \(p.name) void, counted for nobody: \(reason)"
        case let .gameAbandoned(p, reason): "game with \(p.name) won by abandonment: \(reason)"
        case let .gameClaimed(p, won, reason): "game with \(p.name) \(won ? "claimed, won" : "claimed by \(p.name), lost"): \(reason)"
        case let .claimWithdrawn(p, reason): "claim on the game with \(p.name) withdrawn, the game goes on: \(reason)"
        default: ""
        }
    }

    /// The JSON line of a finished game, as `JSON.object([("event", "game-over"), ("opponent",
    /// OutputFormatter.who(opponent)), ("result", ...), ("games", ...)]).utf8` serializes it,
    /// written straight into bytes (cheaper than a tree of values for a line per game).
    static func gameOverLine(opponent: PeerInfo, result: GameResult, games: Int) -> [UInt8] {
        gameOverLine(prefix: gameOverPrefix(opponent: opponent), result: result, games: games)
    }

    /// The line's bytes up to the result's value: the same for every game with one opponent.
    static func gameOverPrefix(opponent: PeerInfo) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        out.append(contentsOf: #"{"event":"game-over","opponent":{"id":"#.utf8)
        JSON.quote(opponent.id.description, into: &out)
        out.append(contentsOf: #","name":"#.utf8)
        JSON.quote(opponent.name, into: &out)
        out.append(contentsOf: #"},"result":"#.utf8)
        return out
    }

    /// `forfeit`: the opponent left the running game (BotTally), said as `"forfeit":"roll"` or
    /// `"forfeit":"game"` before the count.
    static func gameOverLine(prefix: [UInt8], result: GameResult, games: Int, forfeit: BotTally.Forfeit? = nil) -> [UInt8] {
        var out = prefix
        JSON.quote(result.rawValue, into: &out)
        if let forfeit {
            out.append(contentsOf: #","forfeit":"#.utf8)
            JSON.quote(forfeit.rawValue, into: &out)
        }
        out.append(contentsOf: #","games":"#.utf8)
        out.append(contentsOf: String(games).utf8)
        out.append(UInt8(ascii: "}"))
        return out
    }

}

/// Which finished games `bot --max-games` counts: only those in which the opponent made a move.
/// A game the opponent ended before making one (a resignation right after the roll, or after
/// the bot's first move) is not counted, so a peer doing that in a loop cannot use up the
/// budget.
public struct GameCounter {
    /// The game events the counter needs (the bot's daemon builds no others: `DaemonConfig.gameEvents`).
    public static let gameEvents: GameEventKinds = [.gameStarted, .opponentMoved, .gameOver, .left]

    /// Opponents whose current game has had a move of theirs.
    private var moved: Set<ID128> = []
    /// The opponent last put in `moved` (still there): spares hashing its id on each of its moves.
    private var lastMoved: ID128?
    /// The opponent whose game, with a move of its, was just resumed (its start is shown next).
    private var resumedWithMoves: ID128?

    public init() {}

    /// Takes every daemon event in order; true for a game-over that counts.
    public mutating func counts(_ event: DaemonEvent) -> Bool {
        switch event {
        case let .gameResumed(opponent, false, true): resumedWithMoves = opponent.id
        case let .game(.gameStarted, opponent):
            // A resumed game is drawn again from its start: the opponent's moves before the cut count.
            if resumedWithMoves == opponent.id { moved.insert(opponent.id) } else { forget(opponent.id) }
            resumedWithMoves = nil
        case let .game(.opponentMoved, opponent):
            guard lastMoved != opponent.id else { break }
            moved.insert(opponent.id)
            lastMoved = opponent.id
        case let .game(.gameOver, opponent): return forget(opponent.id)
        case let .disconnected(opponent, _), let .matchEnded(opponent, _): forget(opponent.id)
        default: break
        }
        return false
    }

    /// Takes `id` out of `moved`; true if it was there.
    @discardableResult
    private mutating func forget(_ id: ID128) -> Bool {
        if lastMoved == id { lastMoved = nil }
        return moved.remove(id) != nil
    }
}
