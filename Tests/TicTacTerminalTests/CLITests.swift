import Foundation
import Glibc
import Testing
import TicTacAPI
import TicTacDaemon
import TicTacDaemonCore
import TicTacEngine
import TicTacWire
import TicTacJSON
@testable import TicTacTerminal
import TicTacTime

/// The real binary in plain mode, as a script would drive it.
@Suite struct CLITests {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../.build/debug/tictac").standardized

    private func run(_ args: [String], input: String) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = Self.binary
        p.environment = ownStateEnvironment()
        p.arguments = args
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        p.standardError = stderr
        try p.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    /// The hot-seat names are taken with --hotseat and refused, in one line, where they name nobody.
    @Test func hotSeatNamesAreOptionsOfTheHotSeatOnly() throws {
        let alone = try run(["play", "--local", "--opponent-name", "ben"], input: "")
        #expect(alone.status == 64)
        #expect(alone.err.contains("--opponent-name names player 2 of --hotseat"), "\(alone.err)")
        let same = try run(["play", "--local", "--hotseat", "--name", "ann", "--opponent-name", "ann"], input: "")
        #expect(same.status == 64 && same.err.contains("must differ"), "\(same.err)")
        let asDefault = try run(["play", "--local", "--hotseat", "--opponent-name", "Player 1"], input: "")
        #expect(asDefault.status == 64 && asDefault.err.contains("must differ"), "\(asDefault.err)")
        let bad = try run(["play", "--local", "--hotseat", "--opponent-name", "a\u{7}b"], input: "")
        #expect(bad.status == 64, "\(bad.err)")
        // Accepted: this run stops only because a pipe is not a terminal.
        let named = try run(["play", "--local", "--hotseat", "--name", "ann", "--opponent-name", "ben"], input: "")
        #expect(named.status == 64 && named.err.contains("must be a terminal"), "\(named.err)")
        #expect(named.err.split(separator: "\n").count == 1)
        // --level with --hotseat: the hot seat has no bot (it said "add --local" to a --local run).
        let level = try run(["play", "--local", "--hotseat", "--level", "easy"], input: "")
        #expect(level.status == 64 && level.err.contains("--hotseat has no bot") && !level.err.contains("add --local"), "\(level.err)")
        let noLocal = try run(["play", "--level", "easy"], input: "")
        #expect(noLocal.status == 64 && noLocal.err.contains("or add --local"), "\(noLocal.err)")
    }

    @Test func jsonPlainModeAgainstTheBot() throws {
        let r = try run(["play", "--local", "--json", "--level", "random"], input: "bogus\nmove 99\nresign\nquit\n")
        #expect(r.status == 0)
        let events = try r.out.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let names = events.compactMap { $0["event"] as? String }
        #expect(Array(names.prefix(2)) == ["rolls", "game-started"])
        #expect(names.filter { $0 == "error" }.count >= 2)
        #expect(names.contains("game-over") && names.contains("score"))
        let over = events.first { $0["event"] as? String == "game-over" }
        #expect(over?["result"] as? String == "lost")
    }

