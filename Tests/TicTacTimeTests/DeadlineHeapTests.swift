import Testing
import TicTacTime

/// A tiny deterministic generator (the heap module has no other dependency to borrow one from).
private struct LCG {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state >> 17
    }
}

@Suite struct DeadlineHeapTests {
    @Test func popsInDeadlineOrder() {
        var rng = LCG(seed: 3)
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
