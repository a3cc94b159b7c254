#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import TicTacNet
import TicTacDaemonCore
import TicTacDiscoveryCore

/// Runs the bot's searches (DaemonCore's `think` actions) on one thread of their own, so the
/// reactor keeps reading, answering PINGs and making 3 x 3 moves while a search runs; the
/// searches together use at most one core, at a lower priority (nice 10). Each answer is handed back on the reactor's thread:
/// the worker writes a byte to a pipe the reactor watches.
final class BotWorker {
    /// What the worker thread and the reactor share: the answers, and the pipe (closed when the
    /// last search holding it has finished, so a late search never writes to a reused fd).
    private final class Shared: Sendable {
        let results = Mutex<[BotSearchResult]>([])
        let readFD: Int32, writeFD: Int32
        init(readFD: Int32, writeFD: Int32) {
            self.readFD = readFD
            self.writeFD = writeFD
        }
        deinit {
            close(readFD)
            close(writeFD)
        }
    }

    private let reactor: Reactor
    private let shared: Shared
    private let queue = DispatchQueue(label: "tictac.bot-search") // serial: one search at a time

    /// - Parameter onResult: each finished search, on the reactor's thread.
    init(reactor: Reactor, onResult: @escaping (BotSearchResult) -> Void) throws(NetError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw NetError.last("pipe") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        self.reactor = reactor
        let shared = Shared(readFD: fds[0], writeFD: fds[1])
        self.shared = shared
        do {
            try reactor.register(shared.readFD, .read) { _ in
                var buffer = [UInt8](repeating: 0, count: 64)
                while read(shared.readFD, &buffer, buffer.count) > 0 {}
                let done = shared.results.withLock { r in
                    defer { r.removeAll() }
                    return r
                }
                for result in done { onResult(result) }
            }
        } catch {
            throw error // `shared` closes the pipe
        }
    }

    deinit { reactor.unregister(shared.readFD) }

    /// Queues `job`; its result reaches `onResult` on the reactor's thread.
    func submit(_ job: BotSearchJob) {
        let shared = shared
        queue.async {
            // Below the loop's priority: on a busy machine the scheduler gives the reactor's
            // thread (PINGs, 3 x 3 moves) the CPU first (on Linux the nice value is per thread).
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) // 0: the calling thread
            let result = job.run()
            shared.results.withLock { $0.append(result) }
            var one: UInt8 = 1
            _ = write(shared.writeFD, &one, 1) // a full pipe already says "results waiting"
        }
    }
}
