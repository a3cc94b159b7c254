#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import TicTacNet

/// Resolves `HOST:PORT` off the loop: getaddrinfo may wait seconds on a slow DNS server, and a
/// loop that waits answers no PING meanwhile (every peer would time out). Each lookup runs on a
/// thread of its own; its answer comes back on the reactor's thread through a pipe the reactor
/// watches, as the bot's searches do (BotWorker).
public final class HostResolver {
    public typealias Answer = Result<[SocketAddress], AddressError>
    /// The lookup itself, run off the loop (getaddrinfo through `SocketAddress.resolve` unless a
    /// test injects another).
    public typealias Lookup = @Sendable (String) -> Answer

    /// What the lookup threads and the reactor share: the answers, and the pipe (closed when the
    /// last lookup holding it has finished, so a late one never writes to a reused descriptor).
    private final class Shared: Sendable {
        let answers = Mutex<[(UInt64, Answer)]>([])
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

    public static let getaddrinfo: Lookup = { text in Result { () throws(AddressError) in try SocketAddress.resolve(text) } }

    private let reactor: Reactor
    private let lookup: Lookup
    private let shared: Shared
    private var waiting: [UInt64: (Answer) -> Void] = [:]
    private var nextID: UInt64 = 0

    public init(reactor: Reactor, lookup: @escaping Lookup = HostResolver.getaddrinfo) throws(NetError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw NetError.last("pipe") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        self.reactor = reactor
        self.lookup = lookup
        let shared = Shared(readFD: fds[0], writeFD: fds[1])
        self.shared = shared
        try reactor.register(shared.readFD, .read) { [weak self] _ in self?.deliver() }
    }

    deinit { reactor.unregister(shared.readFD) }

    /// Lookups not answered yet.
    public var pending: Int { waiting.count }

    /// Resolves `text` off the loop; `then` gets the answer on the reactor's thread.
    public func resolve(_ text: String, then: @escaping (Answer) -> Void) {
        nextID += 1
        let id = nextID
        waiting[id] = then
        let (shared, lookup) = (shared, lookup)
        DispatchQueue.global().async {
            let answer = lookup(text)
            shared.answers.withLock { $0.append((id, answer)) }
            var one: UInt8 = 1
            _ = write(shared.writeFD, &one, 1) // a full pipe already says "answers waiting"
        }
    }

    private func deliver() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(shared.readFD, &buffer, buffer.count) > 0 {}
        let done = shared.answers.withLock { a in
            defer { a.removeAll() }
            return a
        }
        for (id, answer) in done {
            waiting.removeValue(forKey: id)?(answer)
        }
    }
}
