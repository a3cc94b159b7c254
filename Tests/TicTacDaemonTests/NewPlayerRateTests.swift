import Testing
import TicTacTime
@testable import TicTacDaemonCore

/// New players per address and per prefix, per hour (Protocol.md §13, history shares).
@Suite struct NewPlayerRateTests {
    @Test func anAddressGetsItsHourAtOnceThenAnEvenRefill() {
        var rate = NewPlayerRate(perAddress: 3)
        let t0 = Instant.zero
        #expect((0..<3).allSatisfy { _ in rate.refusal("198.18.0.7", now: t0) == nil })
        #expect(rate.refusal("198.18.0.7", now: t0)?.contains("198.18.0.7") == true)
        #expect(rate.refusal("198.18.0.8", now: t0) == nil) // another address of the prefix
        #expect(rate.refusal("198.18.0.7", now: t0 + .seconds(1199)) != nil) // a third of an hour refills one
        #expect(rate.refusal("198.18.0.7", now: t0 + .seconds(1201)) == nil)
    }

    @Test func aPrefixGetsFourAddressesWorth() {
        var rate = NewPlayerRate(perAddress: 2)
        var played = 0
        for host in 1...6 { for _ in 0..<2 where rate.refusal("198.18.0.\(host)", now: .zero) == nil { played += 1 } }
        #expect(played == 8)
        #expect(rate.refusal("198.18.1.1", now: .zero) == nil) // another /24
    }

    @Test func zeroIsNoLimit() {
        var rate = NewPlayerRate(perAddress: 0)
        #expect((0..<1000).allSatisfy { _ in rate.refusal("198.18.0.7", now: .zero) == nil })
    }
}
