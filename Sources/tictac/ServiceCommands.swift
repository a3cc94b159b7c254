import ArgumentParser
import TicTacApp
import TicTacEngine

struct DaemonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Stay on the LAN without a front: fronts attach and leave (docs/control.md).",
        discussion: """
        The player's daemon as a service: it announces, accepts invitations for its players' \
        fronts to answer, keeps and resumes games and records history while no front is open. \
        It serves a control socket in $XDG_RUNTIME_DIR/tictac/ (mode 0600, this user only); \
        `tictac play` attaches to it, `tictac status` and `tictac invite` ask it, and \
        `tictac daemon --stop` (or SIGTERM) makes it leave. One daemon per state directory.
        """
    )

    @OptionGroup var options: DaemonOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds asked for per move (0: none, else 5-65535), as tictac play.",
                                                        valueName: "seconds"))
    var moveTime = 120

    @Flag(help: "Ask the running daemon of this state directory to leave, and wait until it has.")
    var stop = false

    func validate() throws {
        if options.ephemeral || options.seed != nil {
            throw ValidationError("tictac daemon keeps its state directory (fronts find it by it): drop --ephemeral and --seed")
        }
        guard moveTime == 0 || (Int(GameSession.minimumMoveTime)...Int(UInt16.max)).contains(moveTime) else {
            throw ValidationError("--move-time must be 0 (no clock) or \(GameSession.minimumMoveTime)-65535 seconds")
        }
    }

    func run() throws {
        var config = ServiceConfiguration(daemon: try options.settings())
        config.moveTime = moveTime
        config.stop = stop
        try finish(DaemonApp.run(config))
    }
}

/// What `status` and `invite` take: which daemon, and how it answers.
struct ControlOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The state directory (default: $XDG_STATE_HOME/tictac, else ~/.local/state/tictac).",
                               valueName: "dir"))
    var stateDir: String?

    @Flag(help: "One JSON object per line, as plain mode's --json.")
    var json = false
}

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Where your running daemon is: the lobby, an invitation, the game.",
        discussion: "Asks the `tictac daemon` of the state directory; exits 69 when none runs."
    )

    @OptionGroup var options: ControlOptions

    func run() throws {
        try finish(ControlApp.status(stateDirectory: options.stateDir, json: options.json))
    }
}

struct InviteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invite",
        abstract: "Invite a peer from your running daemon; `tictac play` takes the game up.",
        discussion: "Exits 1 when the daemon refused (no such peer, busy...), 69 when no daemon runs."
    )

    @Argument(help: "The peer: a name, or an id or its first 4+ hex digits.")
    var who: String

    @OptionGroup var options: ControlOptions

    func run() throws {
        try finish(ControlApp.invite(who, stateDirectory: options.stateDir, json: options.json))
    }
}
