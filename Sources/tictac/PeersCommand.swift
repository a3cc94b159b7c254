import ArgumentParser
import Logging
import TicTacApp

struct PeersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peers",
        abstract: "Look at the LAN: list the tictac daemons that answer.",
        discussion: """
        Sends a QUERY by broadcast (Protocol.md §7) and browses DNS-SD (§10) unless --no-dnssd, \
        listens for --timeout seconds, and prints what answered, sorted by name, with how each was \
        found. It neither announces nor publishes itself, so it never shows up as a player.
        """
    )

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to listen for answers (0.1-30).", valueName: "seconds"))
    var timeout = 1.0

    @Flag(help: "Print a JSON array of {id, name, addresses, port, state, via}.")
    var json = false

    @Option(help: "Log level on standard error (debug: the datagrams counted and dropped).")
    var logLevel: Logger.Level = .warning

    @OptionGroup var discovery: DiscoveryOptions

    func validate() throws {
        guard (0.1...30).contains(timeout) else { throw ValidationError("--timeout must be 0.1 to 30 seconds") }
    }

    func run() throws {
        var config = PeersConfiguration()
        config.timeout = .milliseconds(Int64((timeout * 1000).rounded()))
        config.json = json
        config.logLevel = logLevel
        config.discovery = discovery.settings
        try failing { () throws(AppFailure) in try PeersApp.run(config) }
    }
}
