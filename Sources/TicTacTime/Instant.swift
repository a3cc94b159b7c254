/// A point on a monotonic clock, in nanoseconds from an arbitrary origin. The engine never reads
/// a clock: the caller passes `now` in (the reactor's monotonic clock, or a test's virtual time).
public struct Instant: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var nanoseconds: Int64

    @inlinable public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = Instant(nanoseconds: 0)

    /// The earlier of two instants, either of which may be none.
    @inlinable public static func earliest(_ a: Instant?, _ b: Instant?) -> Instant? {
        guard let a else { return b }
        guard let b else { return a }
        return Swift.min(a, b)
    }

    @inlinable public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    @inlinable public static func + (a: Instant, d: Duration) -> Instant {
        Instant(nanoseconds: a.nanoseconds &+ d.wholeNanoseconds)
    }

    /// The duration from `b` to `a`.
    @inlinable public static func - (a: Instant, b: Instant) -> Duration { .nanoseconds(a.nanoseconds - b.nanoseconds) }

    public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}

extension Duration {
    /// The duration in whole nanoseconds, rounded toward zero (what `Instant + Duration` adds).
    @inlinable public var wholeNanoseconds: Int64 {
        let atto = attoseconds
        // 10^9 = 2^9 * 1_953_125: below 2^72 attoseconds a 64-bit division does (docs/performance.md).
        if atto >= 0, atto >> 72 == 0 { return Int64(truncatingIfNeeded: atto >> 9) / 1_953_125 }
        return Int64(truncatingIfNeeded: atto / 1_000_000_000)
    }

    /// The duration in whole seconds, rounded up: what a person is told is left ("18 s").
    public var wholeSecondsRoundedUp: Int64 {
        let (s, atto) = components
        return s + (atto > 0 ? 1 : 0)
    }
}