    /// After a game, the rematch event says when the next starts; the player's own `new`
    /// mid-game starts it at once, with no rematch event.
    @Test func aLocalGameAnnouncesTheRematch() throws {
        func events(_ input: String) throws -> [[String: Any]] {
            let r = try run(["play", "--local", "--json", "--level", "random"], input: input)
            #expect(r.status == 0)
            return try r.out.split(separator: "\n").map { line in
                try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
        }
        let resigned = try events("resign\nquit\n")
        let names = resigned.compactMap { $0["event"] as? String }
        let at = try #require(names.firstIndex(of: "rematch"), "\(names)")
        #expect(Array(names[(at - 2)...at]) == ["game-over", "score", "rematch"])
        #expect(resigned[at]["seconds"] as? Int == 3)
        #expect(resigned[at]["commands"] as? [String] == ["new"])
        let renewed = try events("new\nquit\n").compactMap { $0["event"] as? String }
        #expect(renewed.contains("game-over") && !renewed.contains("rematch"), "\(renewed)")
        #expect(renewed.filter { $0 == "game-started" }.count == 2)
    }

    /// The plain text mode never echoes ESC or BEL from its input (Output.swift, `escaped`).
    @Test func plainTextModeEscapesWhatItEchoes() throws {
        let r = try run(["play", "--local", "--plain", "--level", "random"], input: "\u{1b}[2J\u{7}\nquit\n")
        #expect(r.status == 0)
        #expect(!r.out.utf8.contains(0x1b) && !r.out.utf8.contains(0x07), "\(r.out.debugDescription)")
        #expect(r.out.contains(#"'\x1b[2j\x07'"#), "\(r.out.debugDescription)") // the parser lower-cases
    }

    /// A `--name` with a bidirectional override, or with nothing visible, is a usage error of
    /// one line (Protocol.md §1's name rule).
    @Test func misleadingNamesAreUsageErrors() throws {
        for name in ["\u{202E}ecila", "\u{200B}", "\u{301}"] {
            let r = try run(["bot", "--name", name], input: "")
            #expect(r.status != 0, "\(name.debugDescription)")
            // One line says what is wrong, and nothing follows it.
            #expect(r.err.hasPrefix("tictac: name ") && r.err.split(separator: "\n").count == 1, "\(r.err)")
        }
    }

    @Test func badOptionsGiveOneLineAndAFailureStatus() throws {
        let r = try run(["play", "--local", "--rows", "99"], input: "")
        #expect(r.status != 0)
        #expect(r.err.contains("out of range"))
        let t = try run(["bot", "--peer-timeout", "0"], input: "")
        #expect(t.status != 0 && t.err.contains("--peer-timeout must be 2 to 300 seconds"))
        let v = try run(["--version"], input: "")
        #expect(v.status == 0 && v.out.hasPrefix("tictac "))
        // An unknown option: one line, no usage text, no guess (`--frob` once suggested `--rows`).
        let f = try run(["play", "--frob"], input: "")
        #expect(f.status == 64 && f.err.split(separator: "\n").count == 1, "\(f.err)")
        #expect(f.err.hasPrefix("tictac: Unknown option '--frob'") && !f.err.contains("--rows"), "\(f.err)")
        let o = try run(["play", "--local", "--name", "ann"], input: "")
        #expect(o.status == 64 && o.err.contains("--name"), "\(o.err)")
        let l = try run(["play", "--level", "easy"], input: "")
        #expect(l.status == 64 && l.err.contains("--level"), "\(l.err)")
    }

    /// Usage errors name the valid range, also for negative numbers (not "Missing value").
    @Test func numbersOutOfRangeNameTheRange() throws {
        let cases: [([String], String)] = [
            (["bot", "--port", "99999"], "--port must be 0 to 65535"),
            (["bot", "--port", "-1"], "--port must be 0 to 65535"),
            (["bot", "--max-games", "-3"], "--max-games must be 1 or more"),
            (["bot", "--max-games-per-peer", "-1"], "--max-games-per-peer must be 0 or more"),
            (["play", "--rows", "-3"], "out of range"),
            (["peers", "--discovery-port", "70000"], "--discovery-port must be 1 to 65535"),
            (["play", "--local", "--port", "50000"], "--local plays without a network"),
            (["bot", "--resume-window", "5"], "--resume-window must be 0 or 10 to 86400 seconds"),
        ]
        for (args, message) in cases {
            let r = try run(args, input: "")
            #expect(r.status == 64, "\(args): \(r.status)")
            #expect(r.err.contains(message), "\(args): \(r.err)")
            #expect(!r.err.contains("Missing value"), "\(args): \(r.err)")
        }
    }

    /// `--interface` naming no interface of this host is a usage error of one line that lists
    /// the ones there are, in every subcommand that takes it (it was accepted and announced
    /// nowhere).
    @Test func anUnknownInterfaceIsAUsageErrorNamingTheOnesThereAre() throws {
        for command in [["play"], ["play", "--plain"], ["bot"], ["peers"], ["spheres", "--plain"]] {
            // Bounded: a daemon that took the option would run on (a bot reads no input).
            let p = Process()
            p.executableURL = Self.binary
            p.environment = ownStateEnvironment()
            p.arguments = command + ["--interface", "nosuch0", "--no-dnssd"]
            let stderr = Pipe()
            p.standardInput = FileHandle.nullDevice
            p.standardOutput = FileHandle.nullDevice
            p.standardError = stderr
            try p.run()
            let end = Date().addingTimeInterval(10)
            while p.isRunning, Date() < end { usleep(10_000) }
            if p.isRunning { p.terminate(); p.waitUntilExit() }
            let r = (status: p.terminationStatus, err: String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            #expect(r.status == 64, "\(command): \(r.status) \(r.err)")
            let lines = r.err.split(separator: "\n")
            #expect(lines.count == 1, "\(command): \(r.err)")
            #expect(r.err.contains("no interface 'nosuch0'") && r.err.contains("there are: ") && r.err.contains("lo"), "\(command): \(r.err)")
        }
        // One that exists is taken (lo: this host only); peers then looks and exits 0.
        let ok = try run(["peers", "--interface", "lo", "--no-dnssd", "--timeout", "0.2", "--discovery-port", "51999"], input: "")
        #expect(ok.status == 0, "\(ok.err)")
    }

    /// A --connect name that does not resolve is a failure while running (EX_NOHOST, one line);
    /// one that is not HOST:PORT stays a usage error. (The tests run with no network: no name
    /// resolves but those of /etc/hosts; `.invalid` never does, RFC 2606.)
    @Test func anUnresolvableConnectHostIsOneLineAndNoHost() throws {
        let r = try run(["bot", "--connect", "nohost.invalid:5000", "--no-broadcast", "--no-dnssd"], input: "")
        #expect(r.status == 68, "EX_NOHOST, got \(r.status): \(r.err)")
        let lines = r.err.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("tictac: --connect: cannot resolve 'nohost.invalid': ") == true, "\(r.err)")
        #expect(!r.err.contains("Usage"))
        let bad = try run(["bot", "--connect", "nohost.invalid", "--no-broadcast", "--no-dnssd"], input: "")
        #expect(bad.status == 64 && bad.err.contains("is not HOST:PORT"), "\(bad.status): \(bad.err)")
    }

    /// A failure while running is one plain line and a sysexits status, not a usage error.
    @Test func aPortInUseIsOneLineAndUnavailable() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = 0 // INADDR_ANY, as the daemon binds
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        #expect(bound)
        let port = Int(UInt16(bigEndian: addr.sin_port))
        let r = try run(["bot", "--port", "\(port)", "--no-broadcast", "--no-dnssd"], input: "")
        #expect(r.status == 69, "EX_UNAVAILABLE, got \(r.status): \(r.err)")
        let lines = r.err.split(separator: "\n")
        #expect(lines.count == 1, "\(r.err)")
        #expect(lines.first?.hasPrefix("tictac: cannot listen on TCP port \(port): ") == true, "\(r.err)")
        #expect(!r.err.contains("Usage"))
    }

