import ArgumentParser
import TicTacApp
import TicTacEngine
import TicTacWire

struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play tic-tac-toe from this terminal: against peers, or the bot with --local.",
        discussion: """
        Without --local this starts a daemon: it listens on TCP, connects to the peers given with \
        --connect, and lets you invite them (or be invited).

        Plain mode (--plain, or automatically \
        when standard input is not a terminal) reads one command per line (move c7 or move N: a \
        cell by column letter and row from the top, a1 the upper left, or by number, 1 to rows x \
        cols row by row; new, resign, quit, help, peers, invite NAME|ID, accept, decline, cancel, \
        lobby, field, connect HOST:PORT, spectators on|off) and prints one event per line; --json \
        prints each event as a JSON object. See docs/plain-mode.md.
        """
    )

    @OptionGroup var options: DaemonOptions

    @Flag(help: "Play the bot on this machine, without any network.")
    var local = false

    @Option(help: "With --local, the bot's level: random, easy, good or perfect (the default).")
    var level: BotLevel?

    @Flag(help: "With --local, two people at this keyboard instead of the bot (full screen only).")
    var hotseat = false

    @Option(help: ArgumentHelp("With --hotseat, player 2's name (player 1's is --name; default: Player 1, Player 2).",
                               valueName: "name"))
    var opponentName: String?

    @Flag(help: "Plain line mode: one command in, one event out per line.")
    var plain = false

    @Flag(help: "With plain mode, print each event as one JSON object per line.")
    var json = false

    @Flag(help: "No colours in the full-screen view (also: the NO_COLOR environment variable).")
    var noColor = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds you ask for per move (0: none, else 5-65535). The game uses the shorter of "
                               + "both players' asks; when yours runs out your daemon resigns for you.",
                               valueName: "seconds"))
    var moveTime = 120

    func validate() throws {
        if local, !options.connect.isEmpty { throw ValidationError("--local plays without a network; drop --connect") }
        if hotseat, !local { throw ValidationError("--hotseat is a game at one keyboard: add --local") }
        if hotseat, plain || json { throw ValidationError("--hotseat shares the full screen: drop --plain and --json") }
        if local, options.port != 0 { throw ValidationError("--local plays without a network, so it listens on no port; drop --port") }
        // An option that would do nothing in this mode is a mistake to say, not to ignore.
        if level != nil, hotseat { throw ValidationError("--level sets the bot of --local, and --hotseat has no bot: drop one of them") }
        if level != nil, !local { throw ValidationError("--level sets the bot of --local; drop it (or add --local)") }
        if local, !hotseat, options.name != nil {
            throw ValidationError("--local plays without a network, where no one sees a name; drop --name (with --hotseat it names player 1)")
        }
        if opponentName != nil, !hotseat { throw ValidationError("--opponent-name names player 2 of --hotseat; drop it (or add --local --hotseat)") }
        if let opponentName { _ = try checked(try DisplayName(opponentName)) }
        if hotseat, (options.name ?? "Player 1") == (opponentName ?? "Player 2") {
            throw ValidationError("--name and --opponent-name must differ (defaults: Player 1, Player 2): the screen tells the players apart by name")
        }
        if local, options.keepsState { throw ValidationError("--local keeps no identity or history; drop --state-dir, --identity and --ephemeral") }
        guard moveTime == 0 || (Int(GameSession.minimumMoveTime)...Int(UInt16.max)).contains(moveTime) else {
            throw ValidationError("--move-time must be 0 (no clock) or \(GameSession.minimumMoveTime)-65535 seconds")
        }
    }

    func run() throws {
        var config = PlayConfiguration(daemon: try options.settings())
        config.local = local
        config.level = level ?? .perfect
        config.hotSeat = hotseat
        config.playerOne = hotseat ? config.daemon.name : nil
        config.playerTwo = try opponentName.map { try checked(DisplayName($0)) }
        config.plain = plain
        config.json = json
        config.noColor = noColor
        config.moveTime = moveTime
        try finish(PlayApp.run(config))
    }
}
