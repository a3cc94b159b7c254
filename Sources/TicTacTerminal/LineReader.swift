/// Splits input bytes into lines, bounded: a line longer than `maxBytes` is reported once as
/// too long and discarded up to its newline, never buffered without limit.
public struct LineReader: Sendable {
    public enum Item: Sendable, Equatable {
        case line(String)
        case tooLong
    }

    public let maxBytes: Int
    private var pending: [UInt8] = []
    private var discarding = false

    public init(maxBytes: Int = Command.maxLineBytes) { self.maxBytes = maxBytes }

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Item] {
        var items: [Item] = []
        for b in bytes {
            if b == UInt8(ascii: "\n") {
                if !discarding { items.append(.line(Self.decode(pending))) }
                pending.removeAll(keepingCapacity: true)
                discarding = false
            } else if !discarding {
                pending.append(b)
                if pending.count > maxBytes {
                    items.append(.tooLong)
                    pending.removeAll(keepingCapacity: true)
                    discarding = true
                }
            }
        }
        return items
    }

    /// The unterminated last line at end of input, if any.
    public mutating func finish() -> [Item] {
        defer { pending.removeAll() }
        return pending.isEmpty || discarding ? [] : [.line(Self.decode(pending))]
    }

    private static func decode(_ bytes: [UInt8]) -> String {
        var s = String(decoding: bytes, as: UTF8.self)
        if s.hasSuffix("\r") { s.removeLast() }
        return s
    }
}
