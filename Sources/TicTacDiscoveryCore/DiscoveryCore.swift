import TicTacTime
import TicTacWire

// Theory of operation
//
// DiscoveryCore is broadcast discovery without I/O (Protocol.md §7) plus the one presence table
// every source feeds. Inputs carry the current time: datagrams with their source address, the
// local daemon's changes, timeouts, and sightings from DNS-SD (whose shell resolves them). Outputs
// are drained with `pollActions()`: datagrams to broadcast on every suitable interface, and
// presence events (found / updated / lost) for the daemon.
//
// A peer is keyed by instance id. Each source keeps its own view of it (broadcast: the last
// ANNOUNCE and every address it was heard at; DNS-SD: the last resolution); the peer the daemon
// sees is their merge: a signed ANNOUNCE's fields if there is one, else the newest view's, every
// address, and `via` naming the sources. A broadcast view expires three of the peer's own
// intervals (at most 10 s each) after its last ANNOUNCE; a DNS-SD view lasts until the responder
// says the service is gone, or until the peer's broadcast view expires (a peer heard by
// broadcast that falls silent is gone). The peer is lost when no view is left. Signatures, replays, each
// source's share of the table and eviction are PresenceAdmission.swift's.

public struct DiscoveryCore: SansIOCore {
    public let config: DiscoveryConfig
    public private(set) var local: LocalPresence
    public internal(set) var counters = DiscoveryCounters()

    var entries: [ID128: Entry] = [:]
    /// After a stall of our own (`DiscoveryInput.stalled`) nothing expires before this.
    private var expiryHeld: Instant?
    /// How long, after a stall, what was heard meanwhile has to be read before a peer expires.
    static let stallHold: Duration = .seconds(1)
    /// Ids whose signed view left: their last timestamp, until when it is kept.
    var stamps: [ID128: (stamp: UInt64, until: Instant)] = [:]
    /// New ids held per origin address and per its prefix, unsigned and signed apart.
    var perSource: [Share: Int] = [:]
    var perPrefix: [Share: Int] = [:]
    /// Our signing key (nil: unsigned, version-1 datagrams), and the clock our timestamps run on.
    let key: PresenceKey?
    private let wallClockMillis: UInt64
    private var startedAt: Instant?
    private var lastStamp: UInt64 = 0
    var verifyLimiter: RateLimiter<String>
    var verifyBudget: RateLimiter<UInt8>
    var actions: [DiscoveryAction] = []
    private var random: any RandomNumberGenerator
    private var started = false
    private var lastAnnounce: Instant?
    private var nextPeriodic: Instant?
    /// An ANNOUNCE owed sooner than the periodic one: a QUERY's answer or a change.
    private var dueSooner: Instant?
    /// The per-source token buckets (Protocol.md §7).
    private var limiter: RateLimiter<String>

    /// `key` signs our ANNOUNCE and GOODBYE (its id must be `local.id`); `wallClockMillis` is
    /// the time (ms since the Unix epoch) at `.start`, from which our timestamps count on.
    public init(local: LocalPresence, config: DiscoveryConfig = DiscoveryConfig(), key: PresenceKey? = nil,
                wallClockMillis: UInt64 = 0, random: any RandomNumberGenerator) {
        precondition(key == nil || key?.instanceID == local.id, "the signing key is not the local id's") // our callers' own
        self.local = local
        self.config = config
        self.random = random
        self.key = key
        self.wallClockMillis = wallClockMillis
        limiter = RateLimiter(rate: config.ratePerSecond, burst: config.rateBurst, maxSources: config.maxSources)
        verifyLimiter = RateLimiter(rate: config.verifyPerSource, burst: config.verifyBurst, maxSources: config.maxSources)
        verifyBudget = RateLimiter(rate: config.verifyPerSecond, burst: config.verifyPerSecond, maxSources: 1)
    }

    /// Discovery datagrams keep frame version 1 whatever TCP speaks: a version-1 receiver drops
    /// a frame of a version it does not know, and skips the signature's fields (Protocol.md §7).
    public static let datagramVersion: UInt8 = 1

    // MARK: - Queries

    /// Every peer present, sorted by name then id.
    public var peers: [PresencePeer] {
        entries.values.compactMap(\.shown)
            .sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
    }

    public func peer(_ id: ID128) -> PresencePeer? { entries[id]?.shown }

    /// The nearest time `handleTimeout(now:)` has work to do.
    public func pollTimeout() -> Instant? {
        var best = announceDue
        func held(_ t: Instant) -> Instant { expiryHeld.map { max(t, $0) } ?? t }
        for entry in entries.values {
            for view in entry.views.values {
                if let e = view.expires.map(held) { best = best.map { min($0, e) } ?? e }
                if let life = view.addressLife, let oldest = view.addresses.values.min() {
                    best = best.map { min($0, held(oldest + life)) } ?? held(oldest + life)
                }
            }
        }
        return best
    }

