#if canImport(Glibc)
import Glibc
#endif
import TicTacTime

/// One thread, one loop: every file descriptor and timer of a daemon is owned here (as Redis'
/// ae.c). Not thread-safe by design; everything runs on the thread that calls `run()`.
///
/// Registrations are indexed by fd with a generation number packed into epoll's user data, and
/// interest is re-checked before each callback: an earlier callback in the same batch may have
/// closed that fd, or closed it and opened another with the same number.
/// The epoll timeout comes from the nearest timer on the monotonic clock; EINTR is retried.
public final class Reactor {
    public typealias Handler = (Interest) -> Void
    /// Identifies a scheduled timer, for `cancel`.
    public struct TimerID: Hashable, Sendable { fileprivate let value: UInt64 }

    private struct Registration {
        var generation: UInt32
        var interest: Interest
        var handler: Handler
    }

    private let epoll: Epoll
    /// By descriptor number (the kernel hands out the lowest free one, so the array stays dense):
    /// a wake-up finds its handler without hashing.
    private var registrations: [Registration?] = []
    private var registered = 0
    private var nextGeneration: UInt32 = 1
    private var heap = DeadlineHeap<UInt64>()
    /// Timers by slot (a TimerID is its slot and the slot's generation): no hashing per timer.
    /// A slot is reused once its timer has fired or been cancelled, with the next generation,
    /// so a stale TimerID or heap entry never matches a newer timer.
    private var timers: [TimerSlot] = []
    private var freeSlots: [Int] = []

    private struct TimerSlot {
        var generation: UInt32 = 0
        var body: (() -> Void)?
    }
    private var stopped = false
    private var readyBatch: [(token: UInt64, ready: Interest)] = []
    /// Work deferred to the end of the current turn (`afterBatch`).
    private var deferred: [() -> Void] = []
    /// Told when the loop could not run for longer than `stallThreshold` (`whenStalled`).
    private var stallWatchers: [(Duration) -> Void] = []
    /// The last stall check, the threshold and whether anyone watches: one value, so a check
    /// costs one access (docs/performance.md).
    private var stall = StallCheck()
    /// A gap between turns past what was asked for, above this, is a stall (`whenStalled`).
    public var stallThreshold: Duration {
        get { .nanoseconds(stall.thresholdNs) }
        set { stall.thresholdNs = newValue.wholeNanoseconds }
    }

    /// One read buffer for every connection of the loop (reads never overlap on one thread),
    /// allocated once: a temporary of this size is not on the stack but a malloc per read.
    private var readBuffer: UnsafeMutableRawBufferPointer?
    private var readBufferInUse = false
    public static let readBufferSize = 16 * 1024

    public init() throws(NetError) {
        epoll = try Epoll()
    }

    deinit { readBuffer?.deallocate() }

