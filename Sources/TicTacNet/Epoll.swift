import CTicTacNet
#if canImport(Glibc)
import Glibc
#endif

/// Readiness a file descriptor is watched for or reported with.
public struct Interest: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let read = Interest(rawValue: 1)
    public static let write = Interest(rawValue: 2)
    /// Reported only: the peer hung up or the fd is in error. Handlers read to learn which.
    public static let hangup = Interest(rawValue: 4)
}

/// The epoll backend: five calls, as Redis' aeApi* (create, add, modify, delete, poll).
/// Each registration carries a 64-bit token the loop chooses (fd and generation).
struct Epoll: ~Copyable {
    private let fd: Int32
    /// epoll_wait's buffer, owned by this value alone (it cannot be copied), so `poll` changes
    /// nothing of the value and the loop holds it as a constant.
    private let events: UnsafeMutableBufferPointer<epoll_event>

    init(capacity: Int = 256) throws(NetError) {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw .last("epoll_create1") }
        self.fd = fd
        events = .allocate(capacity: max(1, capacity))
        events.initialize(repeating: epoll_event())
    }

    deinit {
        close(fd)
        events.deallocate()
    }

    /// The most events one `poll` returns.
    var capacity: Int { events.count }

    private static func mask(_ interest: Interest) -> UInt32 {
        var m: UInt32 = 0
        if interest.contains(.read) { m |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if interest.contains(.write) { m |= EPOLLOUT.rawValue }
        return m
    }

    private func control(_ op: Int32, _ target: Int32, _ interest: Interest, _ token: UInt64) throws(NetError) {
        var ev = epoll_event()
        ev.events = Self.mask(interest)
        ev.data.u64 = token
        guard epoll_ctl(fd, op, target, &ev) == 0 else { throw .last("epoll_ctl") }
    }

    func add(_ target: Int32, _ interest: Interest, token: UInt64) throws(NetError) {
        try control(EPOLL_CTL_ADD, target, interest, token)
    }

    func modify(_ target: Int32, _ interest: Interest, token: UInt64) throws(NetError) {
        try control(EPOLL_CTL_MOD, target, interest, token)
    }

    func remove(_ target: Int32) {
        var ev = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, target, &ev) // the fd may already be closed: nothing to do
    }

    /// Waits up to `timeoutMs` (-1 forever); appends the ready tokens to `batch`. EINTR adds none.
    /// The batch is returned, not dispatched, so handlers may change registrations freely.
    func poll(timeoutMs: Int32, into batch: inout [(token: UInt64, ready: Interest)]) throws(NetError) {
        let n = epoll_wait(fd, events.baseAddress, Int32(events.count), timeoutMs)
        if n < 0 {
            if errno == EINTR { return }
            throw .last("epoll_wait")
        }
        for i in 0..<Int(n) {
            let e = events[i]
            var ready: Interest = []
            if e.events & (EPOLLIN.rawValue | EPOLLPRI.rawValue) != 0 { ready.insert(.read) }
            if e.events & EPOLLOUT.rawValue != 0 { ready.insert(.write) }
            if e.events & (EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0 { ready.insert(.hangup) }
            batch.append((e.data.u64, ready))
        }
    }
}
