import Foundation
import Glibc
import Testing

/// A `tictac` process driven over pipes, read one JSON event at a time with a deadline.
final class TicTacProcess {
    let process = Process()
    private let stdin = Pipe(), stdout = Pipe()
    private var buffer: [UInt8] = []
    private(set) var events: [[String: Any]] = []

    init(_ args: [String]) throws {
        process.executableURL = CLITests.binary
        process.arguments = args
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    func send(_ line: String) {
        stdin.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    func closeInput() { try? stdin.fileHandleForWriting.close() }

    /// The next event (in order), or nil after `timeout`.
    func next(timeout: Double = 10) -> [String: Any]? {
        let fd = stdout.fileHandleForReading.fileDescriptor
        let end = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = Array(buffer[..<nl])
                buffer.removeSubrange(...nl)
                guard let obj = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
                events.append(obj)
                return obj
            }
            let left = end.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(left * 1000)) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            guard n > 0 else { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// Reads events until one named `name` (returned), or nil.
    func await(_ name: String, timeout: Double = 10) -> [String: Any]? {
        let end = Date().addingTimeInterval(timeout)
        while let e = next(timeout: max(0, end.timeIntervalSinceNow)) {
            if e["event"] as? String == name { return e }
        }
        return nil
    }

    func waitExit(timeout: Double = 10) -> Int32? {
        let end = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < end { usleep(10_000) }
        return process.isRunning ? nil : process.terminationStatus
    }
}

/// Plays the lowest free cell on every "your-turn" until `games` games are over.
/// Returns the results in order.
func playLowestFree(_ p: TicTacProcess, games: Int) -> [String] {
    var results: [String] = []
    var cells = ""
    while results.count < games, let e = p.next(timeout: 15) {
        switch e["event"] as? String {
        case "board": cells = e["cells"] as? String ?? cells
        case "game-started": cells = ""
        case "your-turn":
            let board = cells.isEmpty ? Array(repeating: Character("."), count: 9) : Array(cells)
            if let i = board.firstIndex(of: ".") { p.send("move \(i + 1)") }
        case "game-over": results.append(e["result"] as? String ?? "?")
        default: break
        }
    }
    return results
}

@Suite(.serialized) struct ProcessTests {
    @Test func aPlainPlayerPlaysTheHeadlessBot() throws {
        let bot = try TicTacProcess(["bot", "--name", "botty", "--json", "--level", "perfect"])
        let ready = try #require(bot.await("ready"))
        let port = try #require(ready["port"] as? Int)
        let player = try TicTacProcess(["play", "--name", "carol", "--json", "--connect", "127.0.0.1:\(port)"])
        #expect(player.await("peer-found")?["name"] as? String == "botty")
        player.send("invite botty")
        let results = playLowestFree(player, games: 2)
        #expect(results.count == 2)
        #expect(!results.contains("won"), "nobody beats the perfect bot")
        player.send("quit")
        #expect(player.waitExit() == 0)
        // The bot printed both games and is still up; SIGTERM ends it cleanly.
        #expect(bot.await("game-over") != nil)
        bot.process.terminate()
        #expect(bot.waitExit() == 0)
    }

    @Test func twoPlainPlayersPlayEachOther() throws {
        let a = try TicTacProcess(["play", "--name", "ann", "--json"])
        let port = try #require(a.await("ready")?["port"] as? Int)
        let b = try TicTacProcess(["play", "--name", "ben", "--json", "--connect", "127.0.0.1:\(port)"])
        #expect(a.await("peer-found")?["name"] as? String == "ben")
        #expect(b.await("peer-found")?["name"] as? String == "ann")
        b.send("invite ann")
        #expect(a.await("invited") != nil)
        a.send("accept")
        // Both play "lowest free cell" in one thread: alternate reading each side.
        var resultA: String?, resultB: String?
        var cellsA = "", cellsB = ""
        let end = Date().addingTimeInterval(20)
        while (resultA == nil || resultB == nil), Date() < end {
            for (p, isA) in [(a, true), (b, false)] {
                guard let e = p.next(timeout: 0.05) else { continue }
                switch e["event"] as? String {
                case "board": if isA { cellsA = e["cells"] as? String ?? "" } else { cellsB = e["cells"] as? String ?? "" }
                case "your-turn":
                    let cells = Array(isA ? cellsA : cellsB)
                    let i = cells.isEmpty ? 0 : (cells.firstIndex(of: ".") ?? 0)
                    p.send("move \(i + 1)")
                case "game-over":
                    if isA { resultA = e["result"] as? String } else { resultB = e["result"] as? String }
                default: break
                }
            }
        }
        let mirrored = ["won": "lost", "lost": "won", "draw": "draw"]
        #expect(resultA != nil && mirrored[resultA ?? ""] == resultB)
        #expect(cellsA == cellsB && !cellsA.isEmpty)
        a.send("quit")
        #expect(b.await("disconnected") != nil, "ann's LEAVE reaches ben")
        #expect(a.waitExit() == 0)
        b.closeInput() // end of input quits too
        #expect(b.waitExit() == 0)
    }

    @Test func aThousandBotGamesAllFinishAndAgree() throws {
        let n = 1000
        let a = try TicTacProcess(["bot", "--name", "a", "--json", "--max-games", "\(n)"])
        let port = try #require(a.await("ready")?["port"] as? Int)
        let b = try TicTacProcess(["bot", "--name", "b", "--json", "--max-games", "\(n)", "--connect", "127.0.0.1:\(port)"])
        var ra: [String] = [], rb: [String] = []
        let end = Date().addingTimeInterval(120)
        while (ra.count < n || rb.count < n), Date() < end {
            if ra.count < n, let e = a.next(timeout: 0.01), e["event"] as? String == "game-over" { ra.append(e["result"] as? String ?? "?") }
            if rb.count < n, let e = b.next(timeout: 0.01), e["event"] as? String == "game-over" { rb.append(e["result"] as? String ?? "?") }
        }
        #expect(ra.count == n && rb.count == n)
        #expect(ra.allSatisfy { $0 == "draw" } && rb.allSatisfy { $0 == "draw" }, "perfect against perfect always draws")
        #expect(a.waitExit() == 0 && b.waitExit() == 0, "both exit after --max-games")
    }
}
