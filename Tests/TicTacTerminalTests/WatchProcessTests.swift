import Foundation
import Testing

/// `tictac watch` against real daemons on loopback (Protocol.md §14): a plain player plays the
/// headless bot while watchers list the game, follow it from the middle, or are refused.
@Suite(.serialized) struct WatchProcessTests {
    /// `tictac watch ARGS` reaching `port` by address only (other tests' daemons share the namespace).
    func watcher(_ args: [String], port: Int) throws -> TicTacProcess {
        try TicTacProcess(["watch"] + args + ["--json", "--connect", "127.0.0.1:\(port)", "--no-broadcast", "--no-dnssd"])
    }

    /// A bot, and carol (plain mode) in a game with it; returns both and the bot's port.
    func game(botArgs: [String] = []) throws -> (bot: TicTacProcess, carol: TicTacProcess, port: Int) {
        let bot = try TicTacProcess(["bot", "--name", "botty", "--json", "--ephemeral"] + botArgs)
        let port = try #require(bot.await("ready")?["port"] as? Int)
        let carol = try TicTacProcess(["play", "--name", "carol", "--json", "--ephemeral", "--connect", "127.0.0.1:\(port)"])
        #expect(carol.await("peer-found")?["name"] as? String == "botty")
        carol.send("invite botty")
        #expect(carol.await("game-started") != nil)
        return (bot, carol, port)
    }

    /// carol plays the lowest free cell on her turns until, at her turn, `moves` moves are on
    /// the board (the board then stays as it is until she moves), or the game ends; returns the
    /// board. `moveNow`: it is her turn already (an earlier call stopped there).
    func carolPlays(_ carol: TicTacProcess, until moves: Int, from board: String = ".........", moveNow: Bool = false) -> String {
        var cells = board
        if moveNow, let i = Array(cells).firstIndex(of: ".") { carol.send("move \(i + 1)") }
        while let e = carol.next(timeout: 15) {
            switch e["event"] as? String {
            case "board": cells = e["cells"] as? String ?? cells
            case "your-turn":
                if cells.count(where: { $0 != "." }) >= moves { return cells }
                if let i = Array(cells).firstIndex(of: ".") { carol.send("move \(i + 1)") }
            case "game-over": return cells
            default: break
            }
        }
        return cells
    }

    @Test func aWatcherListsTheGameThenFollowsItFromTheMiddleToTheEnd() throws {
        let (bot, carol, port) = try game()
        _ = bot
        var cells = carolPlays(carol, until: 2)
        #expect(cells.count(where: { $0 != "." }) >= 2)

        let list = try watcher([], port: port)
        let games = try #require(list.await("games")?["games"] as? [[String: Any]])
        #expect(games.count == 1)
        #expect((games.first?["opponent"] as? [String: Any])?["name"] as? String == "carol")
        #expect(list.waitExit() == 0)

        let w = try watcher(["botty"], port: port)
        let watching = try #require(w.await("watching"))
        #expect(watching["cells"] as? String == cells, "a late watcher gets the board so far")
        cells = carolPlays(carol, until: 99, from: cells, moveNow: true) // to the end
        var seen = watching["cells"] as? String ?? ""
        var end: [String: Any]?
        while end == nil, let e = w.next(timeout: 10) {
            if e["event"] as? String == "watch-move" { seen = e["cells"] as? String ?? seen }
            if e["event"] as? String == "watch-end" { end = e }
        }
        #expect(seen == cells, "the watcher's board is the players'")
        #expect(end?["how"] as? String != nil && end?["how"] as? String != "no-result")
        // The next game of the match is a new WATCHING, numbered 2.
        #expect(w.await("watching", timeout: 10)?["number"] as? Int == 2)
        w.process.interrupt()
        #expect(w.waitExit() == 130)
    }

    /// A player turns watching off mid-game (plain mode's `spectators off`, the lobby's `w`):
    /// the watcher is told and leaves with status 69; on again, it may watch.
    @Test func aPlayerTurnsWatchingOff() throws {
        let bot = try TicTacProcess(["bot", "--name", "botty", "--json", "--ephemeral"])
        let port = try #require(bot.await("ready")?["port"] as? Int)
        let carol = try TicTacProcess(["play", "--name", "carol", "--json", "--ephemeral", "--port", "0", "--connect", "127.0.0.1:\(port)"])
        let carolPort = try #require(carol.await("ready")?["port"] as? Int)
        #expect(carol.await("peer-found")?["name"] as? String == "botty")
        carol.send("invite botty")
        #expect(carol.await("game-started") != nil)
        let w = try watcher(["carol"], port: carolPort)
        #expect(w.await("watching") != nil)
        #expect(carol.await("notice")?["message"] as? String == "1 watching your games (spectators off refuses watchers)")
        carol.send("spectators off")
        #expect(carol.await("notice")?["message"] as? String == "Nobody watches your games now")
        #expect(carol.await("notice")?["message"] as? String == "Nobody may watch your games now (spectators on allows it again)")
        #expect(w.await("watch-stopped")?["reason"] as? String == "off")
        #expect(w.waitExit() == 69)
        carol.send("spectators on")
        let again = try watcher(["carol"], port: carolPort)
        #expect(again.await("watching") != nil)
        _ = bot
    }

    /// `--all`: every game at once, each once, though both its players serve watchers (and the
    /// bot plays both games: each is followed through its other player).
    @Test func watchAllFollowsEveryGameOnce() throws {
        let bot = try TicTacProcess(["bot", "--name", "botty", "--json", "--ephemeral"])
        let port = try #require(bot.await("ready")?["port"] as? Int)
        var players: [(TicTacProcess, Int)] = []
        for name in ["carol", "dave"] {
            let p = try TicTacProcess(["play", "--name", name, "--json", "--ephemeral", "--connect", "127.0.0.1:\(port)"])
            let own = try #require(p.await("ready")?["port"] as? Int)
            #expect(p.await("peer-found")?["name"] as? String == "botty")
            p.send("invite botty")
            #expect(p.await("game-started") != nil)
            players.append((p, own))
        }
        let all = try TicTacProcess(["watch", "--all", "--json", "--no-broadcast", "--no-dnssd", "--timeout", "0.5",
                                     "--connect", "127.0.0.1:\(port)"] + players.flatMap { ["--connect", "127.0.0.1:\($0.1)"] })
        var pairs: [Set<String>] = []
        while pairs.count < 2, let e = all.await("watching", timeout: 10) {
            let o = (e["o"] as? [String: Any])?["name"] as? String ?? "", x = (e["x"] as? [String: Any])?["name"] as? String ?? ""
            pairs.append([o, x])
        }
        #expect(Set(pairs) == [["botty", "carol"], ["botty", "dave"]], "\(pairs)")
        // carol plays to the end: her game's end is told.
        _ = carolPlays(players[0].0, until: 99, moveNow: false)
        var ended = false
        while !ended, let e = all.next(timeout: 10) { ended = e["event"] as? String == "watch-end" }
        #expect(ended)
        all.process.interrupt()
        #expect(all.waitExit() == 130)
        _ = bot
    }

    @Test func aPlayerWithNoSpectatorsRefusesWatchers() throws {
        let (bot, carol, port) = try game(botArgs: ["--no-spectators"])
        _ = (bot, carol)
        let w = try watcher(["botty"], port: port)
        #expect(w.await("notice")?["message"] as? String == "botty serves no watchers (an older tictac, or --no-spectators)")
        #expect(w.waitExit() == 69)
    }
}
