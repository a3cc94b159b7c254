import CTicTacNet
#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket: dual-stack (one IPv6 socket that also accepts IPv4) when the host
/// has IPv6, else IPv4. Port 0 lets the kernel choose; `port` is the one actually bound (the one
/// to announce). Accepts until EAGAIN; when out of file descriptors it pauses for a moment
/// instead of spinning on a socket that stays readable.
public final class TCPListener {
    public let fd: Int32
    public let port: UInt16
    public let isDualStack: Bool
    /// Connections accepted.
    public private(set) var acceptedCount = 0
    private let reactor: Reactor
    private let onAccept: (Int32, SocketAddress) -> Void
    private let acceptPause = AcceptPause()
    /// An unexpected accept error (for the operator's log); the listener keeps going.
    public var onError: ((NetError) -> Void)?

    /// - Parameter onAccept: gets each accepted socket (nonblocking, close-on-exec) and its peer.
    public init(reactor: Reactor, port: UInt16 = 0, backlog: Int32 = 512,
                onAccept: @escaping (Int32, SocketAddress) -> Void) throws(NetError) {
        self.reactor = reactor
        self.onAccept = onAccept
        var fd: Int32
        var dual = true
        do {
            fd = try Socket.make(AF_INET6, Int32(SOCK_STREAM.rawValue))
        } catch where error.errno == EAFNOSUPPORT {
            fd = try Socket.make(AF_INET, Int32(SOCK_STREAM.rawValue))
            dual = false
        }
        do throws(NetError) {
            try Socket.set(fd, SOL_SOCKET, SO_REUSEADDR)
            if dual { try Socket.set(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 0) }
            let any = SocketAddress(ip: dual ? "::" : "0.0.0.0", port: port)
            if let any { try Socket.bind(fd, any) }
            guard listen(fd, backlog) == 0 else { throw NetError.last("listen") }
            self.port = try Socket.localAddress(fd).port
            self.fd = fd
            self.isDualStack = dual
            try reactor.register(fd, .read) { [weak self] _ in self?.acceptAll() }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Whether `close()` was called.
    public private(set) var isClosed = false

    /// Stops watching the socket and closes it. Idempotent: a second call does nothing (the fd
    /// number may already belong to another socket).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        reactor.unregister(fd)
        Glibc.close(fd)
    }

    deinit { close() }

    private func acceptAll() {
        while true {
            var storage = sockaddr_storage()
            var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { tictac_accept(fd, $0, &len) }
            }
            if client < 0 {
                switch errno {
                case EAGAIN, EWOULDBLOCK: return
                case EINTR, ECONNABORTED, EPROTO: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    onError?(.last("accept"))
                    // Out of descriptors or memory: the backlog stays readable, so stop watching
                    // it for a moment rather than spin.
                    pause()
                    return
                default:
                    // Not expected from accept: say so, and go on serving (the next readiness
                    // tries again).
                    onError?(.last("accept"))
                    return
                }
            }
            guard let remote = SocketAddress(storage: storage, length: len) else {
                Glibc.close(client)
                continue
            }
            acceptedCount += 1
            onAccept(client, remote)
        }
    }

    private func pause() { acceptPause.pause(fd, on: reactor) { [weak self] in self?.isClosed ?? true } }
}