    public mutating func pollActions(into out: inout [DiscoveryAction]) {
        precondition(out.isEmpty, "pollActions(into:) takes an empty buffer") // our callers' own
        swap(&out, &actions)
    }

    /// What happens: our own start, change and stop, a datagram, another source's sighting.
    public mutating func handle(_ input: DiscoveryInput, now: Instant) {
        switch input {
        case .start: start(now: now)
        case let .update(presence): update(presence, now: now)
        case .stop: stop(now: now)
        case let .datagram(bytes, source): received(bytes, from: source, now: now)
        case let .sighted(sighting): sighted(sighting, now: now)
        case let .unsighted(id, source, reason): removeView(id, source, reason: reason, now: now)
        case let .refused(id, since): refused(id, since: since, now: now)
        // Our loop was stopped: the ANNOUNCEs of that time wait in the socket, read first.
        case .stalled: expiryHeld = now + Self.stallHold
        }
    }

    // MARK: - Local inputs

    /// Starts announcing: an ANNOUNCE, then a QUERY so the daemons already there answer at once.
    private mutating func start(now: Instant) {
        guard !started else { return }
        started = true
        if startedAt == nil { startedAt = now }
        if config.announces { sendAnnounce(now: now) }
        broadcast(.query(from: local.id))
    }

    /// This daemon changed (state, name, ports): announced at once, within the minimum gap.
    private mutating func update(_ presence: LocalPresence, now: Instant) {
        guard presence != local else { return }
        local = presence
        if started { owe(at: now) }
    }

    /// Says GOODBYE (a clean exit) and stops announcing.
    private mutating func stop(now: Instant) {
        guard started else { return }
        started = false
        if config.announces { broadcast(.goodbye(local.id), now: now) }
        nextPeriodic = nil
        dueSooner = nil
    }

    public mutating func handleTimeout(now: Instant) {
        if let due = announceDue, due <= now { sendAnnounce(now: now) }
        expire(now: now)
    }

    // MARK: - Datagrams

    /// A datagram arrived on the discovery port from `source` (an address, no port).
    private mutating func received(_ bytes: [UInt8], from source: String, now: Instant) {
        counters.received += 1
        guard limiter.admit(source, now: now) else {
            counters.rateLimited += 1
            return
        }
        let message: Message
        do {
            message = try Message(datagram: bytes)
        } catch {
            // A valid TCP message in a datagram is unexpected, not malformed (Protocol.md §5).
            if case .wrongTransport = error { counters.unexpected += 1 } else { counters.malformed += 1 }
            return
        }
        switch message {
        case let .announce(a):
            guard a.instanceID != local.id else { counters.own += 1; return }
            guard let accepted = checked(bytes, id: a.instanceID, from: source, now: now) else { return }
            announced(a, bytes: bytes, from: source, accepted: accepted, now: now)
        case let .query(id):
            guard id != local.id else { counters.own += 1; return }
            // One ANNOUNCE answers every QUERY heard before it goes (Protocol.md §7).
            if started, dueSooner == nil {
                owe(at: now + .nanoseconds(Int64(random.next() % UInt64(max(1, config.replyJitter.nanosecondsValue + 1)))))
            }
        case let .goodbye(id):
            guard id != local.id else { counters.own += 1; return }
            guard let accepted = checked(bytes, id: id, from: source, now: now) else { return }
            guard let view = entries[id]?.views[PeerSources.broadcast.rawValue] else { return }
            // Unsigned, the version-1 rule: only from an address the peer was heard at.
            guard accepted.stamp != nil || view.addresses[source] != nil else { counters.spoofedGoodbye += 1; return }
            // Signed, it is the peer's own word: its other views (a DNS-SD record Avahi keeps a
            // second more after its goodbye, RFC 6762 §10.1) go with it. Unsigned, a hint: only this one.
            guard accepted.stamp != nil, let all = entries[id]?.views.keys else {
                return removeView(id, .broadcast, reason: "\(view.name) left", now: now)
            }
            for key in all { entries[id]?.views[key] = nil }
            refresh(id, reason: "\(view.name) left", now: now)
        default:
            counters.unexpected += 1
        }
    }

    // MARK: - Other sources

