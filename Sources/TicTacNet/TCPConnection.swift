import CTicTacNet
#if canImport(Glibc)
import Glibc
#endif
import TicTacWire

/// Why a connection ended.
public enum CloseReason: Sendable, Equatable, CustomStringConvertible {
    /// We closed it.
    case local
    /// The peer closed its side (EOF).
    case peerClosed
    /// A read, write or connect failed.
    case ioError(NetError)
    /// The bytes were not our protocol; the owner was told through `onDecodeError` first.
    case protocolError(WireError)
    /// The peer stopped reading and our queue for it passed its bound.
    case writeQueueFull(Int)
    case connectTimeout

    public var description: String {
        switch self {
        case .local: "closed"
        case .peerClosed: "the peer closed the connection"
        case let .ioError(e): e.description
        case let .protocolError(e): e.description
        case let .writeQueueFull(n): "the peer stopped reading (\(n) bytes queued)"
        case .connectTimeout: "connection timed out"
        }
    }
}

/// A nonblocking TCP connection, owned by a Reactor: it moves bytes, and the decoder plugged
/// into it (`InboundDecoder`, by default Protocol.md §2's `FrameReader`) turns what it reads
/// into frames, delivered in order. `onRead` and `onWrite` see the raw bytes (a capture tap). Writes go through a bounded queue:
/// a partial write keeps the unsent tail and the socket is watched for writability until the
/// queue drains; a queue past `maxQueuedBytes` closes the connection (a peer that stops
/// reading never costs unbounded memory). `send` never writes after `close`.
public final class TCPConnection {
    /// Bytes allowed in the write queue before the connection is dropped.
    public static let defaultMaxQueuedBytes = 256 * 1024

    public let fd: Int32
    public let remote: SocketAddress
    public let isOutgoing: Bool
    public var onConnected: (() -> Void)?
    public var onFrame: ((Frame) -> Void)?
    /// Bad bytes: the owner may queue an ERROR frame; the connection then closes after flushing.
    public var onDecodeError: ((WireError) -> Void)?
    public var onClose: ((CloseReason) -> Void)?
    /// Every byte read from the socket, in order, before decoding (a tap: logs, captures).
    public var onRead: ((UnsafeBufferPointer<UInt8>) -> Void)?
    /// Every byte the socket took, in order (the tap's other direction).
    public var onWrite: ((UnsafeRawBufferPointer) -> Void)?
    public private(set) var isConnected: Bool
    public private(set) var isClosed = false
    /// Bytes received and sent, for logs and benchmarks.
    public private(set) var bytesIn = 0, bytesOut = 0

    private let reactor: Reactor
    private let maxQueuedBytes: Int
    private var decoder: any InboundDecoder
    private var queue: [UInt8] = []
    private var queueStart = 0
    private var closing = false
    private var connectTimer: Reactor.TimerID?

    /// Wraps an accepted, nonblocking socket.
    public init(reactor: Reactor, accepted fd: Int32, remote: SocketAddress,
                maxQueuedBytes: Int = TCPConnection.defaultMaxQueuedBytes,
                decoder: any InboundDecoder = FrameReader()) throws(NetError) {
        self.reactor = reactor
        self.decoder = decoder
        self.fd = fd
        self.remote = remote
        self.isOutgoing = false
        self.isConnected = true
        self.maxQueuedBytes = maxQueuedBytes
        try Socket.set(fd, Int32(IPPROTO_TCP), TCP_NODELAY)
        try reactor.register(fd, .read) { [unowned self] ready in handle(ready) }
    }

    /// Starts a nonblocking connect; `onConnected` or `onClose(.connectTimeout / .ioError)` follows.
    public init(reactor: Reactor, connectingTo remote: SocketAddress, timeout: Duration = .seconds(5),
                maxQueuedBytes: Int = TCPConnection.defaultMaxQueuedBytes,
                decoder: any InboundDecoder = FrameReader()) throws(NetError) {
        self.reactor = reactor
        self.decoder = decoder
        self.remote = remote
        self.isOutgoing = true
        self.isConnected = false
        self.maxQueuedBytes = maxQueuedBytes
        fd = try Socket.make(remote.domain, Int32(SOCK_STREAM.rawValue))
        do throws(NetError) {
            try Socket.set(fd, Int32(IPPROTO_TCP), TCP_NODELAY)
            let rc = remote.withSockAddr { Glibc.connect(fd, $0, $1) }
            if rc != 0, errno != EINPROGRESS { throw NetError.last("connect \(remote)") }
            try reactor.register(fd, .write) { [unowned self] ready in handle(ready) }
        } catch {
            Glibc.close(fd)
            throw error
        }
        connectTimer = reactor.schedule(after: timeout) { [unowned self] in
            connectTimer = nil
            if !isConnected { finish(.connectTimeout) }
        }
    }

