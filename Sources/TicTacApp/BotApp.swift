import Logging
import TicTacEngine
import TicTacNet

/// `tictac bot`: a headless daemon that accepts every invitation and plays.
public enum BotApp {
    /// Runs until a signal or `--max-games`; returns the exit status (130 after SIGINT, else 0).
    public static func run(_ config: BotConfiguration) throws(AppFailure) -> Int32 {
        let setup = DaemonSetup(settings: config.daemon)
        try LogSetup.bootstrap(config.daemon.log)
        let logger = Logger(label: "tictac.bot")
        let peers = try setup.peers()
        let reactor = try AppFailure.attempt(.osErr, nil) { try Reactor() }
        let state = setup.openState()
        for notice in state.notices { logger.warning("\(notice)") }
        state.notify = { logger.warning("\($0)") }
        let daemon = try setup.makeDaemon(reactor: reactor, name: try setup.displayName(suffix: "-bot"),
                                          capabilities: [.tictactoe, .bot], bot: Bot(level: config.level),
                                          maxLargeGames: config.maxLargeGames, maxGamesPerPeer: config.maxGamesPerPeer, gameEvents: GameCounter.gameEvents, state: state)
        if let notice = setup.startDiscovery(daemon, notify: { logger.warning("\($0)") }) {
            logger.warning("\(notice)")
        }
        let runner = BotRunner(reactor: reactor, daemon: daemon, json: config.json, maxGames: config.maxGames) { logger.info("\($0)") }
        try AppFailure.attempt(.osErr, nil) { try runner.run(connectTo: peers) }
        return runner.exitStatus
    }
}
