import TicTacTime

/// Players a bot takes on whom its history has never seen, per source address and per network
/// prefix (four times as many), per hour (`DaemonConfig.maxNewPlayersPerAddressPerHour`): each
/// adds a game to the history for good, so throwaway identities from one host cannot grow it
/// without end. A token bucket each: the hour's allowance at once, then refilled evenly.
struct NewPlayerRate {
    private struct Bucket {
        var tokens: Double
        var at: Instant
    }
    private var byAddress: [String: Bucket] = [:]
    private var byPrefix: [String: Bucket] = [:]
    let perAddress: Int

    /// `perAddress`: new players per address per hour; 0 allows any number.
    init(perAddress: Int) {
        self.perAddress = perAddress
    }

    /// Counts a new player from `address`: nil when the bot may play it, else why not.
    mutating func refusal(_ address: String, now: Instant) -> String? {
        guard perAddress > 0 else { return nil }
        let prefix = SourcePrefix.of(address)
        var a = Self.refilled(byAddress[address], limit: perAddress, now: now)
        var p = Self.refilled(byPrefix[prefix], limit: 4 * perAddress, now: now)
        if a.tokens < 1 { return "\(perAddress) new players within an hour from \(address)" }
        if p.tokens < 1 { return "\(4 * perAddress) new players within an hour from \(prefix)" }
        a.tokens -= 1
        p.tokens -= 1
        Self.keep(a, for: address, in: &byAddress, limit: perAddress, now: now)
        Self.keep(p, for: prefix, in: &byPrefix, limit: 4 * perAddress, now: now)
        return nil
    }

    private static func refilled(_ b: Bucket?, limit: Int, now: Instant) -> Bucket {
        guard let b else { return Bucket(tokens: Double(limit), at: now) }
        let seconds = Double((now - b.at).components.seconds) + Double((now - b.at).components.attoseconds) / 1e18
        return Bucket(tokens: min(Double(limit), b.tokens + seconds * Double(limit) / 3600), at: now)
    }

    /// Sources whose buckets are full again are forgotten once the table grows: bounded memory.
    private static func keep(_ b: Bucket, for source: String, in table: inout [String: Bucket], limit: Int, now: Instant) {
        if table.count >= 4096 { table = table.filter { refilled($0.value, limit: limit, now: now).tokens < Double(limit) } }
        table[source] = b
    }
}
