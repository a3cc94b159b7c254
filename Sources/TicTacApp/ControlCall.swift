#if canImport(Glibc)
import Glibc
#endif
import TicTacNet

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
        guard let greeting = connection.readLine(), greeting.contains("\"event\":\"control\"") else {
            throw AppFailure(.unavailable, "\(path) does not answer as a tictac daemon")
        }
        guard greeting.contains("\"version\":\(ControlServer.version)") else {
            throw AppFailure(.unavailable, "the daemon at \(path) speaks another control version: \(greeting.prefix(80))")
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
        connection.send("attach \(json ? "json" : "text") follow")
        // The snapshot ends with the `attached` line.
        while let line = connection.readLine() {
            print(line)
            if line.hasPrefix("Attached:") || line.hasPrefix("{\"event\":\"attached\"") { break }
        }
        return 0
    }

    /// `tictac invite NAME`: the daemon sends the invitation; `tictac play` (or status) then.
    static func invite(_ setup: DaemonSetup, who: String, json: Bool) throws(AppFailure) -> Int32 {
        guard let connection = try open(setup) else { return notRunning(setup) }
        connection.send("attach \(json ? "json" : "text") follow")
        while let line = connection.readLine(), !line.hasPrefix("Attached:"), !line.hasPrefix("{\"event\":\"attached\"") {}
        connection.send("invite \(who)")
        connection.send("sync")
        var failed = false
        while let line = connection.readLine() {
            if line.hasPrefix("sync: ") || line.hasPrefix("{\"event\":\"sync\"") {
                failed = !line.hasPrefix("sync: 0 ") && !line.contains("\"errors\":0")
                break
            }
            if line.hasPrefix("Invitation sent") || line.hasPrefix("Error:") || line.hasPrefix("{\"event\":\"invite-sent\"")
                || line.hasPrefix("{\"event\":\"error\"") { print(line) }
        }
        return failed ? 1 : 0
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

    /// A blocking connection that reads by lines.
    final class Connection {
        let fd: Int32
        private var pending: [UInt8] = []

        init(fd: Int32) { self.fd = fd }
        deinit { close(fd) }

        func send(_ line: String) { ControlCall.writeAll(fd, ArraySlice(Array((line + "\n").utf8))) }

        /// The next line without its newline; nil at the end.
        func readLine() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                if let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    return line
                }
                let n = read(fd, &buffer, buffer.count)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return nil }
                pending += buffer[0..<n]
            }
        }
    }
}
