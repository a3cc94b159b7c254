import Glibc
import Synchronization
import Testing
import TicTacAPI
import TicTacApp
import TicTacDaemon
import TicTacDaemonCore
import TicTacEngine
import TicTacNet
import TicTacTTY
import TicTacTerminal
import TicTacWire

/// A front that keeps what it is shown; the test types through `onCommand`.
final class RecordingFront: Front {
    var onCommand: ((Command) -> Void)?
    var shown: [DaemonEvent] = []
    var onShow: (DaemonEvent) -> Void = { _ in }
    func start(reactor: Reactor) throws(NetError) {}
    func show(_ event: DaemonEvent) {
        shown.append(event)
        onShow(event)
    }
    func stop() {}
}

/// `connect HOST:PORT` (plain mode, and the full-screen lobby's `a`) resolves the name off the
/// loop: a DNS server that takes seconds must not keep the loop from its timers and PINGs.
@Suite struct ResolveOffTheLoopTests {
    private func daemon(_ reactor: Reactor) throws -> Daemon {
        let config = DaemonConfig(name: try DisplayName("res"), makeRandom: { SplitMix64(seed: 7) })
        return try Daemon(reactor: reactor, config: config, port: 0)
    }

    @Test func aSlowNameLeavesTheLoopRunning() throws {
        let reactor = try Reactor()
        let loopThread = UInt(pthread_self())
        let lookupThread = Mutex<UInt?>(nil)
        let front = RecordingFront()
        let player = try NetworkPlayer(reactor: reactor, daemon: try daemon(reactor), front: front) { text in
            lookupThread.withLock { $0 = UInt(pthread_self()) }
            usleep(2_000_000) // a DNS server that takes 2 s
            return text == "slow.test:9" ? .success([SocketAddress(ip: "127.0.0.1", port: 9)].compactMap { $0 })
                                         : .failure(.unresolved("slow.test", "no such name"))
        }
        var ticks = 0
        func tick() {
            ticks += 1
            reactor.schedule(after: .milliseconds(20)) { tick() }
        }
        tick()
        var ticksAsked = 0, ticksAnswered: Int?
        front.onShow = { event in
            guard case let .notice(text) = event, text == "Connecting to slow.test:9" else { return }
            ticksAnswered = ticks
            reactor.schedule(after: .zero) { front.onCommand?(.quit) }
        }
        reactor.schedule(after: .milliseconds(10)) {
            ticksAsked = ticks
            front.onCommand?(.connect("slow.test:9"))
        }
        reactor.schedule(after: .seconds(8)) { front.onCommand?(.quit) } // the test's own bound
        try player.run(connectTo: [])
        let answered = try #require(ticksAnswered, "the answer never came back to the loop")
        // 2 s at a tick every 20 ms: about 100; a loop blocked in the lookup ticks not at all.
        #expect(answered - ticksAsked >= 40, "\(answered - ticksAsked) ticks while the name resolved")
        #expect(lookupThread.withLock { $0 } != loopThread, "the lookup ran on the loop's thread")
        #expect(player.exitStatus == 0)
    }

    @Test func aNameThatDoesNotResolveIsAnErrorOnTheLoop() throws {
        let reactor = try Reactor()
        let front = RecordingFront()
        let player = try NetworkPlayer(reactor: reactor, daemon: try daemon(reactor), front: front) { _ in
            .failure(.unresolved("nowhere.test", "no such name"))
        }
        front.onShow = { event in
            guard case let .error(code, _) = event, code == "bad-address" else { return }
            reactor.schedule(after: .zero) { front.onCommand?(.quit) }
        }
        reactor.schedule(after: .milliseconds(10)) { front.onCommand?(.connect("nowhere.test:9")) }
        reactor.schedule(after: .seconds(5)) { front.onCommand?(.quit) }
        try player.run(connectTo: [])
        let errors = front.shown.compactMap { if case let .error(code, message) = $0 { (code, message) } else { nil } }
        #expect(errors.map(\.0) == ["bad-address"])
        #expect(errors.first?.1.contains("nowhere.test") == true)
    }
}