    /// A source other than broadcast (DNS-SD) sees a peer, or sees it change.
    private mutating func sighted(_ s: PresencePeer, now: Instant) {
        guard s.id != local.id else { return }
        guard makeRoom(for: s.id, origin: nil, signed: false, now: now) else { return counters.tableFull += 1 }
        let view = View(name: s.name, addresses: Dictionary(s.addresses.map { ($0, now) }, uniquingKeysWith: { a, _ in a }),
                        port: s.port, fieldPort: s.fieldPort, capabilities: s.capabilities, versions: s.versions,
                        state: s.state, updated: now, expires: nil, addressLife: nil)
        entries[s.id, default: Entry()].views[s.via.rawValue] = view
        entries[s.id]?.heard += 1
        entries[s.id]?.lastHeard = now
        refresh(s.id)
    }

    // MARK: - Private

    private var announceDue: Instant? {
        guard started, config.announces else { return nil }
        var due = nextPeriodic
        if let s = dueSooner { due = due.map { min($0, s) } ?? s }
        guard let d = due else { return nil }
        if let last = lastAnnounce { return max(d, last + config.minGap) }
        return d
    }

    private mutating func owe(at time: Instant) {
        dueSooner = dueSooner.map { min($0, time) } ?? time
    }

    private mutating func sendAnnounce(now: Instant) {
        let interval = UInt16(clamping: min(config.interval, config.maxPeerInterval).nanosecondsValue / 1_000_000)
        let a = Announce(instanceID: local.id, name: local.name, tcpPort: local.port,
                         capabilities: local.capabilities, fieldPort: local.fieldPort,
                         state: local.state.rawValue, minVersion: local.versions.lowerBound,
                         maxVersion: local.versions.upperBound,
                         intervalMillis: min(max(interval, Announce.intervalRange.lowerBound), Announce.intervalRange.upperBound),
                         program: local.program)
        broadcast(.announce(a), now: now)
        lastAnnounce = now
        dueSooner = nil
        // 90..110 % of the interval, so daemons started together drift apart (Protocol.md §7).
        let base = config.interval.nanosecondsValue
        let spread = max(1, base / 5)
        nextPeriodic = now + .nanoseconds(base - base / 10 + Int64(random.next() % UInt64(spread + 1)))
    }

    /// A datagram (ANNOUNCE or QUERY or GOODBYE) with our key's seal when we have one.
    private mutating func broadcast(_ message: Message, now: Instant = Instant(nanoseconds: 0)) {
        let bytes: [UInt8]
        switch message {
        case .announce, .goodbye:
            bytes = key.flatMap { $0.seal(message, version: Self.datagramVersion, timestamp: stamp(now: now)) }
                ?? message.encoded(version: Self.datagramVersion)
        default:
            bytes = message.encoded(version: Self.datagramVersion)
        }
        counters.sent += 1
        actions.append(.broadcast(bytes))
    }

    /// Our next timestamp: the wall clock at start plus the time since, strictly increasing,
    /// so a restart with the same key (a later wall clock) is newer than all the last run sent.
    private mutating func stamp(now: Instant) -> UInt64 {
        let since = startedAt.map { UInt64(clamping: max(0, (now - $0).nanosecondsValue / 1_000_000)) } ?? 0
        lastStamp = max(lastStamp + 1, wallClockMillis &+ since)
        return lastStamp
    }

    private mutating func announced(_ a: Announce, bytes: [UInt8], from source: String, accepted: Accepted, now: Instant) {
        let id = a.instanceID
        let signed = accepted.stamp != nil ? bytes : nil
        if entries[id] == nil {
            guard makeRoom(for: id, origin: source, signed: signed != nil, now: now) else { return counters.tableFull += 1 }
            entries[id] = Entry()
            claim(id, origin: source, signed: signed != nil)
        }
        if let stamp = accepted.stamp { entries[id]?.stamp = stamp }
        let interval = min(Duration.milliseconds(Int64(a.intervalMillis)), config.maxPeerInterval)
        let life = interval * 3
        let old = entries[id]?.views[PeerSources.broadcast.rawValue]
        // A signed view starts its addresses afresh: an unsigned one's may be anyone's.
        var addresses = (signed != nil && old?.signed == nil) ? [:] : old?.addresses ?? [:]
        addresses[source] = now
        let view = View(name: a.name.value, addresses: addresses, port: a.tcpPort, fieldPort: a.fieldPort,
                        capabilities: a.capabilities, versions: a.minVersion...a.maxVersion,
                        state: PresenceState(rawValue: a.state) ?? .busy, updated: now,
                        expires: now + life, addressLife: life, signed: signed, program: a.program?.value)
        entries[id]?.views[PeerSources.broadcast.rawValue] = view
        entries[id]?.heard += 1
        entries[id]?.lastHeard = now
        refresh(id)
    }

