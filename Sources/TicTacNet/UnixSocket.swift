import CTicTacNet
#if canImport(Glibc)
import Glibc
#endif

/// Unix stream sockets for a daemon's control socket (docs/control.md): a path, a listener that
/// serves only its own user, and a blocking connect for the short-lived clients.
public enum UnixSocket {
    /// The longest path a `sockaddr_un` holds (its 108 bytes less the terminating zero).
    public static let maxPathBytes = 107

    /// Runs `body` with `path` as a socket address; nil when the path does not fit. A path that
    /// starts with `@` is in the abstract namespace (as systemd's NOTIFY_SOCKET may be).
    static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R? {
        var bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maxPathBytes, !bytes.contains(0) else { return nil }
        let abstract = bytes[0] == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// Connects to the socket at `path` (blocking, close-on-exec). ENOENT or ECONNREFUSED: no
    /// daemon serves it.
    public static func connect(_ path: String) throws(NetError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .last("socket") }
        let rc = withAddress(path) { Glibc.connect(fd, $0, $1) }
        guard let rc else {
            close(fd)
            throw NetError("connect \(path)", errno: ENAMETOOLONG)
        }
        guard rc == 0 else {
            let error = NetError.last("connect \(path)")
            close(fd)
            throw error
        }
        return fd
    }

    /// Tells the service manager how the service is (sd_notify(3): `READY=1`, `STOPPING=1`) on
    /// the datagram socket NOTIFY_SOCKET names; nothing when it is not set. Returns whether it
    /// went.
    @discardableResult
    public static func notifyServiceManager(_ state: String) -> Bool {
        guard let path = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }) else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(state.utf8)
        let sent = withAddress(path) { address, length in
            bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), address, length) }
        }
        return sent == bytes.count
    }

    /// The uid at the other end of a connected socket (SO_PEERCRED).
    public static func peerUID(_ fd: Int32) -> uid_t? {
        var uid: uid_t = 0
        return tictac_peer_uid(fd, &uid) == 0 ? uid : nil
    }
}

/// A listening Unix stream socket, mode 0600, that hands over only connections from our own
/// uid (SO_PEERCRED: the file mode alone does not hold against root or a directory made wider).
/// The path is unlinked first (the caller holds the lock that makes any socket there stale) and
/// again at `close`.
public final class UnixListener {
    public let path: String
    private let fd: Int32
    private let reactor: Reactor
    private let onAccept: (Int32) -> Void
    private var closed = false
    private let acceptPause = AcceptPause()
    /// Connections from another uid, closed unserved.
    public private(set) var refusedCount = 0
    /// Said once per refused connection (for the operator's log).
    public var onRefused: ((uid_t?) -> Void)?

    public init(reactor: Reactor, path: String, onAccept: @escaping (Int32) -> Void) throws(NetError) {
        self.reactor = reactor
        self.path = path
        self.onAccept = onAccept
        let fd = try Socket.make(AF_UNIX, Int32(SOCK_STREAM.rawValue))
        self.fd = fd
        do throws(NetError) {
            unlink(path)
            // Made with no permissions for anyone else before it can be connected to.
            let mask = umask(0o177)
            let rc = UnixSocket.withAddress(path) { Glibc.bind(fd, $0, $1) }
            umask(mask)
            guard let rc else { throw NetError("bind \(path)", errno: ENAMETOOLONG) }
            guard rc == 0 else { throw .last("bind \(path)") }
            guard chmod(path, 0o600) == 0 else { throw .last("chmod \(path)") }
            guard listen(fd, 16) == 0 else { throw .last("listen \(path)") }
            try reactor.register(fd, .read) { [weak self] _ in self?.acceptAll() }
        } catch {
            closed = true // deinit leaves alone what was never served
            Glibc.close(fd)
            throw error
        }
    }

    /// Stops serving and removes the socket file. Idempotent.
    public func close() {
        guard !closed else { return }
        closed = true
        reactor.unregister(fd)
        Glibc.close(fd)
        unlink(path)
    }

    deinit { close() }

    private func acceptAll() {
        while !closed {
            let client = tictac_accept(fd, nil, nil)
            if client < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: return pause()
                default: return // EAGAIN; anything else, the next readiness tries again
                }
            }
            let uid = UnixSocket.peerUID(client)
            guard uid == geteuid() else {
                refusedCount += 1
                onRefused?(uid)
                Glibc.close(client)
                continue
            }
            onAccept(client)
        }
    }

    private func pause() { acceptPause.pause(fd, on: reactor) { [weak self] in self?.closed ?? true } }
}
