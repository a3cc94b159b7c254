extension Array {
    /// Empties the array and keeps its buffer, element by element from the end. On the hot path
    /// (the action buffers emptied a few times per frame, a handful of elements each) this costs
    /// less than `removeAll(keepingCapacity: true)`, whose generic range replacement and run-time
    /// destruction of the elements (through the type's metadata) cost a few hundred instructions
    /// a call: tools/bench/instructions.
    mutating func clearKeepingCapacity() {
        while popLast() != nil {}
    }
}
