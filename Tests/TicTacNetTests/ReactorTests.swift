import Glibc
import Testing
import TicTacTime
@testable import TicTacNet

@Suite struct ReactorTests {
    @Test func timersFireInDeadlineOrderAndCancelWorks() throws {
        let r = try Reactor()
        var fired: [Int] = []
        let base = r.now
        r.schedule(at: base + .milliseconds(30)) { fired.append(3) }
        r.schedule(at: base + .milliseconds(10)) { fired.append(1) }
        let cancelled = r.schedule(at: base + .milliseconds(20)) { fired.append(2) }
        r.schedule(at: base + .milliseconds(40)) { fired.append(4); r.stop() }
        r.cancel(cancelled)
        try r.run()
        #expect(fired == [1, 3, 4])
        #expect(r.now >= base + .milliseconds(40))
    }

    private func pipePair() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw NetError.last("pipe") }
        return (fds[0], fds[1])
    }

    @Test func readReadinessAndHangup() throws {
        let r = try Reactor()
        let p = try pipePair()
        defer { close(p.read) }
        var seen: [Interest] = []
        try r.register(p.read, .read) { ready in
            seen.append(ready)
            var b = [UInt8](repeating: 0, count: 16)
            let n = read(p.read, &b, 16)
            if n == 0 { r.unregister(p.read); r.stop() }
        }
        _ = write(p.write, "x", 1)
        try r.runOnce(maxWait: .milliseconds(100))
        #expect(seen == [.read])
        close(p.write)
        try r.run()
        #expect(seen.count == 2 && seen[1].contains(.hangup))
        #expect(r.registeredCount == 0)
    }

    @Test func registrationsAreFoundByDescriptorAndCounted() throws {
        let r = try Reactor()
        let pipes = try (0..<3).map { _ in try pipePair() }
        defer { pipes.forEach { close($0.read); close($0.write) } }
        var heard: [Int] = []
        for (i, p) in pipes.enumerated() {
            try r.register(p.read, .read) { _ in
                heard.append(i)
                var b = [UInt8](repeating: 0, count: 16)
                _ = read(p.read, &b, 16)
            }
        }
        #expect(r.registeredCount == 3)
        r.unregister(pipes[1].read)
        r.unregister(pipes[1].read) // twice: no change
        r.unregister(9_999) // never registered (beyond every slot): no change
        #expect(r.registeredCount == 2)
        for p in pipes { _ = write(p.write, "x", 1) }
        try r.runOnce(maxWait: .milliseconds(100))
        #expect(heard.sorted() == [0, 2])
        // A descriptor registered again (closed and reused by the kernel) gets the new handler.
        r.unregister(pipes[2].read)
        try r.register(pipes[2].read, .read) { _ in heard.append(20); r.unregister(pipes[2].read) }
        #expect(r.registeredCount == 2)
        _ = write(pipes[2].write, "y", 1)
        try r.runOnce(maxWait: .milliseconds(100))
        #expect(heard.last == 20)
        #expect(r.registeredCount == 1)
    }

    @Test func aCallbackThatUnregistersAnotherFdStopsItsPendingEvent() throws {
        let r = try Reactor()
        let a = try pipePair(), b = try pipePair()
        defer { [a.read, a.write, b.read, b.write].forEach { close($0) } }
        var calls = 0
        try r.register(a.read, .read) { _ in calls += 1; r.unregister(b.read) }
        try r.register(b.read, .read) { _ in calls += 1; r.unregister(a.read) }
        _ = write(a.write, "x", 1)
        _ = write(b.write, "x", 1)
        try r.runOnce(maxWait: .milliseconds(100))
        // Both were ready in one batch; whichever ran first removed the other.
        #expect(calls == 1)
    }

    @Test func aDeadlineTimerFollowsTheEarliestDeadlineAndFiresOnce() throws {
        let r = try Reactor()
        let t = DeadlineTimer(reactor: r)
        var fired: [Duration] = []
        let base = r.now
        t.onFire = { fired.append(r.now - base) }
        t.follow(base + .milliseconds(40))
        t.follow(base + .milliseconds(60)) // later: the 40 ms timer stays
        t.follow(base + .milliseconds(20)) // earlier: replaces it
        // Timers run in deadline order even when a stalled machine finds them all due at once,
        // so a probe at 30 ms tells the 20 ms timer from the 40 ms one without a time window.
        var firedBy30: Int?
        r.schedule(at: base + .milliseconds(30)) { firedBy30 = fired.count }
        r.schedule(at: base + .milliseconds(80)) { r.stop() }
        try r.run()
        #expect(firedBy30 == 1 && fired.count == 1 && fired[0] >= .milliseconds(20))
        t.follow(r.now + .milliseconds(10))
        t.follow(nil) // none: cancelled
        r.schedule(after: .milliseconds(30)) { r.stop() }
        try r.run()
        #expect(fired.count == 1)
    }

    @Test func everyReadyDescriptorIsServedBeforeTheTimersEvenBeyondOneBatch() throws {
        // More ready descriptors than one epoll batch holds (256) and a timer already due: the
        // timer runs after all of them, as a liveness deadline must not fire on a link whose
        // data is waiting unread.
        let r = try Reactor()
        var pipes: [(read: Int32, write: Int32)] = []
        defer { for p in pipes { close(p.read); close(p.write) } }
        var served = 0
        var servedWhenTimerFired: Int?
        for _ in 0..<300 {
            let p = try pipePair()
            pipes.append(p)
            try r.register(p.read, .read) { _ in
                var b = [UInt8](repeating: 0, count: 16)
                _ = read(p.read, &b, 16)
                served += 1
            }
            _ = write(p.write, "x", 1)
        }
        r.schedule(at: r.now) { servedWhenTimerFired = served }
        try r.runOnce(maxWait: .milliseconds(100))
        #expect(servedWhenTimerFired == 300)
    }

    @Test func idleLoopWaitsInsteadOfSpinning() throws {
        let r = try Reactor()
        let start = r.now
        var turns = 0
        while r.now < start + .milliseconds(50) {
            try r.runOnce(maxWait: .milliseconds(20))
            turns += 1
        }
        // Each idle turn blocks for its whole wait: a spinning loop would turn thousands of times.
        #expect(turns <= 5)
    }

    /// The process stopped inside a callback (Ctrl-Z's handler stops it there): the loop says
    /// how long it could not run before it fires the timers that came due meanwhile, so their
    /// owner can tell its own stall from its peers' silence.
    @Test func aStallIsToldBeforeTheTimersItMadeLate() throws {
        let r = try Reactor()
        let p = try pipePair()
        defer { close(p.read); close(p.write) }
        var told: [String] = []
        r.whenStalled { told.append("stalled \($0 >= .milliseconds(1400))") }
        r.schedule(after: .milliseconds(10)) { told.append("timer"); r.stop() }
        try r.register(p.read, .read) { _ in
            var b = [UInt8](repeating: 0, count: 16)
            _ = read(p.read, &b, 16)
            usleep(1_500_000) // as if stopped here
        }
        _ = write(p.write, "x", 1)
        try r.run()
        #expect(told == ["stalled true", "timer"])
    }
}
