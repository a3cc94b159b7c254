#if canImport(Glibc)
import Glibc
#endif
import Testing
import TicTacAPI
@testable import TicTacApp
import TicTacNet
import TicTacTerminal
import TicTacWire

/// The control socket of `tictac daemon` (docs/control.md) on a real Unix socket and reactor,
/// without a daemon: the greeting, attach and its snapshot, the seat, replies to their client.
@Suite struct ControlServerTests {
    /// A client end read without blocking while the test turns the reactor.
    final class Client {
        let fd: Int32
        var pending: [UInt8] = []
        var lines: [String] = []

        init(_ path: String) throws {
            fd = try UnixSocket.connect(path)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }

        deinit { close(fd) }

        func send(_ line: String) {
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }

        /// Reads what came; false at the end of the connection.
        @discardableResult
        func read() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = Glibc.read(fd, &buffer, buffer.count)
                if n == 0 { return false }
                guard n > 0 else { return true }
                pending += buffer[0..<n]
                while let newline = pending.firstIndex(of: 10) {
                    lines.append(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
        }
    }

    struct Rig {
        let reactor: Reactor
        let server: ControlServer
        let dir: String

        /// Turns the reactor until `done` or a second has passed.
        func pump(_ clients: [Client], until done: () -> Bool) {
            for _ in 0..<100 where !done() {
                try? reactor.runOnce(maxWait: .milliseconds(10))
                for c in clients { c.read() }
            }
        }
    }

    func rig() throws -> Rig {
        var template = Array("/tmp/tictac-control-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        let dir = String(cString: try #require(made))
        let reactor = try Reactor()
        let server = try ControlServer(reactor: reactor, path: dir + "/control")
        server.snapshot = { [DaemonEvent.peerFound(PeerInfo(id: ID128(high: 1, low: 2), name: "ben"))] }
        server.show(DaemonEvent.ready(name: "ann", id: ID128(high: 3, low: 4), port: 50_000))
        return Rig(reactor: reactor, server: server, dir: dir)
    }

    @Test func aClientIsGreetedAttachesAndIsToldWhereThePlayerIs() throws {
        let rig = try rig()
        defer { rig.server.stop(); rmdir(rig.dir) }
        var info = stat()
        #expect(stat(rig.server.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let c = try Client(rig.server.path)
        rig.pump([c]) { !c.lines.isEmpty }
        #expect(c.lines == [#"{"event":"control","version":1,"program":"tictac"}"#])
        c.send("invite ben")
        rig.pump([c]) { c.lines.count > 1 }
        #expect(c.lines.last?.contains(#""code":"attach-first""#) == true, "\(c.lines)")
        c.send("attach json")
        rig.pump([c]) { c.lines.last?.contains("attached") == true }
        #expect(Array(c.lines.suffix(3)) == [
            #"{"event":"ready","name":"ann","id":"00000000000000030000000000000004","port":50000}"#,
            #"{"event":"peer-found","id":"00000000000000010000000000000002","name":"ben","addresses":[],"port":null,"state":"idle","via":[],"program":null}"#,
            #"{"event":"attached","seat":"yours"}"#,
        ])
    }

    @Test func oneClientHoldsTheSeatAndItPassesWhenItLeaves() throws {
        let rig = try rig()
        defer { rig.server.stop(); rmdir(rig.dir) }
        var commands: [Command] = []
        rig.server.onCommand = { commands.append($0) }
        var unattended = 0
        rig.server.onUnattended = { unattended += 1 }
        let a = try Client(rig.server.path), b = try Client(rig.server.path), watcher = try Client(rig.server.path)
        a.send("attach json")
        rig.pump([a]) { a.lines.last?.contains("attached") == true }
        b.send("attach text")
        watcher.send("attach json follow")
        rig.pump([b, watcher]) { b.lines.last?.hasPrefix("Attached") == true && watcher.lines.last?.contains("attached") == true }
        #expect(b.lines.last == "Attached: another front holds the seat; this one follows")
        #expect(watcher.lines.last == #"{"event":"attached","seat":"held"}"#)

        b.send("move 5")
        rig.pump([b]) { b.lines.last?.hasPrefix("Error") == true }
        #expect(b.lines.last?.contains("another front holds the seat") == true && commands.isEmpty)
        a.send("move 5")
        rig.pump([a]) { !commands.isEmpty }
        #expect(commands == [.move(5)])

        // A reply goes to its client; an event to every attached one.
        rig.server.onCommand = { [server = rig.server] _ in server.show(.error(code: "x", message: "only yours")) }
        a.send("resign")
        rig.server.show(.notice("for all"))
        rig.pump([a, b, watcher]) { b.lines.last?.contains("for all") == true && watcher.lines.last?.contains("for all") == true }
        #expect(a.lines.contains { $0.contains("only yours") } && !b.lines.contains { $0.contains("only yours") })

        // `quit` detaches a; the seat passes to b (a front), not to the watcher.
        a.send("quit")
        rig.pump([a, b]) { b.lines.last == "You hold the seat now: your commands act" }
        #expect(b.lines.last == "You hold the seat now: your commands act")
        #expect(!a.read() && rig.server.clientCount == 2 && unattended == 0)
        b.send("detach")
        rig.pump([b]) { unattended > 0 }
        #expect(unattended == 1, "nobody holds the seat now")
    }

    @Test func oneClientTooManyIsToldSoAndClosed() throws {
        let rig = try rig()
        defer { rig.server.stop(); rmdir(rig.dir) }
        var clients: [Client] = []
        for _ in 0..<ControlServer.maxClients { // each accepted before the next (the backlog holds 16)
            let c = try Client(rig.server.path)
            clients.append(c)
            rig.pump([c]) { !c.lines.isEmpty }
        }
        rig.pump(clients) { clients.allSatisfy { !$0.lines.isEmpty } }
        #expect(rig.server.clientCount == ControlServer.maxClients)
        let extra = try Client(rig.server.path)
        var open = true
        for _ in 0..<100 where open {
            try rig.reactor.runOnce(maxWait: .milliseconds(10))
            open = extra.read()
        }
        #expect(!open && extra.lines == [#"{"event":"error","code":"busy","message":"too many clients of this daemon"}"#])
        #expect(rig.server.clientCount == ControlServer.maxClients)
    }

    @Test func theSocketIsNamedByItsStateDirectory() {
        let env = ["XDG_RUNTIME_DIR": "/run/user/1000", "XDG_STATE_HOME": "/home/ann/.local/state"]
        #expect(ControlPath.socket(state: "/home/ann/.local/state/tictac", environment: env) == "/run/user/1000/tictac/control")
        let other = ControlPath.socket(state: "/srv/games/ann", environment: env)
        #expect(other == "/run/user/1000/tictac/control-" + ControlPath.hash("/srv/games/ann"))
        #expect(ControlPath.hash("/srv/games/ann").count == 16 && ControlPath.hash("a") != ControlPath.hash("b"))
        #expect(ControlPath.socket(state: "/srv/games/ann", environment: ["HOME": "/home/ann"]) == "/srv/games/ann/control")
        #expect(ControlPath.socket(state: nil, environment: env) == nil)
    }
}
