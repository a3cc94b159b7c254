#if canImport(Glibc)
import Glibc
#endif
import TicTacTime

/// Lines out to a descriptor nobody may be reading (a front's standard output): writing never
/// blocks the reactor. The descriptor is made nonblocking; what the pipe does not take waits in
/// a queue of at most `maxBytes`, written when epoll says the descriptor is writable. Past the
/// bound the oldest lines that have not started are dropped, and one gap line (`gapLine(n)`, for
/// plain mode `{"event":"output-dropped","count":n}`) takes their place, so a reader that comes
/// back sees where output is missing. A line already partly written is always finished, so
/// the reader never sees half a line.
///
/// A regular file or /dev/null never says "would block" (and cannot be polled): lines go
/// straight through. A reader that closed its end (EPIPE) ends the writing: later lines are
/// dropped.
///
/// O_NONBLOCK belongs to the open file description, which a terminal's standard output shares
/// with standard input, standard error and the shell: set there, it would make their writes
/// fail with EAGAIN, and a SIGKILL would leave the shell's terminal nonblocking. So a pipe or a
/// terminal is opened again through /proc/self/fd (a description of our own, nonblocking);
/// only where that fails (a socket) are the shared flags changed, and given back at `drain`.
public final class LineWriter {
    /// Bytes queued at most before the oldest lines are dropped.
    public static let defaultMaxBytes = 256 * 1024

    public let fd: Int32
    /// What is written to: `fd`, or our own description of the same pipe or terminal.
    private var out: Int32
    private var ownsOut = false
    private let maxBytes: Int
    private let gapLine: (Int) -> String
    private var reactor: Reactor?
    /// Queued lines, `first` is the oldest not yet fully written; `headWritten` bytes of it went.
    private var lines: [[UInt8]] = []
    private var first = 0
    private var headWritten = 0
    /// Lines dropped since the last gap line was queued (they sat just after the head).
    private var dropped = 0
    private var registered = false
    private var broken = false
    private var originalFlags: Int32?
    /// Bytes waiting to be written.
    public private(set) var queuedBytes = 0
    /// Lines dropped in all, for tests and stats.
    public private(set) var droppedLines = 0

    /// - Parameters:
    ///   - fd: the descriptor (`STDOUT_FILENO`); its file status flags get O_NONBLOCK until
    ///     `drain(within:)` gives them back.
    ///   - gapLine: the line standing for `n` dropped lines (without the newline).
    public init(fd: Int32 = STDOUT_FILENO, maxBytes: Int = LineWriter.defaultMaxBytes,
                gapLine: @escaping (Int) -> String) {
        self.fd = fd
        out = fd
        self.maxBytes = maxBytes
        self.gapLine = gapLine
    }

    /// Lets the writer wait for writability on `reactor` (before this, a full pipe just keeps
    /// the lines queued until the next `write`).
    public func attach(to reactor: Reactor) {
        self.reactor = reactor
        flush()
    }

    /// Queues `line` (a newline is added) and writes what the descriptor takes now.
    public func write(_ line: String) {
        write(utf8: Array(line.utf8))
    }

    /// The same for a line already in UTF-8 (without its newline).
    public func write(utf8 line: [UInt8]) {
        guard !broken else { return }
        makeNonblocking()
        var bytes = line
        bytes.append(10)
        queuedBytes += bytes.count
        lines.append(bytes)
        if queuedBytes > maxBytes { dropOldest() }
        flush()
    }

    /// Writes what is queued, waiting at most `limit` for a slow reader, then gives the
    /// descriptor its flags back (a terminal shared with the shell stays as it was). Later
    /// writes make it nonblocking again.
    public func drain(within limit: Duration) {
        unregister()
        let deadline = Reactor.now() + limit
        flush()
        while !broken, queuedBytes > 0 {
            let left = deadline.nanoseconds - Reactor.now().nanoseconds
            guard left > 0 else { break }
            var p = pollfd(fd: out, events: Int16(POLLOUT), revents: 0)
            guard poll(&p, 1, Int32(clamping: (left + 999_999) / 1_000_000)) > 0 else { break }
            flush()
        }
        unregister()
        if let flags = originalFlags { _ = fcntl(fd, F_SETFL, flags) }
        originalFlags = nil
    }

    deinit {
        unregister()
        if ownsOut { _ = close(out) }
    }

    // MARK: - Private

    private func makeNonblocking() {
        guard !ownsOut, originalFlags == nil else { return }
        var st = stat()
        if fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFIFO || st.st_mode & S_IFMT == S_IFCHR {
            let own = open("/proc/self/fd/\(fd)", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
            if own >= 0 {
                out = own
                ownsOut = true
                return
            }
        }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0 else { return }
        originalFlags = flags
        if flags & O_NONBLOCK == 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Drops the oldest lines not yet started until the queue fits (the newest line stays even
    /// if it alone is larger), and counts them for the gap line.
    private func dropOldest() {
        // The head is kept while partly written; the gap line goes right after it.
        let start = headWritten > 0 ? first + 1 : first
        var i = start
        while queuedBytes > maxBytes, i < lines.count - 1 {
            queuedBytes -= lines[i].count
            dropped += 1
            droppedLines += 1
            i += 1
        }
        guard i > start else { return }
        lines.removeSubrange(start..<i)
    }

    private func flush() {
        while !broken {
            if headWritten == 0, dropped > 0 {
                // The dropped lines sat here: the gap line stands in for them. It joins the
                // queue only once it has started, so later drops never drop it (its count grows).
                let gap = Array((gapLine(dropped) + "\n").utf8)
                let n = gap.withUnsafeBytes { Glibc.write(out, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN { return waitWritable() }
                    broken = true
                    break
                }
                dropped = 0
                if n < gap.count {
                    queuedBytes += gap.count - n
                    headWritten = n
                    if first > 0 { first -= 1; lines[first] = gap } else { lines.insert(gap, at: 0) }
                }
                continue
            }
            guard first < lines.count else { break }
            let n = lines[first].withUnsafeBytes { b in
                Glibc.write(out, b.baseAddress! + headWritten, b.count - headWritten)
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { return waitWritable() }
                // EPIPE (SIGPIPE is ignored) or another fault: nobody will read these.
                broken = true
                break
            }
            headWritten += n
            queuedBytes -= n
            if headWritten == lines[first].count {
                lines[first] = []
                first += 1
                headWritten = 0
            }
        }
        if broken {
            headWritten = 0
            queuedBytes = 0
            dropped = 0
        }
        lines.removeAll(keepingCapacity: lines.count < 1024)
        first = 0
        unregister()
    }

    private func waitWritable() {
        if first > 64, first > lines.count / 2 { // keep the array from growing at its front
            lines.removeFirst(first)
            first = 0
        }
        guard !registered, let reactor else { return }
        do {
            try reactor.register(out, .write) { [weak self] _ in self?.flush() }
            registered = true
        } catch {
            // Cannot be polled: the queue waits for the next write (still bounded).
        }
    }

    private func unregister() {
        guard registered else { return }
        reactor?.unregister(out)
        registered = false
    }
}
