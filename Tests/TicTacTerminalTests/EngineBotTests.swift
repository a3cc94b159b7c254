import Foundation
import Glibc
import Testing

/// `tictac bot --engine` with tools/engine/pbrain-tiny.py, well-behaved and broken, against
/// built-in bots on loopback.
@Suite(.serialized) struct EngineBotTests {
    static let engine = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../tools/engine/pbrain-tiny.py").standardized.path

    /// A file for a process's log, in the run's temporary state directory.
    func logPath(_ name: String) -> String {
        let dir = ownStateEnvironment()["XDG_STATE_HOME"] ?? "/tmp"
        return "\(dir)/\(name).log"
    }

    func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// The log once it holds `line`, or as it is after `timeout`: the bot writes a game's last
    /// lines in the loop turn that sends its end, so the opponent can have seen the end first.
    func read(_ path: String, once line: String, timeout: Double = 5) -> String {
        let end = Date().addingTimeInterval(timeout)
        var text = read(path)
        while !text.contains(line), Date() < end {
            usleep(50_000)
            text = read(path)
        }
        return text
    }

    /// The game-over results a bot printed, until it has `count` or exits.
    func results(_ p: TicTacProcess, _ count: Int, timeout: Double = 120) -> [String] {
        var out: [String] = []
        let end = Date().addingTimeInterval(timeout)
        while out.count < count, let e = p.await("game-over", timeout: max(0, end.timeIntervalSinceNow)) {
            out.append(e["result"] as? String ?? "?")
        }
        return out
    }

