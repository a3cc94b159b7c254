import Foundation
import Glibc
import Testing

/// `tictac bot &` then `tictac play` on one host (README's example): each keeps its own id and
/// history (the bot's under `bot` in the state directory), neither gets a throwaway id.
@Suite struct BotOwnStateTests {
    @Test func aBotAndAPlayerOnOneHostEachKeepTheirOwn() throws {
        let env = ownStateEnvironment()
        let home = try #require(env["XDG_STATE_HOME"])
        let bot = Process()
        bot.executableURL = CLITests.binary
        bot.environment = env
        bot.arguments = ["bot", "--name", "botty", "--no-broadcast", "--no-dnssd"]
        let botErr = Pipe()
        bot.standardOutput = FileHandle.nullDevice
        bot.standardError = botErr
        try bot.run()
        defer {
            bot.terminate()
            bot.waitUntilExit()
        }
        let botKey = home + "/tictac/bot/identity"
        for _ in 0..<100 where access(botKey, F_OK) != 0 { usleep(50_000) }
        #expect(access(botKey, F_OK) == 0, "the bot keeps its key under bot/")
        let play = Process()
        play.executableURL = CLITests.binary
        play.environment = env
        play.arguments = ["play", "--plain", "--no-broadcast", "--no-dnssd"]
        let input = Pipe(), output = Pipe()
        play.standardInput = input
        play.standardOutput = output
        play.standardError = output
        try play.run()
        try input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
        try input.fileHandleForWriting.close()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        play.waitUntilExit()
        #expect(!said.contains("throwaway") && !said.contains("in use"), "\(said)")
        let playerKey = try String(contentsOfFile: home + "/tictac/identity", encoding: .utf8)
        #expect(try String(contentsOfFile: botKey, encoding: .utf8) != playerKey, "two ids")
        #expect(access(home + "/tictac/history.sqlite", F_OK) == 0 && access(home + "/tictac/bot/history.sqlite", F_OK) == 0)
    }
}
