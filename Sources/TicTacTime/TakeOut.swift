// Taking a class's collection out (leaving an empty one), changing the local and putting it
// back makes no access to the property span the change's calls: the compiler can then prove
// every access to it exclusive and checks none at run time (docs/performance.md,
// "Exclusivity"). Only for changes that call nothing which reads the property: such a read
// would see the empty collection (where an access spanning the change would have trapped). And
// the local must be gone before anything that changes the property runs: stored back while the
// local lives, the buffer has two owners, and the next change copies all of it.

@inlinable @inline(__always)
public func takeOut<Key, Value>(_ value: inout [Key: Value]) -> [Key: Value] {
    var out = [Key: Value]()
    swap(&out, &value)
    return out
}

@inlinable @inline(__always)
public func takeOut<Element>(_ value: inout [Element]) -> [Element] {
    var out = [Element]()
    swap(&out, &value)
    return out
}

@inlinable @inline(__always)
public func takeOut<Element>(_ value: inout Set<Element>) -> Set<Element> {
    var out = Set<Element>()
    swap(&out, &value)
    return out
}

@inlinable @inline(__always)
public func takeOut<Value>(_ value: inout DeadlineHeap<Value>) -> DeadlineHeap<Value> {
    var out = DeadlineHeap<Value>()
    swap(&out, &value)
    return out
}
