import Foundation
import Glibc
import Testing

/// A pseudo-terminal pair from /dev/ptmx (posix_openpt and openpty are not visible from Swift).
struct Pty {
    let master: Int32, slave: Int32

    /// A new pair, `rows` x `cols`.
    init(rows: UInt16 = 24, cols: UInt16 = 80) throws {
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(master >= 0)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        // TIOCSPTLCK and TIOCGPTN (macros Swift cannot import).
        try #require(ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0)
        slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(slave >= 0)
        var size = winsize(ws_row: rows, ws_col: cols, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
    }
}

/// A `tictac` process on a pseudo-terminal of its own (standard input and output are the pty's
/// slave), so it runs full screen; the test types keys into the master and drains what it draws.
final class PtyProcess {
    let process = Process()
    private let master: Int32
    private(set) var output: [UInt8] = []

    init(_ args: [String]) throws {
        let pty = try Pty()
        master = pty.master
        let slave = pty.slave
        process.executableURL = CLITests.binary
        process.arguments = args
        let tty = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.standardInput = tty
        process.standardOutput = tty
        process.standardError = FileHandle.nullDevice
        process.environment = ["TERM": "xterm-256color", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"]
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        close(master)
    }

    func type(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Reads what the process drew until it contains `text`; false after `timeout`.
    func await(_ text: String, timeout: Double = 10) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        let needle = Array(text.utf8)
        while Date() < end {
            if output.count >= needle.count, (0...(output.count - needle.count)).contains(where: { output[$0..<$0 + needle.count].elementsEqual(needle) }) {
                return true
            }
            drain(for: 0.05)
        }
        return false
    }

    /// Exit status, reading (and dropping) whatever it still draws meanwhile; nil after `timeout`.
    func waitExit(timeout: Double = 10) -> Int32? {
        let end = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < end { drain(for: 0.01) }
        return process.isRunning ? nil : process.terminationStatus
    }

    private func drain(for seconds: Double) {
        var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(seconds * 1000)) > 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = read(master, &chunk, chunk.count)
        if n > 0 { output += chunk[0..<n] } else { usleep(10_000) } // EIO once the slave is closed
    }
}

/// Ctrl-C leaves every runner with 130, as the shell reports an interrupted command (README
/// "Usage"): SIGINT in plain mode, the Ctrl-C key where a full screen has the terminal raw.
/// (`play --local`'s is CLITests.interruptExits130.)
@Suite(.serialized) struct InterruptTests {
    private let field = ["--announce-interval", "0.5", "--no-dnssd"]

    @Test func spheresInPlainModeExits130OnSIGINT() throws {
        let p = try TicTacProcess(["spheres", "--plain", "--json", "--name", "sid", "--discovery-port", "52311"] + field)
        #expect(p.await("ready") != nil)
        p.process.interrupt()
        #expect(p.waitExit() == 130)
    }

    @Test func theWanderingBotExits130OnSIGINT() throws {
        let p = try TicTacProcess(["spheres", "--bot", "--json", "--name", "walt", "--discovery-port", "52312"] + field)
        #expect(p.await("ready") != nil)
        p.process.interrupt()
        #expect(p.waitExit() == 130)
    }

    @Test func spheresFullScreenExits130OnCtrlCAnd0OnQ() throws {
        for (key, status) in [(UInt8(0x03), Int32(130)), (UInt8(ascii: "q"), 0)] {
            let p = try PtyProcess(["spheres", "--name", "sue", "--discovery-port", "52313"] + field)
            #expect(p.await("q: quit"), "the field's key help")
            p.type([key])
            #expect(p.waitExit() == status, "key \(key)")
        }
    }

    @Test func theFieldOpenedFromPlayExits130OnCtrlC() throws {
        let p = try PtyProcess(["play", "--name", "fay", "--discovery-port", "52314"] + field)
        #expect(p.await("f"), "the lobby")
        p.type(Array("f".utf8))
        #expect(p.await("q: lobby"), "the field's key help, q going back to the lobby")
        p.type([0x03])
        #expect(p.waitExit() == 130)
    }

    @Test func theFieldInPlainPlayExits130OnSIGINT() throws {
        let p = try TicTacProcess(["play", "--plain", "--json", "--name", "pia", "--discovery-port", "52315"] + field)
        #expect(p.await("ready") != nil)
        p.send("field")
        #expect(p.await("field") != nil)
        p.process.interrupt()
        #expect(p.waitExit() == 130)
    }

    @Test func thePlainLobbyExits130OnSIGINT() throws {
        let p = try TicTacProcess(["play", "--plain", "--json", "--name", "lou"])
        #expect(p.await("ready") != nil)
        p.process.interrupt()
        #expect(p.waitExit() == 130)
    }

    @Test func theFullScreenLobbyExits130OnCtrlC() throws {
        let p = try PtyProcess(["play", "--name", "lea", "--no-broadcast", "--no-dnssd"])
        #expect(p.await("lea"), "the lobby's title")
        p.type([0x03])
        #expect(p.waitExit() == 130)
    }

    @Test func theBotExits130OnSIGINTAnd0OnSIGTERM() throws {
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, 0)] {
            let p = try TicTacProcess(["bot", "--name", "bob", "--json"])
            #expect(p.await("ready") != nil)
            kill(p.process.processIdentifier, signal)
            #expect(p.waitExit() == status, "signal \(signal)")
        }
    }
}
