/// A point on a monotonic clock, in nanoseconds from an arbitrary origin. The engine never reads
/// a clock: the caller passes `now` in (the reactor's monotonic clock, or a test's virtual time).
public struct Instant: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = Instant(nanoseconds: 0)

    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (a: Instant, d: Duration) -> Instant {
        // Deadlines are summed on every frame: see `wholeNanoseconds` for why not `components`.
        Instant(nanoseconds: a.nanoseconds &+ d.wholeNanoseconds)
    }

    /// The duration from `b` to `a`.
    public static func - (a: Instant, b: Instant) -> Duration { .nanoseconds(a.nanoseconds - b.nanoseconds) }

    public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}

extension Duration {
    /// The duration in whole nanoseconds, rounded toward zero (what `Instant + Duration` adds).
    public var wholeNanoseconds: Int64 {
        let atto = attoseconds
        // 10^9 = 2^9 * 1_953_125, and for x >= 0, (x / 2^9) / 1_953_125 == x / 10^9 (floor
        // division composes). Below 2^72 attoseconds (about 78 minutes: every deadline we sum), x >> 9
        // fits an Int64, so one 64-bit division by a constant (a multiplication) does instead of
        // the 128-bit division (__divti3, about 100 instructions; `components` takes two).
        if atto >= 0, atto >> 72 == 0 { return Int64(truncatingIfNeeded: atto >> 9) / 1_953_125 }
        return Int64(truncatingIfNeeded: atto / 1_000_000_000)
    }
}
