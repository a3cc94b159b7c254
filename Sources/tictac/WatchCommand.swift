import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Logging
import TicTacApp

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch the games of the LAN: list them, or follow one player's live.",
        discussion: """
        Without PLAYER: looks at the LAN for --timeout seconds, asks every player that serves \
        watchers and is playing (and every bot) for its games, prints them and exits. With \
        PLAYER: follows that player's game move by move (a game under way from the board so \
        far) and its next ones, full screen in a terminal, until q or Ctrl-C. --all follows \
        every game at once, as tiles. The watcher offers no game and announces nothing: no \
        lobby lists it. A player started with --no-spectators refuses (exit status 69).
        """
    )

    @Argument(help: "The player to follow: a name, an id, or an id prefix of 4+ hex digits.")
    var player: String?

    @Flag(help: "One JSON object per line (the list: one `games` object).")
    var json = false

    @Flag(help: "Every game of the LAN at once (tiles full screen), kept up as games start and end, until Ctrl-C.")
    var all = false

    @Flag(help: "Lines, not the full screen (also when standard input or output is not a terminal).")
    var plain = false

    @Flag(help: "No colours on the full screen (also with NO_COLOR set).")
    var noColor = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to look at the LAN before listing (0.1-30).", valueName: "seconds"))
    var timeout = 2.0

    @Option(help: ArgumentHelp("A player to reach by address, as HOST:PORT (repeatable), for one discovery cannot find.",
                               valueName: "host:port"))
    var connect: [String] = []

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (on standard error, or --log-file).")
    var logLevel: Logger.Level = .warning

    @Option(help: ArgumentHelp("Append the log to FILE instead of standard error.", valueName: "file"))
    var logFile: String?

    @Option(help: ArgumentHelp("Append each link's traffic keys to FILE (mode 0600; also TICTAC_KEYLOG), for `tictac replay --key-log`.",
                               valueName: "file"))
    var keyLog: String?

    @OptionGroup var discovery: DiscoveryOptions

    func validate() throws {
        if all, player != nil { throw ValidationError("--all follows every game: it takes no PLAYER") }
        guard (0.1...30).contains(timeout) else { throw ValidationError("--timeout must be 0.1 to 30 seconds") }
        for peer in connect where !DaemonOptions.wellFormed(peer) { throw ValidationError("--connect: \(peer) is not HOST:PORT") }
    }

    func run() throws {
        var daemon = DaemonSettings(discovery: discovery.settings, log: LogSettings(level: logLevel, file: logFile))
        daemon.connect = connect
        daemon.keyLogFile = KeyLogOption.path(keyLog)
        var config = WatchConfiguration(daemon: daemon)
        config.player = player
        config.json = json
        config.all = all
        config.fullScreen = (player != nil || all) && !json && !plain && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        config.color = !noColor && getenv("NO_COLOR") == nil
        config.timeout = .milliseconds(Int64((timeout * 1000).rounded()))
        try finish(WatchApp.run(config))
    }
}