    /// A dial to the peer was refused: every view goes, unless a signed ANNOUNCE came since.
    private mutating func refused(_ id: ID128, since: Instant, now: Instant) {
        guard let entry = entries[id], let name = entry.shown?.name else { return }
        if let b = entry.views[PeerSources.broadcast.rawValue], b.signed != nil, b.updated >= since { return }
        entries[id]?.views = [:]
        refresh(id, reason: "\(name) has left", now: now)
    }

    private mutating func removeView(_ id: ID128, _ source: PeerSources, reason: String, now: Instant) {
        guard entries[id]?.views.removeValue(forKey: source.rawValue) != nil else { return }
        refresh(id, reason: reason, now: now)
    }

    private mutating func expire(now: Instant) {
        if let hold = expiryHeld {
            guard now >= hold else { return }
            expiryHeld = nil
        }
        for (id, entry) in entries {
            for (key, view) in entry.views {
                if let e = view.expires, e <= now {
                    let secs = Double((e - view.updated).nanosecondsValue) / 1e9
                    entries[id]?.views[key] = nil
                    if key == PeerSources.broadcast.rawValue {
                        // Heard by broadcast, it is on our segment: silent without GOODBYE, it is
                        // gone, and its DNS-SD records (no liveness of their own: Avahi keeps them
                        // to their TTL, 120 s) go with it. A later resolution brings them back.
                        entries[id]?.views[PeerSources.dnssd.rawValue] = nil
                        entries[id]?.views[PeerSources.fieldDNSSD.rawValue] = nil
                    }
                    refresh(id, reason: "not heard from for \(secs) seconds", now: now)
                    continue
                }
                guard let life = view.addressLife else { continue }
                let stale = view.addresses.filter { $0.value + life <= now }.map(\.key)
                guard !stale.isEmpty else { continue }
                for a in stale { entries[id]?.views[key]?.addresses[a] = nil }
                refresh(id)
            }
        }
        stamps = stamps.filter { $0.value.until > now }
    }

    /// Recomputes a peer's merged view and reports what changed.
    mutating func refresh(_ id: ID128, reason: String = "gone", now: Instant? = nil) {
        guard let entry = entries[id] else { return }
        guard let newest = entry.views.values.max(by: { $0.updated < $1.updated }) else {
            forget(id, now: now)
            if let old = entry.shown { actions.append(.event(.lost(old, reason: reason))) }
            return
        }
        var heard: [String: Instant] = [:]
        for view in entry.views.values { heard.merge(view.addresses) { max($0, $1) } }
        let addresses = heard.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map(\.key)
        var via = PeerSources()
        for key in entry.views.keys { via.insert(PeerSources(rawValue: key)) }
        // The field's service (`_spherenet._udp`, Protocol.md §11) knows the field alone: the
        // TCP port, state and versions come from the newest view of another source if any.
        // A signed ANNOUNCE says everything but the addresses: what DNS-SD or an unsigned
        // datagram says of its id is a hint that never overrides it (Protocol.md §7, §10).
        let signedView = entry.views[PeerSources.broadcast.rawValue].flatMap { $0.signed == nil ? nil : $0 }
        let told = signedView ?? entry.views.filter { $0.key != PeerSources.fieldDNSSD.rawValue }.values
            .max(by: { $0.updated < $1.updated }) ?? newest
        // Broadcast carries the display name as the player chose it; DNS-SD's may be renamed.
        let name = entry.views[PeerSources.broadcast.rawValue]?.name ?? told.name
        let program = entry.views[PeerSources.broadcast.rawValue]?.program // DNS-SD's TXT has none
        // What the peer offers is what any source says it offers: the field's service says only
        // the field, DNS-SD's TXT has no bot bit (Protocol.md §10).
        let offered = signedView?.capabilities ?? entry.views.values.reduce(Capabilities()) { $0.union($1.capabilities) }
        let fieldPort = signedView?.fieldPort ?? entry.views.values.map(\.fieldPort).max() ?? 0
        let peer = PresencePeer(id: id, name: name, addresses: addresses, port: told.port, fieldPort: fieldPort,
                                capabilities: offered, versions: told.versions,
                                state: told.state, via: via, signed: signedView != nil, program: program)
        guard peer != entry.shown else { return }
        entries[id]?.shown = peer
        // The addresses come most recently heard first, so a peer heard by turns at two of them
        // (IPv4 by broadcast, IPv6 link-local by DNS-SD) changes their order with every sighting:
        // kept (a dial tries the freshest first), but not told as an update, which it is not.
        if var old = entry.shown, Set(old.addresses) == Set(peer.addresses) {
            old.addresses = peer.addresses
            if old == peer { return }
        }
        actions.append(.event(entry.shown == nil ? .found(peer) : .updated(peer)))
    }
}
