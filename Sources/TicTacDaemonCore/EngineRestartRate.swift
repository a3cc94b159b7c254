import TicTacTime

/// How often a bot's engine may fail and be started again (`--engine-restarts N`): at most N
/// failures within any `window` (10 minutes). One more pauses the engine until the oldest of
/// them is a window old; then it is started again. A rate, not a total for the bot's life: a
/// bot that runs for weeks is not let down by failures spread over days.
public struct EngineRestartRate: Sendable, Equatable {
    public static let defaultWindow: Duration = .seconds(600)
    /// Failures at most within a window.
    public let limit: Int
    public let window: Duration
    /// The latest `limit + 1` failures at most, oldest first: enough to tell whether one
    /// window holds more than `limit`.
    private var recent: [Instant] = []
    /// Failures over the bot's life (the log counts them).
    public private(set) var total = 0

    public init(limit: Int, window: Duration = Self.defaultWindow) {
        self.limit = max(0, limit)
        self.window = window
    }

    /// Counts a failure at `now`.
    public mutating func failed(at now: Instant) {
        total += 1
        recent.append(now)
        if recent.count > limit + 1 { recent.removeFirst(recent.count - limit - 1) }
    }

    /// When the engine may be started again, while more than `limit` failures lie within the
    /// window before `now`; nil when it may be started now.
    public func pausedUntil(_ now: Instant) -> Instant? {
        guard recent.count > limit, let oldest = recent.first else { return nil }
        let clears = oldest + window
        return now < clears ? clears : nil
    }

    /// The window in words, for the log and the help ("10 min").
    public var windowText: String {
        let seconds = Int(window.components.seconds)
        return seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
    }
}
