/// A point on a monotonic clock, in nanoseconds from an arbitrary origin. The engine never reads
/// a clock: the caller passes `now` in (the reactor's monotonic clock, or a test's virtual time).
public struct Instant: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = Instant(nanoseconds: 0)

    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (a: Instant, d: Duration) -> Instant {
        // `attoseconds` divides once; `components` splits into seconds and attoseconds with two
        // 128-bit divisions, about 140 instructions more (deadlines are summed on every frame).
        Instant(nanoseconds: a.nanoseconds &+ Int64(truncatingIfNeeded: d.attoseconds / 1_000_000_000))
    }

    /// The duration from `b` to `a`.
    public static func - (a: Instant, b: Instant) -> Duration { .nanoseconds(a.nanoseconds - b.nanoseconds) }

    public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}
