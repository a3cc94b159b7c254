import Glibc
import Testing
import TicTacNet

/// A pipe that holds at most one page (F_SETPIPE_SZ), so "nobody reads" shows at once.
private func smallPipe() -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0)
    _ = fcntl(fds[1], 1031 /* F_SETPIPE_SZ */, 4096)
    _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
    return (fds[0], fds[1])
}

private func readAll(_ fd: Int32) -> String {
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else { break }
        out += buffer[0..<n]
    }
    return String(decoding: out, as: UTF8.self)
}

@Suite struct LineWriterTests {
    @Test func anUnreadPipeNeverBlocksAndTheQueueStaysBounded() throws {
        let p = smallPipe()
        defer { close(p.read); close(p.write) }
        let writer = LineWriter(fd: p.write, maxBytes: 2000, gapLine: { "gap \($0)" })
        let line = String(repeating: "x", count: 95) // 96 bytes with the newline
        // 400 lines (38 KB) into a 4 KB pipe: each call returns (the test would hang otherwise).
        for i in 0..<400 { writer.write("\(i) " + line) }
        #expect(writer.queuedBytes <= 2000 + 100)
        #expect(writer.droppedLines > 300)

        // The reader comes back: whole lines in order, one gap line where lines are missing.
        let reactor = try Reactor()
        writer.attach(to: reactor)
        var text = ""
        for _ in 0..<50 where writer.queuedBytes > 0 {
            text += readAll(p.read)
            try reactor.runOnce(maxWait: .milliseconds(20))
        }
        text += readAll(p.read)
        #expect(writer.queuedBytes == 0)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let gaps = lines.filter { $0.hasPrefix("gap ") }
        // A short gap line may fit in a pipe too full for a whole line: a few gap lines can go
        // out, each standing for the lines dropped just there; together, for every one.
        #expect(!gaps.isEmpty && gaps.count < 20)
        #expect(gaps.compactMap { Int($0.dropFirst(4)) }.reduce(0, +) == writer.droppedLines)
        let numbers = lines.filter { !$0.hasPrefix("gap ") }.compactMap { Int($0.split(separator: " ")[0]) }
        #expect(numbers == numbers.sorted(), "lines stay in order")
        #expect(numbers.last == 399, "the newest lines are kept")
        #expect(numbers.count + writer.droppedLines == 400, "every line is written or counted")
        #expect(lines.allSatisfy { $0.hasPrefix("gap ") || $0.hasSuffix(line) }, "no half lines")
    }

    @Test func theSharedDescriptionStaysBlockingForAPipeAndATerminal() throws {
        // A terminal's stdout shares its open file description with stdin, stderr and the
        // shell: the writer must not make it nonblocking (it opens its own description).
        let p = smallPipe()
        defer { close(p.read); close(p.write) }
        // A pseudo-terminal by hand (posix_openpt and friends are not in Swift's Glibc):
        // TIOCSPTLCK unlocks it, TIOCGPTN names its other side, /dev/pts/N.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        var unlock: Int32 = 0, number: UInt32 = 0
        try #require(ioctl(master, UInt(0x4004_5431), &unlock) == 0 && ioctl(master, UInt(0x8004_5430), &number) == 0)
        let terminal = open("/dev/pts/\(number)", O_WRONLY | O_NOCTTY)
        try #require(terminal >= 0)
        defer { close(terminal) }
        for fd in [p.write, terminal] {
            let writer = LineWriter(fd: fd, maxBytes: 4000, gapLine: { "gap \($0)" })
            // Nobody reads: far more than either buffer holds, and every call returns.
            for i in 0..<2000 { writer.write("\(i) " + String(repeating: "y", count: 60)) }
            #expect(writer.queuedBytes > 0 && writer.droppedLines > 0)
            #expect(fcntl(fd, F_GETFL) & O_NONBLOCK == 0, "fd \(fd) was made nonblocking")
        }
    }

    @Test func aClosedReaderEndsTheWritingQuietly() {
        let p = smallPipe()
        close(p.read)
        defer { close(p.write) }
        signal(SIGPIPE, SIG_IGN)
        let writer = LineWriter(fd: p.write, gapLine: { "gap \($0)" })
        for _ in 0..<10 { writer.write("hello") }
        #expect(writer.queuedBytes == 0)
    }
}
