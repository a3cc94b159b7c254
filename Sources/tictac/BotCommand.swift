import ArgumentParser
import TicTacApp
import TicTacEngine

struct BotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bot",
        abstract: "Run a headless bot: it accepts every invitation and plays.",
        discussion: """
        The bot listens on TCP (--port), and with --connect dials peers and invites them. It prints \
        one line per finished game (with --json, a JSON object) and exits on SIGINT/SIGTERM or \
        after --max-games games, telling its peers it leaves.
        """
    )

    @OptionGroup var options: DaemonOptions

    @Option(help: "random, easy, good or perfect (never loses on 3 x 3).")
    var level: BotLevel = .perfect

    @Option(parsing: .unconditional, help: """
        Exit after this many finished games, counted over all peers together. A game in which \
        the opponent made no move (a resignation right after the roll) is not counted, but a \
        peer that moves once and resigns can still use them up: leave it unset for a bot open \
        to the LAN.
        """)
    var maxGames: Int?

    @Flag(help: "Print each finished game as a JSON object.")
    var json = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Games on boards larger than 3 x 3 at most per source address (0-64); one more "
                               + "is declined as busy. Their searches share one thread.", valueName: "n"))
    var maxLargeGames = 2

    @Option(parsing: .unconditional, help: ArgumentHelp("Games started with one peer within a minute at most (0: no limit); "
                               + "one more is declined as busy, so one peer cannot use up --max-games.", valueName: "n"))
    var maxGamesPerPeer = 30

    func validate() throws {
        if let maxGames, maxGames < 1 { throw ValidationError("--max-games must be 1 or more, not \(maxGames)") }
        guard (0...64).contains(maxLargeGames) else {
            throw ValidationError("--max-large-games must be 0 to 64, not \(maxLargeGames)")
        }
        if maxGamesPerPeer < 0 { throw ValidationError("--max-games-per-peer must be 0 or more, not \(maxGamesPerPeer)") }
    }

    func run() throws {
        var config = BotConfiguration(daemon: try options.settings())
        config.level = level
        config.maxGames = maxGames
        config.json = json
        config.maxLargeGames = maxLargeGames
        config.maxGamesPerPeer = maxGamesPerPeer
        try finish(BotApp.run(config))
    }
}
