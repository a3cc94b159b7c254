#if canImport(Glibc)
import Glibc
#endif
import CTicTacNet
import TicTacNet
import TicTacPbrain

/// Limits on an engine process (`tictac bot --engine-memory`, `--engine-cpu`).
public struct EngineLimits: Sendable, Equatable {
    /// Address space, bytes (RLIMIT_AS; also told to the engine as INFO max_memory).
    public var memory: Int = 1 << 30
    /// CPU seconds for the process's whole life (RLIMIT_CPU): a process serves one match.
    public var cpuSeconds: Int = 3600
    /// What the engine is told it has per move (INFO timeout_turn, `--engine-think`).
    public var thinkMillis: Int = 5000
    /// Bytes of one line of its standard output at most; a longer one is a fault.
    public var maxLine = 4096
    /// Bytes it may write on its standard output between two `resetBudget()` calls (a turn).
    public var maxBytesPerTurn = 256 * 1024
    /// Bytes it may write on its standard error between two `resetBudget()` calls (the rest
    /// of what it writes there is read and dropped, but not without end).
    public var maxErrorBytesPerTurn = 1 << 20
    /// Bytes waiting to be written to its standard input at most (it does not read: a fault).
    public var maxPendingInput = 64 * 1024
    /// Lines of its standard error kept for the log (the last ones), each cut to 200 bytes.
    public var stderrLines = 8

    public init() {}
}

/// One engine process: `/bin/sh -c 'ulimit -v KB; ulimit -t S; exec CMD'` started with
/// posix_spawn (the shell sets the limits before the engine runs, so it never runs without
/// them, and then becomes the engine: the pid is the engine's), in a process group of its
/// own, its three standard streams nonblocking pipes read and written by the reactor. Its
/// exit is seen through a pidfd. `kill()` sends SIGKILL to the group and reaps it.
final class EngineProcess {
    let pid: pid_t
    private let reactor: Reactor
    private let limits: EngineLimits
    private var stdinFD: Int32, stdoutFD: Int32, stderrFD: Int32, pidFD: Int32
    private var pendingInput: [UInt8] = []
    private var partial: [UInt8] = []
    private var lastWasCR = false
    private var budget: Int
    private var errorBudget: Int
    private var stderrPartial: [UInt8] = []
    /// The last lines of its standard error.
    private(set) var stderrTail: [String] = []
    private var gone = false
    /// Reaped already (its pid may be reused: no signal goes to it any more).
    private var reaped = false

    /// Each line of its standard output (CR LF, LF or CR taken off).
    var onLine: (String) -> Void = { _ in }
    /// Once: it exited, closed its output, broke a limit, or could not be written to.
    var onEnd: (String) -> Void = { _ in }

