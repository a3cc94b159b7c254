import Testing
import TicTacTime

/// `Duration.wholeNanoseconds` (the fast path of `Instant + Duration`) against the plain 128-bit
/// division, on both sides of the fast path's bounds and on negative durations.
@Suite struct InstantTests {
    static let attoseconds: [Int128] = {
        var values: [Int128] = [0, 1, 511, 512, 999_999_999, 1_000_000_000, 1_000_000_001,
                                1_999_999_999_999, 5_000_000_000_000_000_000, 120_000_000_000_000_000_000,
                                130_000_000_000_000_000_000 + 999_999_999]
        let edge = Int128(1) << 72
        values += [edge - 1, edge, edge + 1, edge + 999_999_999, Int128(Int64.max) * 1_000_000_000 + 7]
        var x: UInt64 = 0x9e37_79b9_7f4a_7c15 // a fixed sequence of odd sizes (SplitMix64 steps)
        for _ in 0..<2000 {
            x &+= 0x9e37_79b9_7f4a_7c15
            var z = x
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            z ^= z >> 31
            values.append(Int128(z) << Int(z % 12)) // up to about 2^75 as
        }
        return values + values.map { -$0 }
    }()

    @Test func wholeNanosecondsMatchesDivision() {
        for atto in Self.attoseconds {
            let d = Duration(attoseconds: atto)
            #expect(d.wholeNanoseconds == Int64(truncatingIfNeeded: atto / 1_000_000_000), "\(atto) as")
        }
    }

    @Test func addingDurations() {
        let t = Instant(nanoseconds: 1_000)
        #expect(t + .seconds(120) == Instant(nanoseconds: 120_000_001_000))
        #expect(t + .milliseconds(1) == Instant(nanoseconds: 1_001_000))
        #expect(t + .nanoseconds(-2_000) == Instant(nanoseconds: -1_000))
        #expect(t + .zero == t)
        #expect(t + Duration(attoseconds: 999_999_999) == t) // below a nanosecond: toward zero
        #expect(t + Duration(attoseconds: -999_999_999) == t)
        #expect(t + .seconds(10_000) == Instant(nanoseconds: 10_000_000_001_000)) // past the fast path
    }
}
