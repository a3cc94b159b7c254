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

    @Option(parsing: .unconditional, help: ArgumentHelp("Players the history has never seen, at most per address per hour (0: no limit; "
                               + "four times as many per /24); more are declined as busy.",
                               valueName: "n"))
    var maxNewPlayersPerAddress = 20

    @Option(parsing: .unconditional, help: ArgumentHelp("""
        Seconds per move the bot asks for (0: no clock, or 5-65535); a game's clock is the shorter \
        nonzero ask of its two players. A bot past it (an engine that does not answer) loses on time.
        """, valueName: "seconds"))
    var moveTime = 120

    @Option(help: ArgumentHelp("""
        A Gomocup ("Piskvork" pbrain) engine that makes the bot's moves on k = 5 boards of 5x5 to \
        20x20, run as `/bin/sh -c "exec CMD"` (one process per match, limited by --engine-memory \
        and --engine-cpu). It is asked at the start which boards it plays (START/RECTSTART); \
        invitations to other boards are declined as unsupported, except 3x3, which the built-in \
        bot plays. An engine that fails (crash, garbage, an illegal move, silence past the move \
        clock) loses that game and is restarted for the next.
        """, valueName: "cmd"))
    var engine: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Engine games at most at the same time (1-64), a process each; "
                               + "one more is declined as busy.", valueName: "n"))
    var engineGames = 4

    @Option(parsing: .unconditional, help: ArgumentHelp("Engine restarts after failures at most within any 10 minutes (0-1000); "
                               + "one failure more and the engine rests until the oldest of them is 10 minutes old: "
                               + "its games are lost, and engine games are declined as busy meanwhile.", valueName: "n"))
    var engineRestarts = 8

    @Option(parsing: .unconditional, help: ArgumentHelp("An engine process's address space in MiB (64-65536; INFO max_memory).",
                                                        valueName: "mib"))
    var engineMemory = 1024

    @Option(parsing: .unconditional, help: ArgumentHelp("An engine process's CPU time in seconds over its match (1-86400).",
                                                        valueName: "seconds"))
    var engineCpu = 3600

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Seconds the engine is told it has per move (1-3600; INFO timeout_turn, within the move clock).", valueName: "seconds"))
    var engineThink = 5

    func validate() throws {
        guard moveTime == 0 || (Int(GameSession.minimumMoveTime)...Int(UInt16.max)).contains(moveTime) else {
            throw ValidationError("--move-time must be 0 (no clock) or \(GameSession.minimumMoveTime)-65535 seconds")
        }
        if let engine, engine.allSatisfy({ $0 == " " || $0 == "\t" }) { throw ValidationError("--engine needs a command") }
        guard (1...64).contains(engineGames) else { throw ValidationError("--engine-games must be 1 to 64, not \(engineGames)") }
        guard (0...1000).contains(engineRestarts) else {
            throw ValidationError("--engine-restarts must be 0 to 1000, not \(engineRestarts)")
        }
        guard (64...65536).contains(engineMemory) else { throw ValidationError("--engine-memory must be 64 to 65536, not \(engineMemory)") }
        guard (1...86400).contains(engineCpu) else { throw ValidationError("--engine-cpu must be 1 to 86400, not \(engineCpu)") }
        guard (1...3600).contains(engineThink) else { throw ValidationError("--engine-think must be 1 to 3600, not \(engineThink)") }
        if let maxGames, maxGames < 1 { throw ValidationError("--max-games must be 1 or more, not \(maxGames)") }
        guard (0...64).contains(maxLargeGames) else {
            throw ValidationError("--max-large-games must be 0 to 64, not \(maxLargeGames)")
        }
        if maxGamesPerPeer < 0 { throw ValidationError("--max-games-per-peer must be 0 or more, not \(maxGamesPerPeer)") }
        guard (0...100_000).contains(maxNewPlayersPerAddress) else {
            throw ValidationError("--max-new-players-per-address must be 0 to 100000, not \(maxNewPlayersPerAddress)")
        }
    }

    func run() throws {
        var config = BotConfiguration(daemon: try options.settings())
        config.level = level
        config.maxGames = maxGames
        config.json = json
        config.maxLargeGames = maxLargeGames
        config.maxGamesPerPeer = maxGamesPerPeer
        config.maxNewPlayersPerAddress = maxNewPlayersPerAddress
        config.engine = engine
        config.moveTime = moveTime
        config.engineGames = engineGames
        config.engineRestarts = engineRestarts
        config.engineMemoryMiB = engineMemory
        config.engineCPUSeconds = engineCpu
        config.engineThinkSeconds = engineThink
        try finish(BotApp.run(config))
    }
}
