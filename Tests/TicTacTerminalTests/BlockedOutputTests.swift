import Foundation
import Glibc
import Testing

/// The front: a `play --plain` whose standard output nobody reads keeps serving its
/// peers (HELLO to a newcomer, PONG, the moves of a game). The unread pipe holds one page
/// (F_SETPIPE_SZ), so the front's output backs up at once instead of after 64 KB.
@Suite(.serialized) struct BlockedOutputTests {
    @Test(.timeLimit(.minutes(1))) func anUnreadStdoutDoesNotStopTheDaemon() throws {
        let stdin = Pipe(), stdout = Pipe()
        _ = fcntl(stdout.fileHandleForWriting.fileDescriptor, 1031 /* F_SETPIPE_SZ */, 4096)
        let stuck = Process()
        stuck.executableURL = CLITests.binary
        stuck.environment = ownStateEnvironment()
        stuck.arguments = ["play", "--plain", "--json", "--name", "stuck", "--no-broadcast", "--no-dnssd"]
        stuck.standardInput = stdin
        stuck.standardOutput = stdout
        stuck.standardError = FileHandle.nullDevice
        try stuck.run()
        defer { if stuck.isRunning { stuck.terminate() } }
        func tell(_ line: String) { stdin.fileHandleForWriting.write(Data((line + "\n").utf8)) }

        // Its first line gives the port; after that nobody reads its output again.
        let port = try #require(readPort(stdout.fileHandleForReading.fileDescriptor))
        // About 1,000 lines of output (a `help` is one long line): far past the pipe and the
        // front's queue. Only 5 KB of input, so writing it never blocks this test.
        for _ in 0..<1000 { tell("help") }
        // Waits until the unread pipe is full: the front's output has backed up.
        let out = stdout.fileHandleForReading.fileDescriptor
        var queued: Int32 = 0
        let fullBy = Date().addingTimeInterval(5)
        while Date() < fullBy, ioctl(out, UInt(FIONREAD), &queued) == 0, queued < 3072 { usleep(10_000) }
        #expect(queued >= 3072, "the front's output backs up: \(queued) bytes in the pipe")

        // A newcomer gets HELLO and PROOF: the lobby shows it.
        let peer = try TicTacProcess(["play", "--name", "peer", "--json", "--connect", "127.0.0.1:\(port)"])
        #expect(peer.await("peer-found", timeout: 5)?["name"] as? String == "stuck")
        peer.send("invite stuck")
        #expect(peer.await("invite-sent", timeout: 5) != nil)
        // Blind (its output is not read), until the game starts: the INVITE may not be there yet.
        var started = false
        let acceptBy = Date().addingTimeInterval(5)
        while !started, Date() < acceptBy {
            tell("accept")
            while let e = peer.next(timeout: 0.2) {
                if e["event"] as? String == "game-started" { started = true; break }
            }
        }
        #expect(started, "the unread front accepted the invitation")

        // A game: the peer plays the lowest free cell, `stuck` tries every cell in turn (the
        // illegal tries are only more unread output).
        var cells = "", over: [String: Any]?
        let end = Date().addingTimeInterval(20)
        while over == nil, Date() < end {
            for cell in 1...9 { tell("move \(cell)") }
            while let e = peer.next(timeout: 0.2) {
                switch e["event"] as? String {
                case "board": cells = e["cells"] as? String ?? cells
                case "your-turn":
                    let board = cells.isEmpty ? Array(repeating: Character("."), count: 9) : Array(cells)
                    if let i = board.firstIndex(of: ".") { peer.send("move \(i + 1)") }
                case "game-over": over = e
                case "disconnected", "peer-lost": Issue.record("the peer lost `stuck`: \(e)")
                default: break
                }
                if over != nil { break }
            }
        }
        #expect(over != nil, "the game between the peer and the unread front ended")

        // Six more seconds: past the 5 s liveness limit, so `stuck` answered the peer's PINGs.
        let quiet = Date().addingTimeInterval(6)
        while Date() < quiet {
            guard let e = peer.next(timeout: max(0.01, quiet.timeIntervalSinceNow)) else { continue }
            let name = e["event"] as? String
            #expect(name != "disconnected" && name != "peer-lost", "\(e)")
        }
        #expect(stuck.isRunning)
        peer.send("quit")
        #expect(peer.waitExit() == 0)
    }

    /// The port from the first (`ready`) line, read within 10 s.
    private func readPort(_ fd: Int32) -> Int? {
        var buffer: [UInt8] = []
        let end = Date().addingTimeInterval(10)
        while Date() < end {
            if let nl = buffer.firstIndex(of: 10) {
                let obj = try? JSONSerialization.jsonObject(with: Data(buffer[..<nl])) as? [String: Any]
                return obj?["port"] as? Int
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 200) >= 0 else { return nil }
            guard p.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 1) // one byte at a time: leave the rest unread
            guard read(fd, &chunk, 1) == 1 else { return nil }
            buffer += chunk
        }
        return nil
    }
}
