#if canImport(Glibc)
import Glibc
#endif
import TicTacJSON
import TicTacNet
import TicTacTerminal

/// The short-lived clients of a running `tictac daemon` (docs/control.md): a plain front that
/// relays lines both ways, `status`, `invite`, and `--stop`. Blocking I/O: each is its own
/// process with nothing else to serve.
enum ControlCall {
    /// Connects to the daemon of `setup`'s state directory and checks its greeting; nil when
    /// none runs there.
    static func open(_ setup: DaemonSetup) throws(AppFailure) -> Connection? {
        guard let path = setup.controlSocket else { return nil }
        SignalSource.ignoreBrokenPipe() // a daemon that went away is an error to say, not a SIGPIPE
        let fd: Int32
        do throws(NetError) { fd = try UnixSocket.connect(path) } catch {
            if error.errno == ENOENT || error.errno == ECONNREFUSED { return nil }
            throw AppFailure(.unavailable, "cannot reach the daemon at \(path): \(error)")
        }
        // A daemon that stopped answering must not hold a status or an invite forever.
        var wait = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let connection = Connection(fd: fd)
        guard let line = connection.readLine(), let greeting = JSON.parse(line), greeting["event"]?.string == "control" else {
            throw AppFailure(.unavailable, "\(path) does not answer as a tictac daemon")
        }
        guard greeting["version"]?.int == ControlServer.version else {
            throw AppFailure(.unavailable, "the daemon at \(path) speaks another control version: \(line.prefix(80))")
        }
        return connection
    }

    /// `tictac play --plain` with a daemon running: standard input to it, its lines to standard
    /// output, until either side ends.
    static func relay(_ connection: Connection, json: Bool) throws(AppFailure) -> Int32 {
        connection.send("attach \(json ? "json" : "text")")
        var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            for i in fds.indices { fds[i].revents = 0 }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                guard errno == EINTR else { throw AppFailure(.osErr, "poll failed") }
                continue
            }
            if fds[1].revents != 0 {
                let n = read(connection.fd, &buffer, buffer.count)
                if n <= 0 { return 0 } // the daemon closed: it stopped, or we detached
                writeAll(STDOUT_FILENO, buffer[0..<n])
            }
            if fds[0].revents != 0 {
                let n = read(STDIN_FILENO, &buffer, buffer.count)
                if n <= 0 {
                    shutdown(connection.fd, Int32(SHUT_WR)) // the daemon detaches us and closes
                    fds[0].fd = -1
                } else {
                    writeAll(connection.fd, buffer[0..<n])
                }
            }
        }
    }

    /// `tictac status`: where the player is, as a front attaching would be told it.
    static func status(_ setup: DaemonSetup, json: Bool) throws(AppFailure) -> Int32 {
        guard let connection = try open(setup) else { return notRunning(setup) }
        var out = Printer(json: json)
        connection.send("attach json follow")
        while let (line, value) = connection.readEvent() {
            if value["event"]?.string == "attached" { break } // the snapshot's end (docs/control.md)
            out.print(line, value)
        }
        return 0
    }

    /// `tictac invite NAME`: the daemon sends the invitation; `tictac play` (or status) then.
    /// Exit 1 when the daemon answered with an error (the `sync` after it counts them).
    static func invite(_ setup: DaemonSetup, who: String, json: Bool) throws(AppFailure) -> Int32 {
        guard let connection = try open(setup) else { return notRunning(setup) }
        var out = Printer(json: json)
        connection.send("attach json follow")
        while let (_, value) = connection.readEvent(), value["event"]?.string != "attached" {}
        connection.send("invite \(who)")
        connection.send("sync")
        while let (line, value) = connection.readEvent() {
            switch value["event"]?.string {
            case "sync": return value["errors"]?.int == 0 ? 0 : 1
            case "invite-sent", "error": out.print(line, value)
            default: break
            }
        }
        return 1 // the daemon went away before answering
    }

    /// Events as the user asked for them: the daemon's JSON lines as they are, or plain mode's
    /// text, read back and worded by the formatter plain mode uses.
    struct Printer {
        let json: Bool
        private var reader = JSONEventReader()
        private var text = OutputFormatter(style: .text)

        init(json: Bool) { self.json = json }

        mutating func print(_ line: String, _ value: JSON) {
            if json { return Swift.print(line) }
            guard let event = reader.event(from: value) else { return }
            text.note(event)
            for l in text.lines(for: event) { Swift.print(l) }
        }
    }

    /// `tictac daemon --stop`: asks the daemon to leave the LAN and waits until its process is
    /// gone (the state directory's lock is free), at most 10 seconds.
    static func stop(_ setup: DaemonSetup) throws(AppFailure) -> Int32 {
        guard let connection = try open(setup) else { return notRunning(setup) }
        connection.send("stop")
        while connection.readLine() != nil {}
        guard let state = setup.statePath() else { return 0 }
        let lock = Glibc.open(state + "/lock", O_RDONLY | O_CLOEXEC)
        guard lock >= 0 else { return 0 }
        defer { close(lock) }
        for _ in 0..<200 {
            if flock(lock, LOCK_SH | LOCK_NB) == 0 { return 0 }
            usleep(50_000)
        }
        throw AppFailure(.unavailable, "the daemon was asked to stop but still holds \(state) after 10 seconds")
    }

    private static func notRunning(_ setup: DaemonSetup) -> Int32 {
        let state = setup.statePath() ?? "this state directory"
        var why = "(tictac daemon starts one)"
        let lock = Glibc.open(state + "/lock", O_RDONLY | O_CLOEXEC)
        if lock >= 0 {
            // Held: a tictac play or bot runs its daemon in-process, with no control socket.
            if flock(lock, LOCK_SH | LOCK_NB) != 0, errno == EWOULDBLOCK { why = "(a tictac play holds it, and serves no control socket)" }
            close(lock)
        }
        let line = "tictac: no tictac daemon runs for \(state) \(why)\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        return 69
    }

    static func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) {
        var rest = bytes
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            rest = rest.dropFirst(n)
        }
    }

    /// A blocking connection that reads by lines, bounded (LineReader).
    final class Connection {
        let fd: Int32
        private var reader = LineReader(maxBytes: 1 << 20) // a `peers` line lists a whole lobby
        private var lines: [String] = []

        init(fd: Int32) { self.fd = fd }
        deinit { close(fd) }

        func send(_ line: String) { ControlCall.writeAll(fd, ArraySlice(Array((line + "\n").utf8))) }

        /// The next line without its newline; nil at the end (a line past the bound is skipped).
        func readLine() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while lines.isEmpty {
                let n = read(fd, &buffer, buffer.count)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return nil }
                for case let .line(text) in reader.feed(buffer[0..<n]) { lines.append(text) }
            }
            return lines.removeFirst()
        }

        /// The next line that is a JSON object, with its value; nil at the end.
        func readEvent() -> (String, JSON)? {
            while let line = readLine() {
                if let value = JSON.parse(line) { return (line, value) }
            }
            return nil
        }
    }
}
