// Each checks and changes an array that is a class's property in one modifying access, where a
// read then a write would make two run-time exclusivity checks (docs/performance.md).
extension Array where Element: Equatable {
    /// Appends `element` unless it is already the last.
    mutating func appendIfNotLast(_ element: Element) { if last != element { append(element) } }
}

extension Array {
    /// Appends `element` while the array holds fewer than `limit`.
    mutating func appendIfFewer(than limit: Int, _ element: Element) { if count < limit { append(element) } }
    /// Removes and returns the first element, if any.
    mutating func popFirstIfAny() -> Element? { isEmpty ? nil : removeFirst() }
}

// Taking a class's collection out (leaving an empty one), changing the local and putting it
// back makes no access to the property span the change's calls: the compiler can then prove
// every access to it exclusive and checks none at run time (docs/performance.md,
// "Exclusivity"). Only for changes that call nothing which reads the property.

@inline(__always)
func takeOut<Key, Value>(_ value: inout [Key: Value]) -> [Key: Value] {
    var out = [Key: Value]()
    swap(&out, &value)
    return out
}

@inline(__always)
func takeOut<Element>(_ value: inout [Element]) -> [Element] {
    var out = [Element]()
    swap(&out, &value)
    return out
}

@inline(__always)
func takeOut<Element>(_ value: inout Set<Element>) -> Set<Element> {
    var out = Set<Element>()
    swap(&out, &value)
    return out
}
