import CTicTacNet
#if canImport(Glibc)
import Glibc
#endif

/// Small wrappers over setsockopt and friends, each throwing a NetError with errno.
enum Socket {
    static func make(_ domain: Int32, _ type: Int32) throws(NetError) -> Int32 {
        let fd = socket(domain, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .last("socket") }
        return fd
    }

    static func set(_ fd: Int32, _ level: Int32, _ option: Int32, _ value: Int32 = 1) throws(NetError) {
        var v = value
        guard setsockopt(fd, level, option, &v, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw .last("setsockopt(\(option))")
        }
    }

    static func bind(_ fd: Int32, _ address: SocketAddress) throws(NetError) {
        let rc = address.withSockAddr { Glibc.bind(fd, $0, $1) }
        guard rc == 0 else { throw .last("bind \(address)") }
    }

    /// The address the socket is bound to (to learn the port the kernel chose).
    static func localAddress(_ fd: Int32) throws(NetError) -> SocketAddress {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard rc == 0, let a = SocketAddress(storage: storage, length: len) else { throw .last("getsockname") }
        return a
    }

    /// The pending error of a socket (the result of a nonblocking connect).
    static func pendingError(_ fd: Int32) -> Int32 {
        var err: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 ? err : errno
    }

}

/// The process's descriptor limit.
public enum DescriptorLimit {
    /// Raises this process's soft limit on open descriptors to its hard limit (each link is a
    /// descriptor); returns the soft limit now in force.
    public static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