    /// Runs `body` with the loop's read buffer (`readBufferSize` bytes, uninitialised). A call
    /// made from inside another's `body` (nothing does so today) gets a buffer of its own.
    public func withReadBuffer<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        if readBufferInUse {
            return try withUnsafeTemporaryAllocation(byteCount: Self.readBufferSize, alignment: 16, body)
        }
        let buffer = readBuffer ?? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readBufferSize, alignment: 16)
        readBuffer = buffer
        readBufferInUse = true
        defer { readBufferInUse = false }
        return try body(buffer)
    }

    /// The monotonic clock, as engine time.
    public static func now() -> Instant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    public var now: Instant { Self.now() }

    /// Number of registered file descriptors.
    public var registeredCount: Int { registered }

    // MARK: File descriptors

    /// Watches `fd` for `interest`; `handler` gets the readiness reported.
    public func register(_ fd: Int32, _ interest: Interest, handler: @escaping Handler) throws(NetError) {
        let generation = nextGeneration
        nextGeneration &+= 1
        try epoll.add(fd, interest, token: Self.token(fd, generation))
        setRegistration(Registration(generation: generation, interest: interest, handler: handler), of: fd)
    }

    /// Changes what `fd` is watched for (no-op if unchanged or unknown).
    public func update(_ fd: Int32, _ interest: Interest) throws(NetError) {
        guard var r = registration(of: fd), r.interest != interest else { return }
        try epoll.modify(fd, interest, token: Self.token(fd, r.generation))
        r.interest = interest
        setRegistration(r, of: fd)
    }

    /// Stops watching `fd`. Call before closing it.
    public func unregister(_ fd: Int32) {
        guard registration(of: fd) != nil else { return }
        setRegistration(nil, of: fd)
        epoll.remove(fd)
    }

    // The registrations, the timers and their heap are read through a copy or a short read and
    // changed while taken out (`takeOut`), never across a call: the compiler then proves every
    // access to them exclusive and checks none at run time (docs/performance.md, "Exclusivity").

    private func registration(of fd: Int32) -> Registration? {
        let all = registrations
        return fd >= 0 && Int(fd) < all.count ? all[Int(fd)] : nil
    }

    private func setRegistration(_ r: Registration?, of fd: Int32) {
        guard fd >= 0 else { return } // never a descriptor the kernel made
        var all = takeOut(&registrations)
        let i = Int(fd)
        if i >= all.count {
            guard r != nil else { return registrations = all }
            all.append(contentsOf: repeatElement(nil, count: i + 1 - all.count))
        }
        registered += (r == nil ? 0 : 1) - (all[i] == nil ? 0 : 1)
        all[i] = r
        registrations = all
    }

    private static func token(_ fd: Int32, _ generation: UInt32) -> UInt64 {
        UInt64(UInt32(bitPattern: fd)) | UInt64(generation) << 32
    }

    // MARK: Timers

    /// Calls `body` once at or after `deadline`.
    @discardableResult
    public func schedule(at deadline: Instant, _ body: @escaping () -> Void) -> TimerID {
        var free = takeOut(&freeSlots)
        var timers = takeOut(&self.timers)
        var heap = takeOut(&self.heap)
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
        } else {
            slot = timers.count
            timers.append(TimerSlot())
        }
        timers[slot].generation &+= 1
        timers[slot].body = body
        let id = UInt64(slot) | UInt64(timers[slot].generation) << 32
        heap.push(deadline, id)
        (freeSlots, self.timers, self.heap) = (free, timers, heap)
        return TimerID(value: id)
    }

    /// The slot of a timer that has neither fired nor been cancelled.
    private func liveSlot(_ id: UInt64) -> Int? {
        let slot = Int(truncatingIfNeeded: id & 0xFFFF_FFFF)
        guard slot < timers.count, timers[slot].generation == UInt32(truncatingIfNeeded: id >> 32),
              timers[slot].body != nil else { return nil }
        return slot
    }

    /// Takes a live timer's body out and frees its slot.
    private func take(_ id: UInt64) -> (() -> Void)? {
        guard let slot = liveSlot(id) else { return nil }
        var timers = takeOut(&self.timers)
        let body = timers[slot].body
        timers[slot].body = nil
        self.timers = timers
        var free = takeOut(&freeSlots)
        free.append(slot)
        freeSlots = free
        return body
    }

    @discardableResult
    public func schedule(after delay: Duration, _ body: @escaping () -> Void) -> TimerID {
        schedule(at: now + delay, body)
    }

    /// Cancels a timer that has not fired (no-op otherwise). Its heap entry is skipped later.
    public func cancel(_ timer: TimerID) {
        _ = take(timer.value)
    }

    /// Runs `body` at the end of this turn, after every ready descriptor and due timer has been
    /// served: a callback that must not re-enter its owner mid-batch (a connection's close,
    /// reported while the daemon is still carrying out its actions) goes here.
    public func afterBatch(_ body: @escaping () -> Void) {
        var all = takeOut(&deferred)
        all.append(body)
        deferred = all
    }

    // MARK: Stalls

    /// Calls `body` with how long the loop could not run when it wakes from a stall longer than
    /// `stallThreshold`: the process was stopped (SIGSTOP, Ctrl-Z) or starved, measured on the
    /// monotonic clock between turns, past the wait the loop asked for. It is called before any
    /// descriptor or timer of that turn is served, so a deadline that passed while nobody could
    /// answer is not judged before its owner hears of the stall.
    public func whenStalled(_ body: @escaping (Duration) -> Void) {
        stallWatchers.append(body)
        stall.watched = true
    }

    /// A stall check: the time since the last check beyond `allowedNs` (the wait asked for;
    /// -1: none) is reported when above the threshold. `allowedNs` is what the next check
    /// allows. Returns the clock as read (after the watchers, if they ran).
    @discardableResult
    private func checkStall(allowingNext allowedNs: Int64) -> Instant {
        let t = now
        guard let over = stall.step(to: t, allowingNext: allowedNs) else { return t }
        for watcher in stallWatchers { watcher(.nanoseconds(over)) }
        let after = now // their work is not a stall
        stall.checkpoint = (after, allowedNs)
        return after
    }

    // MARK: The loop

    /// Runs until `stop()`.
    public func run() throws(NetError) {
        stopped = false
        stall.checkpoint = nil
        while !stopped {
            try turn(maxWait: nil)
        }
    }

    /// Makes `run()` return after the current callback.
    public func stop() { stopped = true }

    /// One turn: wait for I/O until the nearest timer (at most `maxWait`), dispatch, fire timers.
    public func runOnce(maxWait: Duration? = nil) throws(NetError) {
        stall.checkpoint = nil // a caller turning the loop by hand may rightly stay away between turns
        try turn(maxWait: maxWait)
    }

    private func turn(maxWait: Duration?) throws(NetError) {
        var timeout: Int32 = -1
        if !deferred.isEmpty {
            timeout = 0 // work left from outside a turn (or by the last one): do not sleep
        } else if let next = nextDeadline() {
            let ns = max(0, next.nanoseconds - now.nanoseconds)
            timeout = Int32(clamping: (ns + 999_999) / 1_000_000) // round up: never wake early
        }
        if let maxWait {
            let ms = Int32(clamping: (maxWait.components.seconds * 1000) + maxWait.components.attoseconds / 1_000_000_000_000_000)
            timeout = timeout < 0 ? ms : min(timeout, ms)
        }
        runDeferred()
        checkStall(allowingNext: timeout < 0 ? -1 : Int64(timeout) * 1_000_000)
        var batch: [(token: UInt64, ready: Interest)] = []
        swap(&batch, &readyBatch) // reused between turns: no allocation per wake-up
        defer { batch.removeAll(keepingCapacity: true); swap(&batch, &readyBatch) }
        try epoll.poll(timeoutMs: timeout, into: &batch)
        checkStall(allowingNext: 0) // woken late (stopped while waiting): said before anything is served
        // A full batch may leave ready descriptors in the kernel: take them too (without
        // waiting) before the timers, so a deadline never fires on a link whose frames are
        // already here but not yet read (an overloaded daemon would drop live peers as silent).
        // Bounded: about one pass over every registration.
        var rounds = registered / epoll.capacity + 1
        while true {
            for (token, ready) in batch {
                let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: token))
                let generation = UInt32(truncatingIfNeeded: token >> 32)
                // A callback earlier in this batch may have closed or replaced the fd.
                guard let r = registration(of: fd), r.generation == generation, !stopped else { continue }
                let relevant = ready.intersection(r.interest.union(.hangup))
                if !relevant.isEmpty { r.handler(relevant) }
            }
            rounds -= 1
            guard batch.count == epoll.capacity, rounds > 0, !stopped else { break }
            batch.removeAll(keepingCapacity: true)
            try epoll.poll(timeoutMs: 0, into: &batch)
        }
        // Stopped inside a callback (Ctrl-Z's handler stops the process there): said before the timers.
        fireTimers(at: checkStall(allowingNext: 0))
        runDeferred()
    }

    private func runDeferred() {
        // What a deferred body defers runs in the same pass (bounded by what callers queue).
        while !deferred.isEmpty {
            var batch: [() -> Void] = []
            swap(&batch, &deferred)
            for body in batch { body() }
        }
    }

    private func nextDeadline() -> Instant? {
        var heap = takeOut(&self.heap) // liveSlot reads the timers only
        while let top = heap.first, liveSlot(top.value) == nil { heap.popFirst() } // cancelled
        self.heap = heap
        return heap.first?.at
    }

    private func fireTimers(at t: Instant) {
        while !stopped, let top = heap.first, top.at <= t {
            popFirstTimer()
            if let body = take(top.value) { body() }
        }
    }

    /// In a function of its own, so no local copy of the heap is alive while a timer's body runs:
    /// a body that schedules would then copy the whole heap (copy on write).
    private func popFirstTimer() {
        var heap = takeOut(&self.heap)
        heap.popFirst()
        self.heap = heap
    }
}

/// The loop's last stall check: the clock then and how long the loop could rightly stay away
/// from it, the threshold past which a gap is a stall, and whether anyone watches (`whenStalled`).
private struct StallCheck {
    var checkpoint: (at: Instant, allowedNs: Int64)?
    var thresholdNs: Int64 = 1_000_000_000
    var watched = false

    /// Moves the checkpoint to `t`; returns how far past what the last check allowed the loop
    /// came, when someone watches and that is over the threshold.
    mutating func step(to t: Instant, allowingNext allowedNs: Int64) -> Int64? {
        defer { checkpoint = (t, allowedNs) }
        guard watched, let c = checkpoint, c.allowedNs >= 0 else { return nil }
        let over = t.nanoseconds - c.at.nanoseconds - c.allowedNs
        return over > thresholdNs ? over : nil
    }
}
