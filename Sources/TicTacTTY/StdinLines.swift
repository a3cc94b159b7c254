#if canImport(Glibc)
import Glibc
#endif
import TicTacTerminal
import TicTacNet

/// Standard input (or a control socket's client) as bounded lines on the reactor. A regular file
/// or /dev/null cannot be polled (epoll says EPERM); it is always readable, so it is read on each
/// turn of the loop instead.
public final class StdinLines {
    private let reactor: Reactor
    private let fd: Int32
    private var reader = LineReader()
    private let onItem: (LineReader.Item) -> Void
    private let onEnd: () -> Void
    private var ended = false

    /// - Parameters:
    ///   - onItem: each line (or a too-long line) as it completes.
    ///   - onEnd: end of input.
    public init(reactor: Reactor, fd: Int32 = STDIN_FILENO, onItem: @escaping (LineReader.Item) -> Void, onEnd: @escaping () -> Void) throws(NetError) {
        self.reactor = reactor
        self.fd = fd
        self.onItem = onItem
        self.onEnd = onEnd
        do {
            try reactor.register(fd, .read) { [unowned self] _ in readOnce() }
        } catch where error.errno == EPERM {
            pollFile()
        }
    }

    /// Stops reading.
    public func stop() {
        ended = true
        reactor.unregister(fd)
    }

    private func pollFile() {
        reactor.schedule(after: .zero) { [weak self] in
            guard let self, !ended else { return }
            readOnce()
            if !ended { pollFile() }
        }
    }

    private func readOnce() {
        guard !ended else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0, errno == EINTR || errno == EAGAIN { return }
        let items = n > 0 ? reader.feed(buffer[0..<n]) : reader.finish()
        for item in items where !ended { onItem(item) }
        if n <= 0, !ended {
            stop()
            onEnd()
        }
    }
}
