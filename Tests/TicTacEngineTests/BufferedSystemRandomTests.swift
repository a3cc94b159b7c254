import Testing
import TicTacEngine

@Suite struct BufferedSystemRandomTests {
    /// Copies share the pool: a copy taken before a draw must not hand out the same words as the
    /// original (two nonces or commitment secrets would be equal).
    @Test func copiesNeverRepeatEachOther() {
        var a = BufferedSystemRandom()
        var b = a
        var seen = Set<UInt64>()
        for _ in 0..<200 { // past three refills of the 64-word pool
            #expect(seen.insert(a.next()).inserted)
            #expect(seen.insert(b.next()).inserted)
        }
    }

    /// Words across refills look random: no zeros (a drawn word is wiped, so a pool handed out
    /// twice would show them) and both bit values in every position.
    @Test func wordsAcrossRefillsAreRandom() {
        var r = BufferedSystemRandom()
        var ones: UInt64 = 0, zeros: UInt64 = 0
        for _ in 0..<1000 {
            let w = r.next()
            #expect(w != 0)
            ones |= w
            zeros |= ~w
        }
        #expect(ones == .max)
        #expect(zeros == .max)
    }

    /// Without a seed, the daemon's source gives buffered system generators that do not repeat.
    @Test func unseededSourceDoesNotRepeat() {
        let source = RandomSource()
        var g1 = source.makeGenerator(), g2 = source.makeGenerator()
        #expect(g1.next() != g2.next())
    }
}
