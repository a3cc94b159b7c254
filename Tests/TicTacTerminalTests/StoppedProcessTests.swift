import Foundation
import Glibc
import Testing

/// A daemon process stopped (kill -STOP, as Ctrl-Z does) past its peer timeout, then continued
/// (kill -CONT): it does not blame its peer for the silence that was its own.
@Suite(.serialized) struct StoppedProcessTests {
    /// Stops `p` for `seconds`, then continues it.
    private func stop(_ p: TicTacProcess, for seconds: Double) {
        kill(p.process.processIdentifier, SIGSTOP)
        usleep(UInt32(seconds * 1_000_000))
        kill(p.process.processIdentifier, SIGCONT)
    }

    private func lossWords(_ events: [[String: Any]]) -> [String] {
        events.compactMap { e in
            switch e["event"] as? String {
            case "peer-lost", "disconnected": e["reason"] as? String
            case "error": e["message"] as? String
            default: nil
            }
        }
    }

    /// The bot (peer timeout 2 s) is stopped 3.5 s while its peer waits patiently (30 s): on
    /// waking it PINGs and listens before judging, so the link lives and a game starts on it.
    @Test func aStoppedBotKeepsALinkItsPeerKept() throws {
        let bot = try TicTacProcess(["bot", "--name", "botty", "--json", "--peer-timeout", "2"])
        let port = try #require(bot.await("ready")?["port"] as? Int)
        let player = try TicTacProcess(["play", "--name", "pat", "--json", "--peer-timeout", "30", "--connect", "127.0.0.1:\(port)"])
        #expect(player.await("peer-found")?["name"] as? String == "botty")
        stop(bot, for: 3.5)
        player.send("invite botty")
        #expect(player.await("game-started") != nil, "\(player.events)")
        #expect(lossWords(player.events).isEmpty, "the bot dropped the link on waking: \(player.events)")
        player.send("quit")
        #expect(player.waitExit() == 0)
        bot.process.terminate()
        #expect(bot.waitExit() == 0)
    }

    /// The player is stopped 3.5 s; the bot (2 s) gives up on it meanwhile. On waking the
    /// player is told the link was lost to its own stop, not that the bot did not answer.
    @Test func aStoppedPlayerIsToldItsOwnStopCostTheLink() throws {
        let bot = try TicTacProcess(["bot", "--name", "botty", "--json", "--peer-timeout", "2"])
        let port = try #require(bot.await("ready")?["port"] as? Int)
        let player = try TicTacProcess(["play", "--name", "pat", "--json", "--peer-timeout", "30", "--connect", "127.0.0.1:\(port)"])
        #expect(player.await("peer-found")?["name"] as? String == "botty")
        stop(player, for: 3.5)
        #expect(player.await("peer-lost") != nil, "\(player.events)")
        let words = lossWords(player.events)
        #expect(!words.isEmpty && words.allSatisfy { $0.contains("this program was stopped for") }, "\(words)")
        player.send("quit")
        #expect(player.waitExit() == 0)
        bot.process.terminate()
        #expect(bot.waitExit() == 0)
    }
}
