#if canImport(Glibc)
import Glibc
#endif
import TicTacTerminal
import TicTacNet
import TicTacTime

/// Bytes to a terminal nobody may be reading (a frozen ssh session): writing never blocks the
/// reactor, as plain mode's LineWriter does for lines. What the terminal does not take waits,
/// written when epoll says it is writable. A drawing of the whole screen makes every drawing
/// queued before it and not yet started needless: they go, so the queue holds at most one
/// screen however long the terminal stays frozen. Mode changes (the alternate screen, the
/// cursor) are never dropped.
///
/// O_NONBLOCK belongs to the open file description, which the terminal shares with the shell:
/// so the terminal is opened again through /proc/self/fd (a description of our own); where
/// that fails the writes go to the descriptor as they are.
final class ScreenWriter {
    private struct Chunk {
        var bytes: [UInt8]
        /// Screen content (droppable once a whole screen follows), not a mode change.
        let drawing: Bool
    }

    private let out: Int32
    private let ownsOut: Bool
    private var reactor: Reactor?
    private var chunks: [Chunk] = []
    /// Bytes of `chunks[0]` already written: it is never dropped, so the terminal never sees
    /// half a sequence.
    private var headWritten = 0
    private var registered = false
    private var draining = false
    /// The terminal went away: later writes are dropped.
    private var broken = false

    init(fd: Int32) {
        var st = stat()
        if fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFCHR || st.st_mode & S_IFMT == S_IFIFO {
            let own = open("/proc/self/fd/\(fd)", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
            out = own >= 0 ? own : fd
            ownsOut = own >= 0
        } else {
            out = fd
            ownsOut = false
        }
    }

    deinit {
        unregister()
        if ownsOut { close(out) }
    }

    /// Something waits for the terminal to take it.
    var backedUp: Bool { !chunks.isEmpty }

    /// Lets the writer wait for writability on `reactor`.
    func attach(to reactor: Reactor) { self.reactor = reactor }

    /// No more waiting on the reactor (what is queued waits for the next write or `drain`).
    func detach() {
        unregister()
        reactor = nil
    }

    /// A mode change: it always goes, in order.
    func send(_ text: String) { enqueue(Array(text.utf8), drawing: false) }

    /// Screen content; `whole`: it draws the whole screen, so queued drawings not started go.
    func draw(_ text: String, whole: Bool) {
        if whole {
            let first = headWritten > 0 ? 1 : 0
            chunks = Array(chunks.prefix(first)) + chunks.dropFirst(first).filter { !$0.drawing }
        }
        enqueue(Array(text.utf8), drawing: true)
    }

    /// Writes what is queued, waiting at most `limit` for the terminal (on the way out, or
    /// before Ctrl-Z stops the process: a frozen terminal must not hold either up for ever).
    func drain(within limit: Duration) {
        draining = true
        defer { draining = false }
        unregister()
        let deadline = Reactor.now() + limit
        flush()
        while !broken, !chunks.isEmpty {
            let left = deadline.nanoseconds - Reactor.now().nanoseconds
            guard left > 0 else { break }
            var p = pollfd(fd: out, events: Int16(POLLOUT), revents: 0)
            guard poll(&p, 1, Int32(clamping: (left + 999_999) / 1_000_000)) > 0 else { break }
            flush()
        }
    }

    private func enqueue(_ bytes: [UInt8], drawing: Bool) {
        guard !broken, !bytes.isEmpty else { return }
        chunks.append(Chunk(bytes: bytes, drawing: drawing))
        flush()
    }

    private func flush() {
        while !broken, let head = chunks.first {
            let n = head.bytes.withUnsafeBytes { b in
                b.baseAddress.map { write(out, $0 + headWritten, b.count - headWritten) } ?? 0
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { return waitWritable() }
                broken = true // EIO: the terminal is gone; nothing more to do
                chunks = []
                headWritten = 0
                break
            }
            headWritten += n
            if headWritten == head.bytes.count {
                chunks.removeFirst()
                headWritten = 0
            }
        }
        unregister()
    }

    private func waitWritable() {
        guard !registered, !draining, let reactor else { return }
        do {
            try reactor.register(out, .write) { [weak self] _ in self?.flush() }
            registered = true
        } catch {
            // Cannot be polled: what is queued waits for the next write (one screen at most).
        }
    }

    private func unregister() {
        guard registered else { return }
        reactor?.unregister(out)
        registered = false
    }
}
