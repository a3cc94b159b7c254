import Testing
import TicTacAPI
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// Our own loop stopped (Ctrl-Z, SIGSTOP) longer than the peer timeout: the peers' silence
/// meanwhile was ours. On waking every link is PINGed and gets one round before it is judged,
/// and a link lost anyway is said to be lost to the stop, never "no answer" from the peer.
@Suite struct StallTests {
    /// ann dialled ben; both ready at time zero; ben gives up on a silent peer after `benTimeout`.
    private func net(benTimeout: Duration = .seconds(5)) -> (CoreNet, LinkID) {
        var ben = config("ben", seed: 62)
        ben.deadAfter = benTimeout
        var n = CoreNet(config("ann", seed: 61), ben)
        let link = n.connect(dialler: 0)
        n.settle()
        return (n, link)
    }

    private func lost(_ events: [DaemonEvent]) -> [String] {
        events.compactMap { e in
            switch e {
            case let .peerLost(_, reason), let .disconnected(_, reason): reason
            case let .protocolError(_, _, message, _): message
            default: nil
            }
        }
    }

    /// ann is stopped 9 s; ben, patient (30 s), PINGs meanwhile. ann wakes: its timer is long
    /// past, yet the link is not judged before the PINGs waiting for it are read; it stays.
    @Test func aLinkOutlivesOurOwnStopWhenThePeerWaited() {
        var (n, _) = net(benTimeout: .seconds(30))
        for _ in 0..<9 { n.advance(by: .seconds(1), only: 1) } // only ben's timers run
        #expect(n.sent(1).contains { $0.kind == .ping })
        n.cores[0].handle(.stalled(.seconds(9)), now: n.now)
        n.advance(by: .zero, only: 0) // ann's overdue timer fires right after
        #expect(n.cores[0].linkCount == 1, "not judged on the silence of its own stop")
        #expect(n.sent(0).last?.kind == .ping, "a PING goes at once")
        n.settle() // ben's PINGs and ann's PING are read and answered
        n.advance(by: .seconds(1))
        n.advance(by: .seconds(1))
        #expect(n.cores[0].linkCount == 1 && n.cores[1].linkCount == 1)
        #expect(lost(n.events[0]).isEmpty && lost(n.events[1]).isEmpty, "\(n.events[0])")
    }

    /// ben gave up after 5 s and said so (ERROR timeout); ann reads it on waking: the link is
    /// lost, and ann's player is told it was lost to ann's own stop.
    @Test func aLinkLostToOurStopIsSaidSo() throws {
        var (n, link) = net()
        n.now = n.now + .seconds(9)
        var core = n.cores[0]
        core.handle(.stalled(.seconds(9)), now: n.now)
        let error = Message.error(code: ErrorCode.timeout.rawValue, message: "no answer for 5.0 seconds").encoded(version: 1)
        core.handle(.frame(link, try Frame.decodeDatagram(error)), now: n.now)
        core.handle(.linkClosed(link, reason: "the peer closed the connection"), now: n.now)
        let told = lost(core.pollActions().compactMap { if case let .event(e) = $0 { e } else { nil } })
        #expect(!told.isEmpty)
        #expect(told.allSatisfy { $0.hasPrefix("this program was stopped for 9.0 s") }, "\(told)")
        #expect(told.contains { $0.contains("no answer for 5.0 seconds") }, "what ben said is kept: \(told)")
    }

    /// A peer that died while we were stopped: one round after waking it is judged, and the
    /// reason names our stop.
    @Test func aPeerSilentAfterOurStopIsJudgedOneRoundLater() {
        var (n, _) = net()
        n.now = n.now + .seconds(9)
        n.cores[0].handle(.stalled(.seconds(9)), now: n.now)
        n.advance(by: .milliseconds(999), only: 0)
        #expect(n.cores[0].linkCount == 1, "not before one PING round")
        n.advance(by: .milliseconds(1), only: 0)
        #expect(n.cores[0].linkCount == 0)
        let told = lost(n.events[0])
        #expect(!told.isEmpty && told.allSatisfy { $0.hasPrefix("this program was stopped for 9.0 s") }, "\(told)")
    }
}