    /// A --log-file that cannot be opened is a failure while running: one line, EX_CANTCREAT,
    /// no usage text (it printed the root command's usage and 64).
    @Test func aLogFileThatCannotBeOpenedIsOneLine() throws {
        let r = try run(["bot", "--log-file", "/nonexistent-dir/tictac.log", "--no-broadcast", "--no-dnssd"], input: "")
        #expect(r.status == 73, "EX_CANTCREAT, got \(r.status): \(r.err)")
        let lines = r.err.split(separator: "\n")
        #expect(lines.count == 1, "\(r.err)")
        #expect(lines.first == "tictac: cannot open --log-file /nonexistent-dir/tictac.log: No such file or directory", "\(r.err)")
    }

    /// `--log-file`: the log is appended to the file, one line per message in swift-log's
    /// stream format (time, level, label), run after run.
    @Test func aLogFileGetsTheLog() throws {
        let path = NSTemporaryDirectory() + "/tictac-log-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: path) }
        for _ in 0..<2 {
            let bot = try TicTacProcess(["bot", "--name", "logan", "--json", "--log-level", "info", "--log-file", path])
            #expect(bot.await("ready") != nil)
            bot.process.terminate()
            #expect(bot.waitExit() == 0)
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { $0.contains("listening on port") }
        #expect(lines.count == 2, "\(lines)")
        let format = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} info tictac\.bot: \[\w+\] bot logan \(/
        #expect(lines.allSatisfy { $0.firstMatch(of: format) != nil }, "\(lines)")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    /// Ctrl-C (SIGINT) leaves cleanly with the shell's status for an interrupt, 130; q with 0.
    @Test func interruptExits130() throws {
        let p = try TicTacProcess(["play", "--local", "--json", "--level", "random"])
        #expect(p.await("game-started") != nil)
        p.process.interrupt()
        #expect(p.waitExit() == 130)
        let q = try run(["play", "--local", "--plain", "--level", "random"], input: "q\n")
        #expect(q.status == 0)
    }

    /// The headless bot says it runs, with its name and port, without --json.
    @Test func theBotSaysWhereItListens() throws {
        let p = Process()
        p.executableURL = Self.binary
        p.environment = ownStateEnvironment()
        p.arguments = ["bot", "--name", "botty", "--no-broadcast", "--no-dnssd"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { p.terminate() }; p.waitUntilExit() }
        // Waits at most 10 s: a bot that says nothing fails here instead of hanging the test.
        var ready = pollfd(fd: out.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 10_000) == 1, "the bot printed nothing")
        let first = ready.revents != 0 ? String(decoding: out.fileHandleForReading.availableData, as: UTF8.self) : ""
        #expect(first.hasPrefix("bot botty ("), "\(first)")
        #expect(first.contains("listening on ") && first.contains(", port "), "\(first)")
    }
}
