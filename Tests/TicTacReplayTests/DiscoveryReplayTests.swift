import Testing
import TicTacDiscoveryCore
import TicTacEngine
import TicTacReplay
import TicTacTime
import TicTacWire

/// The discovery fixture's datagrams fed to a listening DiscoveryCore at their captured times.
@Suite struct DiscoveryReplayTests {
    @Test func threeHostsAppearThenHost3SaysGoodbye() throws {
        let capture = try Fixtures.capture("discovery")
        let datagrams = capture.datagrams.filter { $0.destination.port == 51515 }
        #expect(datagrams.count >= 10)
        var rng = SplitMix64(seed: 7)
        let watcher = LocalPresence(id: ID128.random(using: &rng), name: try DisplayName("watcher"), port: 1, capabilities: [])
        var core = DiscoveryCore(local: watcher, random: rng)
        let t0 = try #require(datagrams.first?.time)
        func now(_ t: Int64) -> Instant { Instant(nanoseconds: t - t0 + 1_000_000_000) }
        var most = 0
        var goodbyes = 0
        for d in datagrams {
            while let due = core.pollTimeout(), due <= now(d.time) { core.handleTimeout(now: due) }
            if case .goodbye? = try? Message(datagram: d.payload) { goodbyes += 1 }
            core.handle(.datagram(d.payload, from: d.source.ip), now: now(d.time))
            most = max(most, core.peers.count)
            _ = core.pollActions()
        }
        #expect(core.counters.dropped == 0)
        #expect(goodbyes == 1)
        #expect(most == 3)
        // After host3's GOODBYE, only hosts 1 and 2, each at its own address and port.
        #expect(core.peers.map(\.name) == ["host1", "host2"])
        #expect(core.peers.map(\.addresses) == [["198.18.0.1"], ["198.18.0.2"]])
        #expect(core.peers.allSatisfy { $0.port > 0 })
    }
}
