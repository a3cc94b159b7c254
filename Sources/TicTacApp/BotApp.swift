import Logging
import TicTacEngine
import TicTacDaemon
import TicTacDaemonCore
import TicTacNet
import TicTacPbrain
import TicTacWire

/// `tictac bot`: a headless daemon that accepts every invitation and plays.
public enum BotApp {
    /// Runs until a signal or `--max-games`; returns the exit status (130 after SIGINT, else 0).
    public static func run(_ config: BotConfiguration) throws(AppFailure) -> Int32 {
        let setup = DaemonSetup(settings: config.daemon)
        try LogSetup.bootstrap(config.daemon.log)
        let logger = Logger(label: "tictac.bot")
        let peers = try setup.peers()
        let reactor = try AppFailure.attempt(.osErr, nil) { try Reactor() }
        let state = setup.openState(place: "bot")
        defer { state.close() } // what is logged is in the store when the command ends
        state.notify = { logger.warning("\($0)") }
        let engine = try config.engine.map { command throws(AppFailure) in
            try probeEngine(command, config, reactor: reactor, logger: logger)
        }
        let daemon = try setup.makeDaemon(reactor: reactor, name: try setup.displayName(suffix: "-bot"),
                                          capabilities: [.tictactoe, .bot], bot: Bot(level: config.level), moveTime: .seconds(config.moveTime),
                                          maxLargeGames: config.maxLargeGames, maxGamesPerPeer: config.maxGamesPerPeer,
                                          gameEvents: GameCounter.gameEvents, engine: engine?.boards, state: state,
                                          program: engine?.about.flatMap { DisplayName(fitting: $0) }, maxBotGames: config.maxGames,
                                          maxNewPlayers: config.maxNewPlayersPerAddress)
        for notice in state.notices { logger.warning("\(notice)") } // the identity's among them
        if let command = config.engine {
            daemon.useEngine(command: command, limits: config.engineLimits, maxRestarts: config.engineRestarts)
        }
        if let notice = setup.startDiscovery(daemon, notify: { logger.warning("\($0)") }) {
            logger.warning("\(notice)")
        }
        let runner = BotRunner(reactor: reactor, daemon: daemon, json: config.json, maxGames: config.maxGames,
                               engine: engine.map { $0.about ?? "an engine without ABOUT" }) { logger.info("\($0)") }
        try AppFailure.attempt(.osErr, nil) { try runner.run(connectTo: peers) }
        return runner.exitStatus
    }

    /// Asks the engine which boards it plays (EngineProber); none is a configuration error, as
    /// is a `--rows/--cols/--k` board for the bot's own invitations that nobody here plays.
    private static func probeEngine(_ command: String, _ config: BotConfiguration, reactor: Reactor,
                                    logger: Logger) throws(AppFailure) -> (boards: EngineBoards, about: String?) {
        let result = try AppFailure.attempt(.osErr, "--engine: cannot start \(command)") {
            try EngineProber.probe(command: command, limits: config.engineLimits, reactor: reactor)
        }
        for note in result.notes { logger.notice("engine probe: \(note)") }
        let about = result.about ?? "(no ABOUT)"
        let squares = result.sizes.filter { $0.rows == $0.cols }.map(\.rows)
        let sizes = result.sizes.count <= 8 ? result.sizes.map(\.description).joined(separator: ", ")
            : "squares \(squares.map(String.init).joined(separator: " ")) and \(result.sizes.count - squares.count) rectangles"

        // Peers' lobbies show it too: HELLO field 9 and ANNOUNCE field 13 (Protocol.md §6).
        logger.info("engine \(about) (\(command)) plays \(result.sizes.count) boards with k = 5: \(sizes)")
        guard !result.sizes.isEmpty else {
            throw AppFailure(.config, "--engine: \(command) accepted no board of 5x5 to 20x20 (START/RECTSTART)"
                             + (result.notes.last.map { "; \($0)" } ?? ""))
        }
        let boards = EngineBoards(sizes: Set(result.sizes), maxGames: config.engineGames)
        let own = config.daemon.size
        if own != .classic, !boards.plays(own) {
            throw AppFailure(.usage, "--engine: the engine does not play \(own) (the board of the bot's own invitations)")
        }
        return (boards, result.about)
    }
}

extension BotConfiguration {
    /// The limits of each engine process.
    var engineLimits: EngineLimits {
        var limits = EngineLimits()
        limits.memory = engineMemoryMiB << 20
        limits.cpuSeconds = engineCPUSeconds
        limits.thinkMillis = engineThinkSeconds * 1000
        return limits
    }
}
