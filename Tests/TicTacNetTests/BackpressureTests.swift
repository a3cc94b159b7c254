import Glibc
import Testing
import TicTacTime
import TicTacWire
@testable import TicTacNet

/// Memory: a peer that keeps sending and never reads. The connection answers every
/// frame (as the daemon answers PING with PONG); once its answers back up, it stops reading,
/// so what it reads, and what it holds, stays small however long the peer keeps sending.
@Suite struct BackpressureTests {
    @Test func aPeerThatNeverReadsIsPausedAndStaysSmall() throws {
        let r = try Reactor()
        var server: TCPConnection<TestFrames>?
        let l = try TCPListener(reactor: r) { fd, remote in
            server = try? TCPConnection(reactor: r, accepted: fd, remote: remote, decoder: TestFrames())
            server?.onMessage = { [weak server] frame in server?.send(frame.bytes) } // an answer per frame
        }
        defer { l.close() }
        let to = try #require(SocketAddress(ip: "127.0.0.1", port: l.port))
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        var size: Int32 = 4096 // before connecting: a small window from the start
        setsockopt(client, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        #expect(to.withSockAddr { Glibc.connect(client, $0, $1) } == 0)
        var end = r.now + .seconds(2)
        while server == nil, r.now < end { try r.runOnce(maxWait: .milliseconds(20)) }
        let s = try #require(server)

        // Two seconds of PINGs as fast as the socket takes them; never a read.
        let ping = Message.ping(nonce: 7).encoded()
        let burst = [UInt8]((0..<500).flatMap { _ in ping })
        var offset = 0, readAtOneSecond = 0, maxQueued = 0
        let start = r.now
        end = start + .seconds(2)
        while r.now < end {
            let n = burst.withUnsafeBytes {
                Glibc.send(client, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if n > 0 { offset = (offset + n) % burst.count }
            try r.runOnce(maxWait: .milliseconds(1))
            maxQueued = max(maxQueued, s.queuedBytes)
            if readAtOneSecond == 0, r.now >= start + .seconds(1) { readAtOneSecond = s.bytesIn }
        }
        #expect(!s.isClosed, "paused, not dropped: the daemon's liveness limit does that")
        #expect(s.isReadingPaused)
        #expect(s.bytesIn == readAtOneSecond, "nothing more is read once paused")
        // Answers taken by the kernel (a small send buffer) plus our queue: well under a
        // megabyte (with the kernel's own sizing it took megabytes here).
        #expect(s.bytesIn < 512 * 1024, "read \(s.bytesIn) bytes")
        #expect(maxQueued <= TCPLimits.defaultMaxQueuedBytes)
        s.close()
    }

    /// A watcher's link (Protocol.md §14): frames are pushed to it with no input to pause, so
    /// the owner lowers its queue's bound and a watcher that does not read is dropped at it.
    @Test func aLoweredBoundDropsAReaderThatStopsReading() throws {
        let r = try Reactor()
        var server: TCPConnection<TestFrames>?
        var reason: CloseReason?
        let l = try TCPListener(reactor: r) { fd, remote in
            server = try? TCPConnection(reactor: r, accepted: fd, remote: remote, decoder: TestFrames())
            server?.onClose = { reason = $0 }
        }
        defer { l.close() }
        let to = try #require(SocketAddress(ip: "127.0.0.1", port: l.port))
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        var size: Int32 = 4096
        setsockopt(client, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        #expect(to.withSockAddr { Glibc.connect(client, $0, $1) } == 0)
        var end = r.now + .seconds(2)
        while server == nil, r.now < end { try r.runOnce(maxWait: .milliseconds(20)) }
        let s = try #require(server)
        s.maxQueuedBytes = 16 * 1024
        let frame = Message.watchMove(cell: 4, number: 1).encoded(version: 2)
        var pushed = 0
        end = r.now + .seconds(5)
        while reason == nil, r.now < end, pushed < 4 * 1024 * 1024 {
            s.send(frame)
            pushed += frame.count
            try r.runOnce(maxWait: .zero)
        }
        guard case let .writeQueueFull(queued) = reason else {
            Issue.record("not dropped for its queue: \(String(describing: reason))")
            return
        }
        #expect(queued <= 16 * 1024 + frame.count, "dropped at the lowered bound, not the default one")
        // What the kernel took (a small send buffer) and our queue: far from what was pushed at it.
        #expect(pushed < 512 * 1024, "pushed \(pushed) bytes before the drop")
    }
}
