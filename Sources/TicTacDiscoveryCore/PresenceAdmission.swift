import TicTacTime
import TicTacWire

// Who gets into the presence table, and who is pushed out (Protocol.md §7 "Signed presence"
// and "A table nobody can fill"): signatures checked under a rate, replays refused, each source
// address and prefix held to a share, and a full table evicting hints before signed peers.

extension DiscoveryCore {
    /// One share of the table: an address or a prefix, for unsigned or signed ids.
    struct Share: Hashable {
        var key: String
        var signed: Bool
    }

    /// What a datagram's seal said: its timestamp, nil for an unsigned datagram.
    struct Accepted {
        var stamp: UInt64?
    }

    /// Checks an ANNOUNCE's or GOODBYE's seal: nil when the datagram is dropped (counted).
    /// An unsigned one is accepted only for an id not known signed; a signed one needs a
    /// verification token, a valid signature by the key of its id, and a newer timestamp
    /// (an exact copy of the last accepted one, heard at another address, needs neither).
    mutating func checked(_ bytes: [UInt8], id: ID128, from source: String, now: Instant) -> Accepted? {
        let seal: PresenceSeal?
        do { seal = try PresenceSeal.read(bytes) } catch {
            counters.malformed += 1
            return nil
        }
        let last = entries[id]?.stamp ?? stamps[id]?.stamp
        guard let seal else {
            guard last == nil else { counters.unsigned += 1; return nil }
            return Accepted()
        }
        if let last, seal.timestamp == last, entries[id]?.views[PeerSources.broadcast.rawValue]?.signed == bytes {
            return Accepted(stamp: seal.timestamp)
        }
        guard verifyLimiter.admit(source, now: now), verifyBudget.admit(0, now: now) else {
            counters.verifyLimited += 1
            return nil
        }
        counters.verified += 1
        guard PresenceKey.verify(bytes, seal: seal, id: id) else { counters.badSignature += 1; return nil }
        if let last, seal.timestamp <= last { counters.replayed += 1; return nil }
        if entries[id] != nil { entries[id]?.stamp = seal.timestamp }
        return Accepted(stamp: seal.timestamp)
    }

    /// Whether a new id fits: within its origin's share, and in the table, evicting the
    /// weakest entry when it is full. Unsigned entries go before signed ones, an entry heard
    /// once before a renewed one, the least recently heard first; an unsigned newcomer never
    /// evicts a signed peer. A forged id is one datagram, so a flood pushes out its own kind.
    mutating func makeRoom(for id: ID128, origin: String?, signed: Bool, now: Instant) -> Bool {
        guard entries[id] == nil else { return true }
        if let origin {
            guard perSource[Share(key: origin, signed: signed), default: 0] < (signed ? config.maxSignedPerSource : config.maxPerSource),
                  perPrefix[Share(key: Self.prefix(of: origin), signed: signed), default: 0]
                    < (signed ? config.maxSignedPerPrefix : config.maxPerPrefix) else { return false }
        }
        guard entries.count >= config.maxPeers else { return true }
        // The weakest: unsigned before signed, heard once before heard again, then the oldest.
        var weakest: (id: ID128, rank: Int, lastHeard: Instant)?
        for (key, e) in entries {
            let rank = (e.isSigned ? 2 : 0) + (e.heard > 1 ? 1 : 0)
            if let w = weakest, w.rank < rank || (w.rank == rank && w.lastHeard <= e.lastHeard) { continue }
            weakest = (key, rank, e.lastHeard)
        }
        guard let victim = weakest?.id, let entry = entries[victim], signed || !entry.isSigned else { return false }
        counters.evicted += 1
        forget(victim, now: now)
        if let old = entry.shown { actions.append(.event(.lost(old, reason: "pushed out of a full presence table"))) }
        return true
    }

    /// A new id's origin: the address its first ANNOUNCE came from, counted against its share.
    mutating func claim(_ id: ID128, origin: String, signed: Bool) {
        entries[id]?.origin = origin
        entries[id]?.originSigned = signed
        perSource[Share(key: origin, signed: signed), default: 0] += 1
        perPrefix[Share(key: Self.prefix(of: origin), signed: signed), default: 0] += 1
    }

    /// Drops an entry, gives its origin's share back, and keeps its last signed timestamp.
    mutating func forget(_ id: ID128, now: Instant?) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        if let origin = entry.origin {
            let source = Share(key: origin, signed: entry.originSigned)
            perSource[source, default: 1] -= 1
            if perSource[source] == 0 { perSource[source] = nil }
            let prefix = Share(key: Self.prefix(of: origin), signed: entry.originSigned)
            perPrefix[prefix, default: 1] -= 1
            if perPrefix[prefix] == 0 { perPrefix[prefix] = nil }
        }
        guard let stamp = entry.stamp, let now else { return }
        if stamps.count >= config.maxPeers, let oldest = stamps.min(by: { $0.value.until < $1.value.until }) {
            stamps[oldest.key] = nil
        }
        stamps[id] = (stamp, now + config.stampMemory)
    }

    /// An address's network as the share counts it: the first three octets of IPv4 (/24), the
    /// first four groups of IPv6 (/64), scope dropped.
    static func prefix(of address: String) -> String {
        let host = address.split(separator: "%", maxSplits: 1).first.map(String.init) ?? address
        if !host.contains(":") { return host.split(separator: ".").dropLast().joined(separator: ".") }
        let halves = host.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false)
        let head = halves.first.map { $0.split(separator: ":").map(String.init) } ?? []
        let tail = halves.count > 1 ? halves[1].split(separator: ":").map(String.init) : []
        let groups = head + Array(repeating: "0", count: max(0, 8 - head.count - tail.count)) + tail
        return groups.prefix(4).map { $0.lowercased() }.joined(separator: ":")
    }
}
