import Testing
import TicTacEngine

@Suite struct DeadlineHeapTests {
    @Test func popsInDeadlineOrder() {
        var rng = SplitMix64(seed: 3)
        var heap = DeadlineHeap<Int>()
        var pushed: [Int64] = []
        for i in 0..<2000 {
            let t = Int64(rng.next() % 500) // many equal deadlines too
            pushed.append(t)
            heap.push(Instant(nanoseconds: t), i)
            if i % 3 == 0, let top = heap.popFirst() {
                // Whatever is left is never earlier than what came out.
                #expect(heap.first.map { $0.at >= top.at } ?? true)
                pushed.remove(at: pushed.firstIndex(of: top.at.nanoseconds) ?? 0)
            }
        }
        var out: [Int64] = []
        while let e = heap.popFirst() { out.append(e.at.nanoseconds) }
        #expect(out == pushed.sorted())
        #expect(heap.isEmpty && heap.popFirst() == nil)
    }
}
