import CTicTacNet
#if canImport(Glibc)
import Glibc
#endif

/// A nonblocking UDP socket for discovery and the collaborative field. SO_REUSEADDR and
/// SO_REUSEPORT let several daemons on one host share a port; SO_BROADCAST allows sending to a
/// broadcast address. Every datagram comes with its source address; one larger than the
/// receive buffer is reported as truncated (MSG_TRUNC), never passed on cut short.
public final class UDPSocket {
    public struct Datagram: Sendable {
        public var bytes: [UInt8]
        public var source: SocketAddress
    }

    public let fd: Int32
    public let port: UInt16
    /// Datagrams dropped because they were larger than `maxDatagram`.
    public private(set) var truncatedCount = 0
    public let maxDatagram: Int
    private let reactor: Reactor
    private let onDatagram: (Datagram) -> Void

    /// Binds `address` (e.g. 0.0.0.0 and a port, or port 0 for any). `shared` false: no
    /// SO_REUSEPORT, so a port held by another socket is refused (EADDRINUSE) instead of shared.
    public init(reactor: Reactor, bind address: SocketAddress, maxDatagram: Int = 2048, shared: Bool = true,
                onDatagram: @escaping (Datagram) -> Void) throws(NetError) {
        self.reactor = reactor
        self.onDatagram = onDatagram
        self.maxDatagram = maxDatagram
        let fd = try Socket.make(address.domain, Int32(SOCK_DGRAM.rawValue))
        do throws(NetError) {
            try Socket.set(fd, SOL_SOCKET, SO_REUSEADDR)
            if shared { try Socket.set(fd, SOL_SOCKET, SO_REUSEPORT) }
            try Socket.set(fd, SOL_SOCKET, SO_BROADCAST)
            // An IPv6 socket takes IPv6 only: IPv4 has its own socket on the same port.
            if address.family == .v6 { try Socket.set(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY) }
            try Socket.bind(fd, address)
            port = try Socket.localAddress(fd).port
            self.fd = fd
            try reactor.register(fd, .read) { [weak self] _ in self?.receiveAll() }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Sends one datagram. Returns the error instead of throwing: a failed send (no route,
    /// network down) is an expected condition the caller reports, not a fault.
    @discardableResult
    public func send(_ bytes: [UInt8], to address: SocketAddress) -> NetError? {
        let n = bytes.withUnsafeBytes { b in
            address.withSockAddr { sendto(fd, b.baseAddress, b.count, Int32(MSG_NOSIGNAL), $0, $1) }
        }
        return n < 0 ? .last("sendto \(address)") : nil
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

    /// The receive buffer, kept between wake-ups (one allocation per socket, not per datagram).
    private lazy var buffer = [UInt8](repeating: 0, count: maxDatagram)

    private func receiveAll() {
        for _ in 0..<64 { // bounded per wake-up so one busy socket cannot starve the loop
            var storage = sockaddr_storage()
            var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let n = buffer.withUnsafeMutableBytes { b in
                withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fd, b.baseAddress, b.count, Int32(MSG_TRUNC), $0, &len)
                    }
                }
            }
            if n < 0 { return } // EAGAIN, or an error the next datagram will show again
            if n > maxDatagram {
                truncatedCount += 1
                continue
            }
            guard let source = SocketAddress(storage: storage, length: len) else { continue }
            onDatagram(Datagram(bytes: Array(buffer[0..<n]), source: source))
        }
    }
}
