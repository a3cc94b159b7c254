import TicTacTime
import TicTacWire

/// Games a bot started with each peer within the last minute (`maxGamesPerPeerPerMinute`,
/// Protocol.md §5): past the limit its invitations are declined `busy` and its matches end
/// instead of starting the next game, so one peer that resigns at once cannot take the bot's
/// time or use up its `--max-games`.
struct GameRate {
    private let limit: Int
    private var started: [ID128: [Instant]] = [:]

    /// `limit`: games per peer per minute; 0 allows any number.
    init(limit: Int) {
        self.limit = limit
    }

    /// Another game with `peer` may start at `now`.
    func allows(_ peer: ID128, now: Instant) -> Bool {
        guard limit > 0 else { return true }
        return recent(peer, now: now).count < limit
    }

    /// A game with `peer` started at `now`.
    mutating func count(_ peer: ID128, now: Instant) {
        guard limit > 0 else { return }
        // Peers with no game within the minute are forgotten once the table grows.
        if started.count >= 1024 { started = started.filter { $0.value.last.map { now - $0 < Self.window } ?? false } }
        var games = recent(peer, now: now)
        games.append(now)
        started[peer] = games
    }

    private static let window: Duration = .seconds(60)

    private func recent(_ peer: ID128, now: Instant) -> [Instant] {
        (started[peer] ?? []).filter { now - $0 < Self.window }
    }
}
