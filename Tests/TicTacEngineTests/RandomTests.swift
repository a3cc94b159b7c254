import Testing
import TicTacEngine

@Suite struct RandomTests {
    /// Counts 1, 2, 3, ...: seeds xoshiro256** with the state (1, 2, 3, 4).
    private struct Counter: RandomNumberGenerator {
        var n: UInt64 = 0
        mutating func next() -> UInt64 { n += 1; return n }
    }

    /// The reference implementation's first outputs from the state (1, 2, 3, 4).
    @Test func xoshiroMatchesTheReference() {
        var seed = Counter()
        var g = Xoshiro256(seededFrom: &seed)
        #expect((0..<4).map { _ in g.next() } == [11520, 0, 1_509_978_240, 1_215_971_899_390_074_240])
    }
}
