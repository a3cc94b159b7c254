/// A token bucket per source (Protocol.md §7 and §11: a flood from one address cannot starve the
/// rest). Each source may send `burst` at once and `rate` per second after that. The table holds
/// at most `maxSources`; when it is full, sources whose buckets have refilled (idle ones) are
/// forgotten, and a new source is refused only if none is idle, so forged sources cost bounded
/// memory.
public struct RateLimiter<Source: Hashable> {
    public let rate: Double
    public let burst: Double
    public let maxSources: Int
    private var buckets: [Source: (tokens: Double, at: Instant)] = [:]

    public init(rate: Int, burst: Int, maxSources: Int) {
        self.rate = Double(rate)
        self.burst = Double(burst)
        self.maxSources = maxSources
    }

    /// Takes one token from `source`'s bucket; false when it has none (drop the datagram).
    public mutating func admit(_ source: Source, now: Instant) -> Bool {
        if buckets[source] == nil, buckets.count >= maxSources {
            buckets = buckets.filter { refilled($0.value, now: now) < burst }
            if buckets.count >= maxSources { return false }
        }
        var tokens = buckets[source].map { refilled($0, now: now) } ?? burst
        let admitted = tokens >= 1
        if admitted { tokens -= 1 }
        buckets[source] = (tokens, now)
        return admitted
    }

    private func refilled(_ b: (tokens: Double, at: Instant), now: Instant) -> Double {
        min(burst, b.tokens + Double((now - b.at).components.seconds) * rate
            + Double((now - b.at).components.attoseconds) / 1e18 * rate)
    }
}
