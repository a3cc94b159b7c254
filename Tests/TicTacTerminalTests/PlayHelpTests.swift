import Foundation
import Testing
import TicTacTerminal

/// `tictac play --help` names every plain-mode command the parser takes, and how a cell is named.
@Suite struct PlayHelpTests {
    /// Each verb with the arguments that make a valid line of it.
    static let lines = ["move c7", "new", "resign", "quit", "help", "peers", "invite ben", "accept", "decline", "cancel",
                        "lobby", "field", "connect 127.0.0.1:40000", "spectators off"]

    @Test func everyCommandIsInTheHelp() throws {
        for line in Self.lines { #expect(throws: Never.self, "the parser takes '\(line)'") { _ = try Command.parse(line) } }
        let p = Process()
        p.executableURL = CLITests.binary
        p.arguments = ["play", "--help"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        p.waitUntilExit()
        for line in Self.lines {
            let verb = String(line.split(separator: " ")[0])
            #expect(text.contains(verb), "'\(verb)' is missing from play --help")
        }
        #expect(text.contains("move c7 or move N") && text.contains("a1 the upper left"), "how a cell is named")
    }
}
