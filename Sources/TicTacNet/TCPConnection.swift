import CTicTacNet
import TicTacTime
#if canImport(Glibc)
import Glibc
#endif

/// A nonblocking TCP connection, owned by a Reactor: it moves bytes, and the decoder plugged
/// into it (`InboundDecoder`) turns what it reads into messages, delivered in order. `onRead` and `onWrite` see the raw bytes (a capture tap).
/// Writes go through a bounded queue: a partial write keeps the unsent tail and the socket is
/// watched for writability until the queue drains; once a write would block, `send()` is not
/// called again until the socket says it is writable.
///
/// Backpressure (as SwiftNIO's channel writability): while more than `pauseReadingAbove` bytes
/// wait, the connection stops reading from the socket (frames already read are still
/// delivered), so a peer that does not read cannot make us queue answers to what it keeps
/// sending; reading resumes once the queue is below a quarter of that. A queue past
/// `maxQueuedBytes` closes the connection. A peer that neither reads nor is heard is then
/// dropped by the daemon's liveness timer.
///
/// Closing after a flush (an ERROR, a LEAVE) shuts down our sending side once the queue is
/// written, then reads and discards until the peer's EOF or the linger ends: closing a socket
/// with unread input would send a reset, which can discard our last frame at the peer.
///
/// `onClose` is called once, at the end of the reactor's turn (never from inside `send` or
/// `close`, so the owner is not re-entered while it is carrying out a batch of actions).
public final class TCPConnection<Decoder: InboundDecoder> {
    public let fd: Int32
    public let remote: SocketAddress
    public let isOutgoing: Bool
    // What other modules see is computed over private storage: a stored property they could
    // reach would be checked for exclusive access at run time on every use; private, the
    // compiler proves its accesses exclusive (docs/performance.md, "Exclusivity").
    public var onConnected: (() -> Void)? { get { handlers.connected } set { handlers.connected = newValue } }
    public var onMessage: ((Decoder.Message) -> Void)? { get { handlers.message } set { handlers.message = newValue } }
    /// Bad bytes: the owner may queue an answer (an ERROR frame); the connection then closes
    /// after flushing it.
    public var onDecodeError: ((Decoder.Failure) -> Void)? { get { handlers.decodeError } set { handlers.decodeError = newValue } }
    public var onClose: ((CloseReason) -> Void)? { get { handlers.close } set { handlers.close = newValue } }
    /// Every byte read from the socket, in order, before decoding (a tap: logs, captures).
    public var onRead: ((UnsafeBufferPointer<UInt8>) -> Void)? { get { handlers.read } set { handlers.read = newValue } }
    /// Every byte the socket took, in order (the tap's other direction).
    public var onWrite: ((UnsafeRawBufferPointer) -> Void)? { get { handlers.write } set { handlers.write = newValue } }
    private var handlers = Handlers<Decoder.Message, Decoder.Failure>()
    public var isConnected: Bool { connected }
    private var connected: Bool
    public var isClosed: Bool { closed }
    private var closed = false
    /// Bytes received and sent, for logs and benchmarks.
    public var bytesIn: Int { received }
    private var received = 0
    public var bytesOut: Int { sent.bytes }
    /// Reading is paused because too much waits to be written (backpressure).
    public var isReadingPaused: Bool { readingPaused }
    private var readingPaused = false
    /// How many times `send()` (the system call) ran, for tests: never on a socket known full.
    public var sendCalls: Int { sent.calls }
    /// Both counted in one value: a send updates it with one access (docs/performance.md).
    private var sent = SendCount()

