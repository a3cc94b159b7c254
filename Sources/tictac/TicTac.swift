import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import TicTacWire

@main
struct TicTac: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tictac",
        abstract: "A peer-to-peer LAN game daemon: tic-tac-toe in the terminal.",
        version: "tictac 0.2.0 (protocol versions \(ProtocolVersion.supported.lowerBound)-\(ProtocolVersion.supported.upperBound))",
        subcommands: [PlayCommand.self, BotCommand.self, PeersCommand.self, HistoryCommand.self, SpheresCommand.self, ReplayCommand.self,
                      WatchCommand.self,
                      DaemonCommand.self, StatusCommand.self, InviteCommand.self]
    )

    /// A mistake in the options is one line and status 64 (README "Usage"); help, the version
    /// and failures while running are ArgumentParser's as before.
    static func main() {
        let command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            fail(error)
        }
        do {
            var runnable = command
            try runnable.run()
        } catch {
            fail(error) // a usage mistake found while running (`--hotseat` off a terminal) too
        }
    }

    private static func fail(_ error: Error) -> Never {
        let status = exitCode(for: error)
        guard status == .validationFailure else { exit(withError: error) } // --help, --version, failures
        // The first line only, without a guess at what was meant (often wrong, `--frob`: `--rows`).
        var line = message(for: error).split(separator: "\n").first.map(String.init) ?? "bad options"
        if let guess = line.range(of: ". Did you mean") { line = String(line[..<guess.lowerBound]) }
        let bytes = Array("tictac: \(line) (tictac --help lists the commands and their options)\n".utf8)
        _ = write(STDERR_FILENO, bytes, bytes.count)
        Glibc.exit(status.rawValue)
    }
}
