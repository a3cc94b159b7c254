import Foundation
import Glibc
import Testing
import TicTacDaemon
import TicTacDaemonCore
import TicTacEngine
import TicTacWire

/// The environment for a tictac started by a test: a state directory of its own, so daemons
/// started side by side never find theirs in use (and say so on standard error).
/// It lives under the run's own XDG_STATE_HOME when tools/test set one (removed at the end).
func ownStateEnvironment() -> [String: String] {
    var env = ProcessInfo.processInfo.environment
    let base = env["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
    var template = Array("\(base)/tictac-test-state.XXXXXX".utf8CString)
    let dir = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } } ?? "/tmp"
    env["XDG_STATE_HOME"] = dir
    return env
}

/// A `tictac` process driven over pipes, read one JSON event at a time with a deadline.
final class TicTacProcess {
    let process = Process()
    private let stdin = Pipe(), stdout = Pipe()
    private var buffer: [UInt8] = []
    private(set) var events: [[String: Any]] = []

    /// - Parameter stderr: a file for its standard error (the log), else it is dropped.
    init(_ args: [String], stderr: String? = nil) throws {
        process.executableURL = CLITests.binary
        process.environment = ownStateEnvironment()
        // Tests that name their peers with --connect keep discovery off: other tests' daemons
        // share the namespace (and its private Avahi). A test that wants discovery gives its own
        // --discovery-port, so it meets only its own daemons.
        let quiet = ["play", "bot"].contains(args.first ?? "") && !args.contains("--local")
            && !args.contains("--discovery-port")
        process.arguments = args + (quiet ? ["--no-broadcast", "--no-dnssd"] : [])
        process.standardInput = stdin
        process.standardOutput = stdout
        if let stderr, FileManager.default.createFile(atPath: stderr, contents: nil), let log = FileHandle(forWritingAtPath: stderr) {
            process.standardError = log
        } else {
            process.standardError = FileHandle.nullDevice
        }
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
        // Between the games: the score, then when the next starts and what lobby does instead.
        let names = player.events.compactMap { $0["event"] as? String }
        let rematch = try #require(names.firstIndex(of: "rematch"), "\(names)")
        #expect(names[rematch - 1] == "score")
        #expect(player.events[rematch]["seconds"] as? Int == 3)
        #expect(player.events[rematch]["commands"] as? [String] == ["new", "lobby"])
        player.send("quit")
        #expect(player.waitExit() == 0)
        // The bot printed both games and is still up; SIGTERM ends it cleanly.
        #expect(bot.await("game-over") != nil)
        bot.process.terminate()
        #expect(bot.waitExit() == 0)
    }

    /// `cancel` in a match says what it is for and what ends a game, not "no invitation".
    @Test func cancelInAMatchSaysWhatToTypeInstead() throws {
        let bot = try TicTacProcess(["bot", "--name", "botty", "--json"])
        let port = try #require(bot.await("ready")?["port"] as? Int)
        let player = try TicTacProcess(["play", "--name", "dan", "--json", "--connect", "127.0.0.1:\(port)"])
        #expect(player.await("peer-found")?["name"] as? String == "botty")
        player.send("cancel")
        let idle = try #require(player.await("error"))
        #expect(idle["code"] as? String == "no-invitation")
        #expect(idle["message"] as? String == "you have no invitation waiting to withdraw")
        player.send("invite botty")
        #expect(player.await("game-started") != nil)
        player.send("cancel")
        let playing = try #require(player.await("error"))
        #expect(playing["code"] as? String == "no-invitation")
        let message = playing["message"] as? String ?? ""
        #expect(message.contains("you are in a game"), "\(message)")
        #expect(message.contains("type resign") && message.contains("lobby to end the match"), "\(message)")
        player.send("quit")
        #expect(player.waitExit() == 0)
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

    /// Out of file descriptors (EMFILE) with connections waiting in the backlog: the daemon
    /// stops watching its listener for a moment instead of spinning on it, and takes
    /// connections again once descriptors are free.
    @Test func runningOutOfDescriptorsDoesNotSpinTheLoop() throws {
        let bot = try TicTacProcess(["bot", "--name", "botty", "--json"])
        let port = try #require(bot.await("ready")?["port"] as? Int)
        let pid = bot.process.processIdentifier
        // The lowest limit that leaves the bot 3 free descriptors.
        let open = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int($0) })
        var limit = 0
        while limit - open.count(where: { $0 < limit }) < 3 { limit += 1 }
        try setDescriptorLimit(pid, limit)

        var clients: [Int32] = []
        defer { for fd in clients { close(fd) } }
        for _ in 0..<10 { clients.append(try dial(port)) } // 3 accepted, 7 left in the backlog
        let full = Date().addingTimeInterval(5)
        while openDescriptors(pid, below: limit) < limit, Date() < full { usleep(10_000) }
        try #require(openDescriptors(pid, below: limit) == limit, "the bot accepted until its descriptors ran out")
        let before = try cpuTicks(pid)
        usleep(1_000_000)
        let used = try cpuTicks(pid) - before
        #expect(used < Int(sysconf(Int32(_SC_CLK_TCK))) / 4, "\(used) clock ticks of CPU in one second at EMFILE")