    /// Starts `command` with `limits`.
    init(command: String, limits: EngineLimits, reactor: Reactor) throws(NetError) {
        self.reactor = reactor
        self.limits = limits
        budget = limits.maxBytesPerTurn
        errorBudget = limits.maxErrorBytesPerTurn
        var input: [Int32] = [-1, -1], output: [Int32] = [-1, -1], errors: [Int32] = [-1, -1]
        guard tictac_pipe_cloexec(&input) == 0 else { throw .last("pipe2") }
        guard tictac_pipe_cloexec(&output) == 0 else {
            let e = NetError.last("pipe2")
            input.forEach { _ = close($0) }
            throw e
        }
        guard tictac_pipe_cloexec(&errors) == 0 else {
            let e = NetError.last("pipe2")
            (input + output).forEach { _ = close($0) }
            throw e
        }
        let script = "ulimit -v \(max(1, limits.memory / 1024)); ulimit -t \(max(1, limits.cpuSeconds)); exec \(command)"
        var child: pid_t = 0
        let rc = tictac_spawn_shell(script, input[0], output[1], errors[1], &child)
        for fd in [input[0], output[1], errors[1]] { close(fd) } // the child's ends
        guard rc == 0 else {
            for fd in [input[1], output[0], errors[0]] { close(fd) }
            throw NetError("posix_spawn", errno: rc)
        }
        pid = child
        stdinFD = input[1]
        stdoutFD = output[0]
        stderrFD = errors[0]
        pidFD = tictac_pidfd_open(child) // -1 on an old kernel: the end is then seen as EOF
        for fd in [stdinFD, stdoutFD, stderrFD] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        // Below the daemon's priority, as the built-in bot's search thread: a busy engine does
        // not slow the loop, other games or the 3 x 3 bot (measured: docs/performance.md).
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(child), 10)
        do {
            try reactor.register(stdoutFD, .read) { [weak self] _ in self?.readOutput() }
            try reactor.register(stderrFD, .read) { [weak self] _ in self?.readErrors() }
            if pidFD >= 0 { try reactor.register(pidFD, .read) { [weak self] _ in self?.exited() } }
        } catch {
            kill()
            throw error
        }
    }

    /// Writes `text` to its standard input (queued while the pipe is full).
    func send(_ text: String) {
        guard !gone else { return }
        pendingInput.append(contentsOf: text.utf8)
        guard pendingInput.count <= limits.maxPendingInput else {
            return end("does not read its input (\(pendingInput.count) bytes waiting)")
        }
        flush()
    }

    /// A new turn: its output budget starts again.
    func resetBudget() {
        budget = limits.maxBytesPerTurn
        errorBudget = limits.maxErrorBytesPerTurn
    }

    /// SIGKILL to its process group and itself, descriptors closed; reaped now or, through the
    /// pidfd (or a timer without one), as soon as it is gone. No callback after this.
    func kill() {
        onLine = { _ in }
        onEnd = { _ in }
        gone = true
        if !reaped {
            _ = Glibc.kill(-pid, SIGKILL) // the group: anything the engine started
            _ = Glibc.kill(pid, SIGKILL)
        }
        for fd in [stdinFD, stdoutFD, stderrFD] where fd >= 0 {
            reactor.unregister(fd)
            close(fd)
        }
        stdinFD = -1
        stdoutFD = -1
        stderrFD = -1
        if reaped {
            if pidFD >= 0 {
                reactor.unregister(pidFD)
                close(pidFD)
            }
        } else {
            Self.reap(pid, pidFD: pidFD, reactor: reactor)
        }
        pidFD = -1
    }

    /// Waits for `pid` without blocking: on its pidfd's readiness, else retried on a timer.
    private static func reap(_ pid: pid_t, pidFD: Int32, reactor: Reactor, tries: Int = 0) {
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) != 0 || tries > 200 { // reaped (or not our child any more)
            if pidFD >= 0 {
                reactor.unregister(pidFD)
                close(pidFD)
            }
            return
        }
        if pidFD >= 0 {
            reactor.unregister(pidFD)
            do {
                try reactor.register(pidFD, .read) { _ in reap(pid, pidFD: pidFD, reactor: reactor, tries: tries + 1) }
                return
            } catch {}
        }
        _ = reactor.schedule(after: .milliseconds(10)) { reap(pid, pidFD: pidFD, reactor: reactor, tries: tries + 1) }
    }

    // MARK: - Pipes

    private func flush() {
        while !pendingInput.isEmpty, stdinFD >= 0 {
            let n = pendingInput.withUnsafeBytes { write(stdinFD, $0.baseAddress, $0.count) }
            if n > 0 {
                pendingInput.removeFirst(n)
                continue
            }
            if n < 0, errno == EINTR { continue }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                return registerWriter()
            }
            return end("its input closed (\(NetError.last("write")))")
        }
    }

    private var writerRegistered = false
    private func registerWriter() {
        guard !writerRegistered, stdinFD >= 0 else { return }
        writerRegistered = (try? reactor.register(stdinFD, .write) { [weak self] _ in
            guard let self else { return }
            flush()
            if pendingInput.isEmpty, stdinFD >= 0 {
                reactor.unregister(stdinFD)
                writerRegistered = false
            }
        }) != nil
    }

    /// Reads what is there, at most 64 KiB per readiness (the loop then serves others first).
    private func readOutput() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        for _ in 0..<4 {
            guard !gone, stdoutFD >= 0 else { return }
            let n = read(stdoutFD, &buffer, buffer.count)
            if n == 0 { return outputClosed() }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return }
                return end("reading its output: \(NetError.last("read"))")
            }
            budget -= n
            guard budget >= 0 else { return end("flooded its output (more than \(limits.maxBytesPerTurn) bytes in one turn)") }
            for byte in buffer[0..<n] {
                guard !gone else { return }
                take(byte)
            }
        }
    }

    /// Splits lines at CR LF, LF or CR (the protocol allows each).
    private func take(_ byte: UInt8) {
        if byte == 10, lastWasCR {
            lastWasCR = false
            return
        }
        lastWasCR = byte == 13
        if byte == 10 || byte == 13 {
            let line = String(decoding: partial, as: UTF8.self)
            partial.removeAll(keepingCapacity: true)
            return onLine(line)
        }
        partial.append(byte)
        if partial.count > limits.maxLine { end("wrote a line longer than \(limits.maxLine) bytes") }
    }

    private func readErrors() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {
            guard stderrFD >= 0 else { return }
            let n = read(stderrFD, &buffer, buffer.count)
            if n == 0 {
                reactor.unregister(stderrFD)
                close(stderrFD)
                stderrFD = -1
                return
            }
            if n < 0 { return } // EAGAIN (or an error: the end shows on its output)
            errorBudget -= n
            guard errorBudget >= 0 else {
                return end("flooded its standard error (more than \(limits.maxErrorBytesPerTurn) bytes in one turn)")
            }
            for byte in buffer[0..<n] {
                if byte == 10 {
                    keepErrorLine()
                } else if stderrPartial.count < 200 {
                    stderrPartial.append(byte)
                }
            }
        }
    }

    private func keepErrorLine() {
        stderrTail.append(PbrainLog.shown(String(decoding: stderrPartial, as: UTF8.self)))
        stderrPartial.removeAll(keepingCapacity: true)
        if stderrTail.count > limits.stderrLines { stderrTail.removeFirst() }
    }

    /// Its output closed: it has exited, or is about to. The exit status says more, so the end
    /// waits for the pidfd a moment (a process that closed its output and lives on is killed).
    private func outputClosed() {
        reactor.unregister(stdoutFD)
        close(stdoutFD)
        stdoutFD = -1
        guard pidFD >= 0 else { return end(exitReason(default: "closed its output")) }
        _ = reactor.schedule(after: .milliseconds(200)) { [weak self] in
            self?.end(self?.exitReason(default: "closed its output") ?? "")
        }
    }

    private func exited() {
        end(exitReason(default: "exited"))
    }

    /// How it ended, if it has: its exit status or signal (it is reaped then).
    private func exitReason(default text: String) -> String {
        var status: Int32 = 0
        guard !reaped, waitpid(pid, &status, WNOHANG) == pid else { return text }
        reaped = true
        let signal = status & 0x7f
        if signal == 0 { return "exited with status \((status >> 8) & 0xff)" }
        switch signal {
        case SIGXCPU: return "was killed by SIGXCPU (its CPU limit, \(limits.cpuSeconds) s)"
        case SIGKILL: return "was killed by SIGKILL"
        default: return "was killed by signal \(signal)"
        }
    }

    private func end(_ why: String) {
        guard !gone else { return }
        if !stderrPartial.isEmpty { keepErrorLine() }
        let callback = onEnd
        kill()
        callback(why)
    }
}

/// An engine's text as the log shows it.
enum PbrainLog {
    /// Printable characters, at most 200.
    static func shown(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.lazy.filter { $0.value >= 0x20 && $0.value != 0x7f }.prefix(200)))
    }
}
