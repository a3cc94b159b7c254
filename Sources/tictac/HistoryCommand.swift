import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import TicTacApp

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the games your daemon recorded, most recent first, with their moves.",
        discussion: """
        Reads the history in the state directory (history.sqlite): finished, interrupted and \
        adjourned games, each with its moves by cell name (a1 is the upper left), so a game can be \
        read or replayed by hand. It only reads, so it works while a daemon plays.
        """
    )

    @Option(help: ArgumentHelp("Only games against this opponent (a name, or an id or its first 4+ hex digits).",
                               valueName: "name|id"))
    var peer: String?

    @Option(help: ArgumentHelp("The state directory (default: $XDG_STATE_HOME/tictac, else ~/.local/state/tictac).",
                               valueName: "dir"))
    var stateDir: String?

    @Option(parsing: .unconditional, help: "Games at most (1-10000).")
    var limit = 50

    @Flag(help: "Print a JSON array of games: {id, peer, rows, cols, k, started, ended, state, result, ending, youMovedFirst, moves}.")
    var json = false

    func validate() throws {
        guard (1...10000).contains(limit) else { throw ValidationError("--limit must be 1 to 10000") }
    }

    func run() throws {
        var config = HistoryConfiguration()
        config.stateDirectory = stateDir
        config.peer = peer
        config.json = json
        config.limit = limit
        try failing { () throws(AppFailure) in
            try HistoryApp.run(config) { line in
                let bytes = Array((line + "\n").utf8)
                _ = write(STDOUT_FILENO, bytes, bytes.count)
            }
        }
    }
}