    /// Pids whose command line contains `marker` (an engine's unique argument).
    func processes(with marker: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self).contains(marker)
        }
    }

    /// The built-in bot at `easy` (about a second; at `perfect` its debug-build searches took
    /// 40 s of the suite): tools/lan/test-engine plays it at its default.
    @Test func anEngineBotFinishesA15x15GameAgainstTheBuiltInBot() throws {
        let marker = "--fault-after \(Int.random(in: 100_000...999_999))" // never reached: no --fault
        let aLog = logPath("engine-a")
        let a = try TicTacProcess(["bot", "--name", "engine", "--json", "--ephemeral", "--log-level", "info", "--max-games", "1",
                                   "--engine", "python3 \(Self.engine) \(marker)"], stderr: aLog)
        let port = try #require(a.await("ready", timeout: 30)?["port"] as? Int)
        let b = try TicTacProcess(["bot", "--name", "builtin", "--json", "--ephemeral", "--max-games", "1",
                                   "--level", "easy", "--rows", "15", "--cols", "15", "--k", "5", "--connect", "127.0.0.1:\(port)"])
        let ra = results(a, 1, timeout: 300), rb = results(b, 1, timeout: 30)
        #expect(ra.count == 1 && rb.count == 1, "the game finished")
        let agree = ["won": "lost", "lost": "won", "draw": "draw"]
        #expect(ra.first.flatMap { agree[$0] } == rb.first, "\(ra) \(rb)")
        #expect(a.waitExit(timeout: 10) == 0 && b.waitExit(timeout: 10) == 0)
        let log = read(aLog)
        #expect(log.contains("engine pbrain-tiny 1.0"), "ABOUT in the log: \(log.prefix(2000))")
        #expect(log.contains("plays 256 boards with k = 5: squares 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 and 240 rectangles"))
        #expect(!log.contains("failed"), "\(log.suffix(2000))")
        // SIGKILLed as the bot leaves; the kernel tears a process down after the signal, so a
        // loaded machine can still list it for a moment.
        var left = processes(with: marker)
        for _ in 0..<50 where !left.isEmpty {
            usleep(100_000)
            left = processes(with: marker)
        }
        #expect(left.isEmpty, "the engine process is gone after the bot")
    }

    @Test func aPlainPlayerPlaysTheEngineOn15x15() throws {
        let aLog = logPath("engine-human")
        let a = try TicTacProcess(["bot", "--name", "gomoku", "--json", "--ephemeral", "--log-level", "notice",
                                   "--engine", "python3 \(Self.engine)"], stderr: aLog)
        let port = try #require(a.await("ready", timeout: 30)?["port"] as? Int)
        let player = try TicTacProcess(["play", "--name", "carol", "--json", "--rows", "15", "--cols", "15", "--k", "5",
                                        "--connect", "127.0.0.1:\(port)"])
        let found = player.await("peer-found")
        #expect(found?["name"] as? String == "gomoku")
        #expect(found?["program"] as? String == "pbrain-tiny 1.0", "the engine's ABOUT, from HELLO field 9")
        player.send("invite gomoku")
        // The player takes the lowest free cell each turn (a row from the upper left): the
        // engine has to block it, and the game ends.
        var cells = String(repeating: ".", count: 225), result: String?
        while result == nil, let e = player.next(timeout: 30) {
            switch e["event"] as? String {
            case "board": cells = e["cells"] as? String ?? cells
            case "your-turn":
                if let i = cells.firstIndex(of: ".") { player.send("move \(cells.distance(from: cells.startIndex, to: i) + 1)") }
            case "game-over": result = e["result"] as? String
            default: break
            }
        }
        #expect(result == "lost", "the engine blocked the row and won: \(String(describing: result))")
        player.send("quit")
        #expect(player.waitExit() == 0)
        a.process.terminate()
        #expect(a.waitExit() == 0)
        #expect(!read(aLog).contains("failed"), "\(read(aLog))")
    }

    /// A broken engine (good for its first move, so the opponent counts the game) loses its
    /// first game with the reason in the log, is restarted for the next, and with its one
    /// restart used the match ends. Two faults here; every fault (silent, illegal, offboard,
    /// flood, errflood, hog, burn too), each beside a game that goes on, is tools/lan/test-engine's:
    /// they wait out real clocks and limits, which the Swift suite's time is not for.
    @Test(arguments: [("crash", "exited with status 3"), ("garbage", "where a move was due")])
    func aBrokenEngineLosesCleanly(_ fault: String, _ reason: String) throws {
        let aLog = logPath("engine-\(fault)")
        let a = try TicTacProcess(["bot", "--name", "broken", "--json", "--ephemeral", "--log-level", "info",
                                   "--engine-restarts", "1", "--engine-memory", "256", "--move-time", "5",
                                   "--engine", "python3 \(Self.engine) --fault \(fault) --fault-after 1"], stderr: aLog)
        let port = try #require(a.await("ready", timeout: 30)?["port"] as? Int)
        let b = try TicTacProcess(["bot", "--name", "opponent", "--json", "--ephemeral", "--level", "random", "--max-games", "2",
                                   "--rows", "15", "--cols", "15", "--k", "5", "--connect", "127.0.0.1:\(port)"])
        let rb = results(b, 2, timeout: 60)
        #expect(rb == ["won", "won"], "the broken engine lost both games: \(rb)")
        #expect(b.waitExit(timeout: 10) == 0)
        let log = read(aLog, once: "no engine restart left")
        #expect(log.contains("lost the game against opponent by resigning: the engine failed"), "\(log.suffix(3000))")
        #expect(log.contains(reason), "\(log.suffix(3000))")
        #expect(log.contains("restart after failure 1"), "restarted for the next game")
        #expect(log.contains("no engine restart left"), "the second failure used up the restarts")
        a.process.terminate()
        #expect(a.waitExit() == 0)
    }

    /// The engine runs with its limits set, nice 10, no signal of the daemon's blocked, and none
    /// of the daemon's sockets (posix_spawn closes every descriptor past 2). The engine itself
    /// reports (`--report`), from the process that plays the game.
    @Test func theEngineHasItsLimitsAndNothingOfTheDaemons() throws {
        let report = logPath("engine-environment") + ".txt"
        let a = try TicTacProcess(["bot", "--name", "limited", "--json", "--ephemeral", "--engine-memory", "256", "--engine-cpu", "7",
                                   "--engine", "python3 \(Self.engine) --report \(report)"])
        let port = try #require(a.await("ready", timeout: 30)?["port"] as? Int)
        try? FileManager.default.removeItem(atPath: report) // the probe's: the game's engine writes it again
        // A game: its engine is started by the running daemon, which holds sockets by then.
        let b = try TicTacProcess(["bot", "--name", "opponent", "--json", "--ephemeral", "--level", "random", "--max-games", "1",
                                   "--rows", "15", "--cols", "15", "--k", "5", "--connect", "127.0.0.1:\(port)"])
        #expect(results(b, 1, timeout: 60).count == 1)
        // The match is over (the opponent left): the engine is told END and exits by itself.
        let ended = read(report, once: "end", timeout: 5)
        let lines = ended.split(separator: "\n").map { String($0) }
        #expect(lines == ["sockets 0", "blocked 0000000000000000", "memory \(256 << 20)", "cpu 7", "nice 10", "end"])
        a.process.terminate()
        #expect(a.waitExit() == 0)
    }

    /// An engine that refuses every board ends the start (one that stops answering while asked,
    /// 10 s, is tools/lan/test-engine's).
    @Test(arguments: [("refuse", "accepted no board")])
    func anEngineThatPlaysNoBoardEndsTheStart(_ fault: String, _ why: String) throws {
        let log = logPath("engine-\(fault)")
        let a = try TicTacProcess(["bot", "--name", "refuser", "--json", "--ephemeral",
                                   "--engine", "python3 \(Self.engine) --fault \(fault)"], stderr: log)
        #expect(a.waitExit(timeout: 30) == 78, "EX_CONFIG")
        #expect(read(log).contains(why), "\(read(log))")
    }

    @Test func boardsTheEngineDoesNotPlayAreDeclinedAnd3x3IsPlayed() throws {
        let a = try TicTacProcess(["bot", "--name", "engine", "--json", "--ephemeral", "--engine", "python3 \(Self.engine)"])
        let port = try #require(a.await("ready", timeout: 30)?["port"] as? Int)
        let bLog = logPath("engine-declined")
        let b = try TicTacProcess(["bot", "--name", "k4", "--json", "--ephemeral", "--log-level", "info", "--max-games", "1",
                                   "--rows", "7", "--cols", "7", "--k", "4", "--connect", "127.0.0.1:\(port)"], stderr: bLog)
        let c = try TicTacProcess(["bot", "--name", "classic", "--json", "--ephemeral", "--level", "random", "--max-games", "1",
                                   "--connect", "127.0.0.1:\(port)"])
        #expect(results(c, 1, timeout: 30).count == 1, "the built-in bot plays 3x3")
        let end = Date().addingTimeInterval(20)
        while !read(bLog).contains("declined: unsupported"), Date() < end { usleep(50_000) }
        #expect(read(bLog).contains("engine declined: unsupported"), "\(read(bLog))")
        b.process.terminate()
        a.process.terminate()
        #expect(a.waitExit() == 0)
    }
}
