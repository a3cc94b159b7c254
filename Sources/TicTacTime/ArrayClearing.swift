extension Array {
    /// Empties the array and keeps its buffer, popping from the end: cheaper than
    /// `removeAll(keepingCapacity:)` for the few-element action buffers emptied several times a
    /// frame (docs/performance.md).
    @inlinable
    public mutating func clearKeepingCapacity() {
        while popLast() != nil {}
    }
}
