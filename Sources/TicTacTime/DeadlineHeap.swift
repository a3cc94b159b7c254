/// A binary min-heap of (deadline, value) pairs: the reactor's timers and the daemon's per-link
/// deadlines. Nothing is removed from the middle; owners skip stale entries as they come to the
/// top (lazy deletion), which keeps every operation O(log n). Inlinable, so each user's heap is
/// specialised for its value type (no cross-module optimisation flag is set).
public struct DeadlineHeap<Value> {
    @usableFromInline var items: [(at: Instant, value: Value)] = []

    @inlinable public init() {}

    @inlinable public var isEmpty: Bool { items.isEmpty }

    /// The earliest entry.
    @inlinable public var first: (at: Instant, value: Value)? { items.first }

    @inlinable public mutating func push(_ at: Instant, _ value: Value) {
        items.append((at, value))
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i].at < items[parent].at else { return }
            items.swapAt(i, parent)
            i = parent
        }
    }

    /// Removes and returns the earliest entry.
    @discardableResult
    @inlinable public mutating func popFirst() -> (at: Instant, value: Value)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < items.count, items[l].at < items[m].at { m = l }
            if r < items.count, items[r].at < items[m].at { m = r }
            if m == i { return top }
            items.swapAt(i, m)
            i = m
        }
    }
}