        for fd in clients { close(fd) }
        clients = []
        try setDescriptorLimit(pid, 1024)
        let player = try TicTacProcess(["play", "--name", "carol", "--json", "--connect", "127.0.0.1:\(port)"])
        #expect(player.await("peer-found") != nil, "the bot accepts again")
        player.send("invite botty")
        #expect(playLowestFree(player, games: 1).count == 1)
        player.send("quit")
        #expect(player.waitExit() == 0)
        bot.process.terminate()
        #expect(bot.waitExit() == 0)
    }

    /// `--peer-timeout 2`: a peer that says HELLO and then nothing is gone after 2 s (the
    /// default would be 5 s), told so with ERROR timeout.
    @Test func peerTimeoutOption() throws {
        let bot = try TicTacProcess(["bot", "--name", "botty", "--json", "--peer-timeout", "2"])
        let port = try #require(bot.await("ready")?["port"] as? Int)
        let fd = try dial(port)
        defer { close(fd) }
        // The whole handshake (Protocol.md §4): HELLO, the bot's HELLO, our PROOF (we dialled).
        var rng = SplitMix64(seed: 3)
        let key = Identity(using: &rng)
        let nonce = ID128(high: 3, low: 3)
        func write(_ m: Message) {
            let bytes = m.encoded()
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        write(.hello(Hello(instanceID: key.instanceID, name: try DisplayName("mute"), capabilities: [.tictactoe],
                           publicKey: key.publicKey, nonce: nonce)))
        var decoder = FrameDecoder()
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end = Date().addingTimeInterval(4)
        var closed = false
        var messages: [Message] = []
        var proven: Date?
        while !closed, Date() < end, poll(&p, 1, 100) >= 0 {
            let n = read(fd, &buffer, buffer.count)
            if n > 0 { decoder.feed(buffer[0..<n]) } else if n == 0 { closed = true }
            while let f = try? decoder.next() { if let m = try? Message(frame: f) { messages.append(m) } }
            if proven == nil, let botHello = messages.lazy.compactMap({ if case let .hello(h) = $0 { h } else { nil } }).first {
                write(.proof(signature: key.proof(version: 1, ourNonce: nonce, peer: botHello.instanceID,
                                                  peerNonce: botHello.nonce) ?? []))
                proven = Date()
            }
        }
        #expect(closed, "closed within 4 s")
        #expect(messages.contains { if case .proof = $0 { true } else { false } }, "the bot proved its id: the link was ready")
        #expect(messages.contains { if case .error(ErrorCode.timeout.rawValue, _) = $0 { true } else { false } })
        bot.process.terminate()
        #expect(bot.waitExit() == 0)
    }

    /// `--identity FILE`: the first start creates the key (mode 0600), a restart keeps the id;
    /// a file that is not a key stops the start with one line.
    @Test func identityFileKeepsTheIdAcrossRestarts() throws {
        let dir = NSTemporaryDirectory() + "/tictac-cli-identity-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/tictac/identity"
        var ids: [String] = []
        for _ in 0..<2 {
            let bot = try TicTacProcess(["bot", "--name", "botty", "--json", "--identity", path])
            ids.append(try #require(bot.await("ready")?["id"] as? String))
            bot.process.terminate()
            #expect(bot.waitExit() == 0)
        }
        #expect(ids[0] == ids[1] && ids[0].count == 32)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let fresh = try TicTacProcess(["bot", "--name", "botty", "--json"])
        #expect(try #require(fresh.await("ready")?["id"] as? String) != ids[0], "without the file, a new key")
        fresh.process.terminate()
        _ = fresh.waitExit()

        try "not a key\n".write(toFile: path, atomically: false, encoding: .utf8)
        let p = Process()
        p.executableURL = CLITests.binary
        p.environment = ownStateEnvironment()
        p.arguments = ["bot", "--identity", path]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus != 0)
        #expect(text.split(separator: "\n").first?.contains("does not hold a key") == true, "\(text)")
    }

    /// A blocking loopback connection to `port`.
    private func dial(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: in_port_t(UInt16(port).bigEndian),
                               sin_addr: in_addr(s_addr: UInt32(0x7F00_0001).bigEndian), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(fd >= 0 && rc == 0)
        return fd
    }

    /// Sets another process's RLIMIT_NOFILE with util-linux's prlimit (glibc's prlimit() is not
    /// visible from Swift).
    private func setDescriptorLimit(_ pid: Int32, _ limit: Int) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        p.arguments = ["--pid", "\(pid)", "--nofile=\(limit):"] // the soft limit
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "prlimit --nofile=\(limit)")
    }

    /// How many of a process's open descriptors (/proc/PID/fd) are numbered below `limit`.
    private func openDescriptors(_ pid: Int32, below limit: Int) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return fds.count { (Int($0) ?? limit) < limit }
    }

    /// User plus system CPU time of a process, in clock ticks (/proc/PID/stat fields 14 and 15).
    private func cpuTicks(_ pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = try #require(stat.split(separator: ")").last).split(separator: " ")
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    @Test func aThousandBotGamesAllFinishAndAgree() throws {
        let n = 1000
        let a = try TicTacProcess(["bot", "--name", "a", "--json", "--max-games", "\(n)", "--max-games-per-peer", "0"])
        let port = try #require(a.await("ready")?["port"] as? Int)
        let b = try TicTacProcess(["bot", "--name", "b", "--json", "--max-games", "\(n)", "--max-games-per-peer", "0", "--connect", "127.0.0.1:\(port)"])
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
