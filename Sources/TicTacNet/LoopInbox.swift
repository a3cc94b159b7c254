#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Values handed to the reactor's thread from other threads (a bot's search, a name lookup): a
/// locked queue, and a pipe the reactor watches, woken by one byte; each wake-up takes every
/// value waiting, in the order posted.
public final class LoopInbox<Value: Sendable> {
    /// What other threads hold to post. The pipe closes when the last holder is gone, so a late
    /// thread never writes to a descriptor the process has reused.
    public final class Sender: Sendable {
        fileprivate let values = Mutex<[Value]>([])
        fileprivate let readFD: Int32, writeFD: Int32

        fileprivate init(readFD: Int32, writeFD: Int32) {
            self.readFD = readFD
            self.writeFD = writeFD
        }

        deinit {
            close(readFD)
            close(writeFD)
        }

        /// Queues `value` for the reactor's thread; safe from any thread.
        public func post(_ value: Value) {
            values.withLock { $0.append(value) }
            var one: UInt8 = 1
            _ = write(writeFD, &one, 1) // a full pipe already says "values waiting"
        }
    }

    public let sender: Sender
    private let reactor: Reactor

    /// `deliver` gets each value posted, on the reactor's thread.
    public init(reactor: Reactor, deliver: @escaping (Value) -> Void) throws(NetError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw NetError.last("pipe") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        self.reactor = reactor
        let sender = Sender(readFD: fds[0], writeFD: fds[1])
        self.sender = sender
        try reactor.register(sender.readFD, .read) { _ in
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(sender.readFD, &buffer, buffer.count) > 0 {}
            let waiting = sender.values.withLock { v in
                defer { v.removeAll() }
                return v
            }
            for value in waiting { deliver(value) }
        }
    }

    deinit { reactor.unregister(sender.readFD) }
}
