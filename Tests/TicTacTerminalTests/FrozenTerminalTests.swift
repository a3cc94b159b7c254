import Foundation
import Glibc
import Synchronization
import Testing
import TicTacFieldCore
import TicTacNet
import TicTacTTY
import TicTacTerminal
import TicTacTime
import TicTacWire

/// A full screen on a terminal nobody reads (a frozen ssh session): the pty's buffer fills, and
/// the loop must go on (timers, PINGs) rather than wait in write().
@Suite(.serialized) struct FrozenTerminalTests {
    /// Runs `redraw` every 5 ms for 2 s on a reactor whose front draws on `pty`, nobody reading
    /// it; returns the ticks and the seconds the loop took. After 4 s a thread starts reading the
    /// pty, so a loop stuck in write() gets out (and the test fails instead of hanging).
    private func runFrozen(_ pty: Pty, start: (Reactor) throws -> Void, redraw: @escaping (Int) -> Void,
                           stop: () -> Void) throws -> (ticks: Int, seconds: Double) {
        let reactor = try Reactor()
        try start(reactor)
        let done = Atomic<Bool>(false)
        let master = pty.master
        let reader = Thread {
            usleep(4_000_000)
            var buffer = [UInt8](repeating: 0, count: 65536)
            while !done.load(ordering: .relaxed) {
                var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, 50) > 0 { _ = read(master, &buffer, buffer.count) }
            }
        }
        reader.start()
        defer { done.store(true, ordering: .relaxed) }
        var ticks = 0
        func tick() {
            ticks += 1
            redraw(ticks)
            reactor.schedule(after: .milliseconds(5)) { tick() }
        }
        tick()
        reactor.schedule(after: .seconds(2)) { reactor.stop() }
        let begin = Reactor.now()
        try reactor.run()
        let seconds = Double((Reactor.now().nanoseconds - begin.nanoseconds)) / 1e9
        stop()
        return (ticks, seconds)
    }

    @Test func theGameScreenNeverBlocksTheLoop() throws {
        let pty = try Pty(rows: 60, cols: 200)
        defer { close(pty.master); close(pty.slave) }
        let front = FullScreenFront(color: true, input: pty.slave, output: pty.slave)
        let (ticks, seconds) = try runFrozen(pty, start: { try front.start(reactor: $0) }, redraw: { n in
            front.show(.notice("a notice that changes the screen: \(n) " + String(repeating: "x", count: 150)))
        }, stop: { front.stop() })
        #expect(seconds < 3, "the loop ran \(seconds) s for 2 s of timers")
        #expect(ticks > 150, "\(ticks) ticks of 5 ms in 2 s")
    }

    @Test func theFieldScreenNeverBlocksTheLoop() throws {
        let pty = try Pty(rows: 60, cols: 200)
        defer { close(pty.master); close(pty.slave) }
        let front = FullScreenFieldFront(depth: .trueColor, input: pty.slave, output: pty.slave)
        let (ticks, seconds) = try runFrozen(pty, start: { try front.start(reactor: $0) }, redraw: { n in
            // Spheres all over the field: most rows change on every redraw.
            for i in 0..<40 {
                let sphere = FieldSphere(key: .peer(ID128(high: 1, low: UInt64(i))), name: "sphere \(i)",
                                         x: Int32((n * 37 + i * 101) % 1000), y: Int32(i * 25), color: RGB(UInt8(i * 6), 100, 200))
                front.show(.event(.changed(sphere)))
            }
        }, stop: { front.stop() })
        #expect(seconds < 3, "the loop ran \(seconds) s for 2 s of timers")
        #expect(ticks > 150, "\(ticks) ticks of 5 ms in 2 s")
    }
}
