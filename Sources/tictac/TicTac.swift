import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import TicTacEngine
import TicTacNet
import TicTacTerminal

@main
struct TicTac: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tictac",
        abstract: "A peer-to-peer LAN game daemon: tic-tac-toe in the terminal.",
        version: "tictac 0.1.0 (protocol \(ProtocolInfo.versions))",
        subcommands: [Play.self]
    )
}

enum ProtocolInfo {
    static let versions = "v1"
}

extension BotLevel: ExpressibleByArgument {}

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play tic-tac-toe from this terminal.",
        discussion: """
        With --local you play the bot on this machine, with no network at all.
        Plain mode (--plain, or automatically when standard input is not a terminal) reads one
        command per line (move N, new, resign, quit) and prints one event per line; --json prints
        each event as a JSON object. See README.md, "Plain mode".
        """
    )

    @Flag(help: "Play the bot on this machine, without any network.")
    var local = false

    @Option(help: "Bot level: random, easy, good or perfect.")
    var level: BotLevel = .perfect

    @Option(help: "Board rows (3-20).")
    var rows = 3

    @Option(help: "Board columns (3-20).")
    var cols = 3

    @Option(help: "Pieces in a row that win (3 up to the longer side).")
    var k = 3

    @Flag(help: "Plain line mode: one command in, one event out per line.")
    var plain = false

    @Flag(help: "With plain mode, print each event as one JSON object per line.")
    var json = false

    func validate() throws {
        guard local else {
            throw ValidationError("networked play is not available in this build yet; use --local to play the bot")
        }
        do {
            _ = try BoardSize(rows: rows, cols: cols, k: k)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        let size: BoardSize
        do { size = try BoardSize(rows: rows, cols: cols, k: k) } catch { throw ValidationError(error.description) }
        let interactive = isatty(STDIN_FILENO) == 1 && !plain && !json
        let style: OutputFormatter.Style = json ? .json : (interactive ? .board : .text)
        let match = LocalMatch(size: size, level: level, rng: SystemRandomNumberGenerator(), budget: {
            let deadline = Reactor.now() + .milliseconds(200)
            return SearchBudget(isExhausted: { Reactor.now() >= deadline })
        })
        do {
            try LocalGameRunner(match: match, style: style, prompt: interactive).run()
        } catch {
            throw RuntimeError(error.description)
        }
    }
}

/// A one-line failure for the user; the process exits with status 1.
struct RuntimeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
