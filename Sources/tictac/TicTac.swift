import ArgumentParser
import TicTacWire

@main
struct TicTac: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tictac",
        abstract: "A peer-to-peer LAN game daemon: tic-tac-toe in the terminal.",
        version: "tictac 0.2.0 (protocol versions \(ProtocolVersion.supported.lowerBound)-\(ProtocolVersion.supported.upperBound))",
        subcommands: [PlayCommand.self, BotCommand.self, PeersCommand.self, HistoryCommand.self, SpheresCommand.self, ReplayCommand.self]
    )
}