    private let reactor: Reactor
    /// Bytes the write queue may hold; past it the connection closes (`writeQueueFull`). An owner
    /// may lower it on the way (a watcher's link, Protocol.md §14): checked at the next send.
    public var maxQueuedBytes: Int {
        get { queueLimit }
        set {
            queueLimit = newValue
            pauseReadingAbove = min(pauseReadingAbove, newValue)
        }
    }
    private var queueLimit: Int
    private var pauseReadingAbove: Int
    /// Our sending side is shut down; input is read and dropped until EOF (see the type's docs).
    private var draining = false
    private var decoder: Decoder
    private var queue: [UInt8] = []
    private var queueStart = 0
    private var closing = false
    private var connectTimer: Reactor.TimerID?
    /// The interest last given to the reactor: an unchanged one is not passed again (the
    /// reactor would look the descriptor up to find nothing to do, on every send).
    private var interest: Interest

    /// Wraps an accepted, nonblocking socket.
    public init(reactor: Reactor, accepted fd: Int32, remote: SocketAddress,
                maxQueuedBytes: Int = TCPLimits.defaultMaxQueuedBytes,
                pauseReadingAbove: Int = TCPLimits.defaultPauseReadingAbove,
                decoder: Decoder) throws(NetError) {
        self.reactor = reactor
        self.decoder = decoder
        self.fd = fd
        self.remote = remote
        self.isOutgoing = false
        self.connected = true
        self.interest = .read
        self.queueLimit = maxQueuedBytes
        self.pauseReadingAbove = min(pauseReadingAbove, maxQueuedBytes)
        do throws(NetError) {
            try Socket.set(fd, Int32(IPPROTO_TCP), TCP_NODELAY)
            try Socket.set(fd, SOL_SOCKET, SO_SNDBUF, TCPLimits.sendBufferBytes)
            // Unowned, not weak (no side table): finish() and deinit deregister before it goes.
            try reactor.register(fd, .read) { [unowned self] ready in handle(ready) }
        } catch {
            // The caller still owns `fd` and closes it; deinit (which runs for an initialised
            // object that throws) must not close it a second time.
            closed = true
            throw error
        }
    }

    /// Starts a nonblocking connect; `onConnected` or `onClose(.connectTimeout / .ioError)` follows.
    public init(reactor: Reactor, connectingTo remote: SocketAddress, timeout: Duration = .seconds(5),
                maxQueuedBytes: Int = TCPLimits.defaultMaxQueuedBytes,
                pauseReadingAbove: Int = TCPLimits.defaultPauseReadingAbove,
                decoder: Decoder) throws(NetError) {
        self.reactor = reactor
        self.decoder = decoder
        self.remote = remote
        self.isOutgoing = true
        self.connected = false
        self.interest = .write
        self.queueLimit = maxQueuedBytes
        self.pauseReadingAbove = min(pauseReadingAbove, maxQueuedBytes)
        fd = try Socket.make(remote.domain, Int32(SOCK_STREAM.rawValue))
        do throws(NetError) {
            try Socket.set(fd, Int32(IPPROTO_TCP), TCP_NODELAY)
            try Socket.set(fd, SOL_SOCKET, SO_SNDBUF, TCPLimits.sendBufferBytes)
            let rc = remote.withSockAddr { Glibc.connect(fd, $0, $1) }
            if rc != 0, errno != EINPROGRESS { throw NetError.last("connect \(remote)") }
            try reactor.register(fd, .write) { [unowned self] ready in handle(ready) }
        } catch {
            Glibc.close(fd)
            closed = true // deinit runs for an initialised object that throws: no second close
            throw error
        }
        connectTimer = reactor.schedule(after: timeout) { [unowned self] in
            connectTimer = nil
            if !isConnected { finish(.connectTimeout) }
        }
    }

    deinit {
        // Dropped without close(): release the descriptor, and tell no one (nobody is left).
        if !isClosed {
            reactor.unregister(fd)
            Glibc.close(fd)
        }
        if let t = connectTimer { reactor.cancel(t) }
    }

    /// Received bytes held by the decoder (the leftovers of an incomplete frame).
    var bufferedInputBytes: Int { decoder.bufferedCount }

    /// Bytes waiting to be written.
    public var queuedBytes: Int { queue.count - queueStart }

