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
