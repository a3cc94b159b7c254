import Testing
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// Handshakes cost signatures and key agreements: one source address, or one network prefix, may
/// start only so many a second on links we accept; past that ERROR `busy` before any is made
/// (Protocol.md §5).
@Suite struct HandshakeBudgetTests {
    /// ann's ERROR `busy` frames so far.
    func busy(_ n: CoreNet) -> Int {
        n.sent(0).count { if case let .error(code, _) = $0 { code == ErrorCode.busy.rawValue } else { false } }
    }

    @Test func oneAddressGetsItsHandshakesASecondAndNoMore() {
        var ann = config("ann", seed: 70)
        ann.maxHandshakesPerAddressPerSecond = 3
        var n = CoreNet([ann] + (1...6).map { config("d\($0)", seed: 70 + UInt64($0)) }, sealed: false)
        for d in 1...4 {
            _ = n.connect(dialler: d, to: 0, address: "198.18.3.3")
            n.settle()
        }
        #expect(n.cores[0].linkCount == 3 && busy(n) == 1, "the fourth within the second is refused busy")
        // Another address is not held to it; the same one is again a second later.
        _ = n.connect(dialler: 5, to: 0, address: "198.18.3.4")
        n.settle()
        #expect(n.cores[0].linkCount == 4 && busy(n) == 1)
        n.advance(by: .seconds(1))
        _ = n.connect(dialler: 6, to: 0, address: "198.18.3.3")
        n.settle()
        #expect(n.cores[0].linkCount == 5 && busy(n) == 1)
    }

    @Test func oneNetworkPrefixIsHeldToItsShareToo() {
        var ann = config("ann", seed: 60)
        ann.maxHandshakesPerPrefixPerSecond = 4
        var n = CoreNet([ann] + (1...5).map { config("e\($0)", seed: 60 + UInt64($0)) }, sealed: false)
        for d in 1...5 {
            _ = n.connect(dialler: d, to: 0, address: "198.18.5.\(d)")
            n.settle()
        }
        #expect(n.cores[0].linkCount == 4 && busy(n) == 1)
    }
}