    /// Queues a frame. Dropped silently once closing or closed.
    public func send(_ bytes: [UInt8]) {
        guard !isClosed, !closing else { return }
        let wasEmpty = queuedBytes == 0
        if wasEmpty, isConnected, bytes.count <= maxQueuedBytes { return sendDirect(bytes) }
        enqueue(bytes[...])
        if queuedBytes > maxQueuedBytes {
            return finish(.writeQueueFull(queuedBytes))
        }
        guard isConnected else { return }
        // A queue that was not empty is waiting for the socket to be writable: calling send()
        // now would only fail with EAGAIN.
        if wasEmpty { flush() } else { updateInterest() }
    }

    /// `send` with nothing queued (the usual case): the bytes go straight to the socket and only
    /// what it does not take is queued, so a frame is not copied into the queue and out again.
    /// The same system calls, taps and counts as `flush`.
    private func sendDirect(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { b in
                Glibc.send(fd, b.baseAddress.map { $0 + sent }, b.count - sent, Int32(MSG_NOSIGNAL))
            }
            self.sent.add(n)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { break }
                return finish(.ioError(.last("send")))
            }
            if let onWrite { bytes.withUnsafeBytes { onWrite(UnsafeRawBufferPointer(rebasing: $0[sent..<(sent + n)])) } }
            sent += n
        }
        // All taken: the queue stays empty and the interest (read only) stays as it was.
        guard sent < bytes.count else { return }
        enqueue(bytes[sent...])
        updateInterest() // watch for writability until the rest is written
    }

    /// Flushes what is queued (e.g. an ERROR frame), shuts down our side, drains the peer's
    /// input, then closes. Gives up after `linger` in all.
    public func closeAfterFlush(linger: Duration = .seconds(2)) {
        guard !isClosed, !closing else { return }
        closing = true
        guard isConnected else { return finish(.local) }
        reactor.schedule(after: linger) { [weak self] in self?.finish(.local) }
        if queuedBytes > 0 { flush() } else { shutdownAndDrain() }
    }

    /// Closes at once; `onClose(.local)` follows at the end of the reactor's turn.
    public func close() { finish(.local) }

    // MARK: - Events

    private func handle(_ ready: Interest) {
        if !isConnected {
            let err = Socket.pendingError(fd)
            guard err == 0 else { return finish(.ioError(NetError("connect \(remote)", errno: err))) }
            connected = true
            if let t = connectTimer { reactor.cancel(t) }
            connectTimer = nil
            updateInterest()
            onConnected?()
            if !isClosed, queuedBytes > 0 { flush() }
            return
        }
        if ready.contains(.write) { flush() }
        if !isClosed, ready.contains(.read) || ready.contains(.hangup) { readAvailable() }
    }

    private func readAvailable() {
        // The loop's one read buffer keeps the connection itself small: between reads the
        // decoder holds only the leftovers of an incomplete frame.
        var decoded = true
        let n = reactor.withReadBuffer { buffer in
            // Input to decode, at most `maxReadPerTurn`; input dropped while closing, all of it.
            let limit = closing || draining ? buffer.count : min(buffer.count, TCPLimits.maxReadPerTurn)
            let n = Glibc.read(fd, buffer.baseAddress, limit)
            guard n > 0 else { return n }
            let bytes = UnsafeBufferPointer(rebasing: buffer.bindMemory(to: UInt8.self)[0..<n])
            received += n
            onRead?(bytes)
            // While closing, input is read and dropped: nothing more is decoded, and a drained
            // socket closes with FIN rather than a reset that could discard our last frame.
            // Frames are delivered in order; a handler may close us, so re-check each time.
            guard !isClosed, !closing else { return n }
            // Not escaping: `self` is held for the call (an unowned capture was checked per frame).
            decoded = decoder.decode(bytes) { message in
                onMessage?(message)
                return !isClosed && !closing
            }
            return n
        }
        if n < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            return finish(.ioError(.last("read")))
        }
        if n == 0 { return finish(draining ? .local : .peerClosed) }
        if !decoded { decodeFailed() }
    }

    /// Apart from `readAvailable`, which would otherwise look `Failure?`'s type up at every read.
    @inline(never)
    private func decodeFailed() {
        guard let failure = decoder.failure, !isClosed, !closing else { return }
        onDecodeError?(failure)
        if !closing { finish(.protocolError(String(describing: failure))) }
    }

    /// Appends to the write queue, taken out while it grows (`takeOut`).
    private func enqueue(_ bytes: ArraySlice<UInt8>) {
        var all = takeOut(&queue)
        all.append(contentsOf: bytes)
        queue = all
    }

    private func flush() {
        let (failure, drained) = writeQueued()
        if let failure { return finish(.ioError(failure)) }
        if drained, closing { return shutdownAndDrain() }
        updateInterest()
    }

    /// Writes what is queued until the socket takes no more. The queue is taken out meanwhile
    /// (`takeOut`): the loop calls only the socket and the tap, and neither reads it; it is put
    /// back before this returns, so no local copy is alive when the caller goes on.
    private func writeQueued() -> (failure: NetError?, drained: Bool) {
        var queue = takeOut(&self.queue)
        var start = queueStart
        var failure: NetError?
        while start < queue.count {
            let n = queue.withUnsafeBytes { b in
                Glibc.send(fd, b.baseAddress.map { $0 + start }, b.count - start, Int32(MSG_NOSIGNAL))
            }
            sent.add(n)
            if n < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN { failure = .last("send") }
                break
            }
            if let onWrite { queue.withUnsafeBytes { onWrite(UnsafeRawBufferPointer(rebasing: $0[start..<(start + n)])) } }
            start += n
        }
        let drained = start == queue.count
        if drained {
            queue.removeAll(keepingCapacity: queue.count <= 4096)
            start = 0
        } else if start > queue.count / 2 {
            queue.removeFirst(start)
            start = 0
        }
        (self.queue, queueStart) = (queue, start)
        return (failure, drained)
    }

    /// Everything is written: send FIN, and read until the peer's EOF (or the linger timer).
    private func shutdownAndDrain() {
        guard !isClosed else { return }
        draining = true
        Glibc.shutdown(fd, Int32(SHUT_WR))
        updateInterest()
    }

    private func updateInterest() {
        guard !isClosed, isConnected else { return }
        // Each stored property read once (every read of a class's property is checked for
        // exclusive access at run time; this runs on every send).
        let queued = queuedBytes, draining = draining
        var paused = readingPaused
        if draining {
            paused = false
        } else if queued > pauseReadingAbove {
            paused = true
        } else if queued <= pauseReadingAbove / 4 {
            paused = false
        }
        if paused != readingPaused { readingPaused = paused }
        var wanted: Interest = paused ? [] : .read
        if queued > 0, !draining { wanted.formUnion(.write) }
        guard wanted != interest else { return }
        do {
            try reactor.update(fd, wanted)
            interest = wanted
        } catch {
            // Without the right interest the queue would never drain, or input never arrive.
            finish(.ioError(error))
        }
    }

    private func finish(_ reason: CloseReason) {
        guard !isClosed else { return }
        closed = true
        if let t = connectTimer { reactor.cancel(t) }
        connectTimer = nil
        reactor.unregister(fd)
        Glibc.close(fd)
        queue = []
        let report = onClose
        handlers = Handlers<Decoder.Message, Decoder.Failure>()
        // After the batch: the owner may be in the middle of carrying out actions.
        if let report { reactor.afterBatch { report(reason) } }
    }
}

/// `send()` calls made and the bytes they took (a failed call takes none).
private struct SendCount {
    var calls = 0, bytes = 0
    mutating func add(_ n: Int) {
        calls += 1
        bytes += max(n, 0)
    }
}