    /// Received bytes held by the decoder (the leftovers of an incomplete frame).
    var bufferedInputBytes: Int { decoder.bufferedCount }

    /// Bytes waiting to be written.
    public var queuedBytes: Int { queue.count - queueStart }

    /// Queues a frame. Dropped silently once closing or closed.
    public func send(_ bytes: [UInt8]) {
        guard !isClosed, !closing else { return }
        queue.append(contentsOf: bytes)
        if queuedBytes > maxQueuedBytes {
            return finish(.writeQueueFull(queuedBytes))
        }
        if isConnected { flush() }
    }

    /// Flushes what is queued (e.g. an ERROR frame), then closes. Gives up after `linger`.
    public func closeAfterFlush(linger: Duration = .seconds(2)) {
        guard !isClosed, !closing else { return }
        closing = true
        if queuedBytes == 0 || !isConnected { return finish(.local) }
        flush()
        if !isClosed {
            reactor.schedule(after: linger) { [weak self] in self?.finish(.local) }
        }
    }

    /// Closes at once; `onClose(.local)` is called.
    public func close() { finish(.local) }

    // MARK: - Events

    private func handle(_ ready: Interest) {
        if !isConnected {
            let err = Socket.pendingError(fd)
            guard err == 0 else { return finish(.ioError(NetError("connect \(remote)", errno: err))) }
            isConnected = true
            if let t = connectTimer { reactor.cancel(t) }
            connectTimer = nil
            updateInterest()
            onConnected?()
            if !isClosed { flush() }
            return
        }
        if ready.contains(.write) { flush() }
        if !isClosed, ready.contains(.read) || ready.contains(.hangup) { readAvailable() }
    }

    private func readAvailable() {
        // A temporary (uninitialised, usually stack) buffer per read keeps the connection itself
        // small: between reads the decoder holds only the leftovers of an incomplete frame.
        var failure: WireError?
        let n = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16 * 1024) { buffer in
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            guard n > 0 else { return n }
            let bytes = UnsafeBufferPointer(rebasing: buffer[0..<n])
            bytesIn += n
            onRead?(bytes)
            // While closing, input is read and dropped: nothing more is decoded, and a drained
            // socket closes with FIN rather than a reset that could discard our last frame.
            // Frames are delivered in order; a handler may close us, so re-check each time.
            guard !isClosed, !closing else { return n }
            failure = decoder.decode(bytes) { [unowned self] frame in
                onFrame?(frame)
                return !isClosed && !closing
            }
            return n
        }
        if n < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            return finish(.ioError(.last("read")))
        }
        if n == 0 { return finish(.peerClosed) }
        if let failure, !isClosed, !closing {
            onDecodeError?(failure)
            if !closing { finish(.protocolError(failure)) }
        }
    }

    private func flush() {
        while queuedBytes > 0 {
            let n = queue.withUnsafeBytes { b in
                Glibc.send(fd, b.baseAddress! + queueStart, queuedBytes, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { break }
                return finish(.ioError(.last("send")))
            }
            if let onWrite { queue.withUnsafeBytes { onWrite(UnsafeRawBufferPointer(rebasing: $0[queueStart..<(queueStart + n)])) } }
            queueStart += n
            bytesOut += n
        }
        if queuedBytes == 0 {
            queue.removeAll(keepingCapacity: queue.count <= 4096)
            queueStart = 0
            if closing { return finish(.local) }
        } else if queueStart > queue.count / 2 {
            queue.removeFirst(queueStart)
            queueStart = 0
        }
        updateInterest()
    }

    private func updateInterest() {
        guard !isClosed, isConnected else { return }
        try? reactor.update(fd, queuedBytes > 0 ? [.read, .write] : .read)
    }

    private func finish(_ reason: CloseReason) {
        guard !isClosed else { return }
        isClosed = true
        if let t = connectTimer { reactor.cancel(t) }
        reactor.unregister(fd)
        Glibc.close(fd)
        queue = []
        onClose?(reason)
        onClose = nil
        onFrame = nil
        onDecodeError = nil
        onConnected = nil
        onRead = nil
        onWrite = nil
    }
}
