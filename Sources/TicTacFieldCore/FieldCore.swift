import TicTacTime
import TicTacWire

// Theory of operation (Protocol.md §11)
//
// FieldCore is the collaborative field without I/O. Inputs carry the current time: the player's
// moves and colour, the participants the presence table gives (id -> addresses and field port),
// datagrams with their source, and timeouts. Outputs are drained with `pollActions()`: datagrams
// to send (one SPHERE per address of every participant) and events for the front.
//
// Sending: a change marks our state dirty; it goes at once unless the last send was less than
// `minGap` ago (30 per second), in which case it goes when the gap ends, newest state only.
// A new state goes once more `repeatAfter` later (a lost last position is corrected in a quarter
// second, not at the next heartbeat); after that, the last state goes again `heartbeat` after the
// latest send.
//
// Receiving: each datagram passes a per-source rate limit, decoding, and the identity checks
// (not our id, a participant's id, from that participant's address and field port); then the
// sequence must be newer (serial-number order) than the last accepted, or than a FIELD_LEAVE's,
// which is remembered for `expiry`. The original app's 19-byte packet is keyed by its source.
// Every drop is counted by reason, never shown.

/// The collaborative field's sans-I/O state machine: our sphere, the others', the timers.
public struct FieldCore: SansIOCore {
    public let config: FieldConfig
    public let id: ID128
    /// Our sphere as we send it.
    public private(set) var local: FieldSphere
    public private(set) var counters = FieldCounters()

    private var name: DisplayName
    private var sequence: UInt32 = 0
    private var started = false
    private var dirty = false
    /// The latest send carried a new state: it goes once more after `repeatAfter`.
    private var repeatOwed = false
    private var lastSend: Instant?
    private var participants: [ID128: (addresses: [String], port: UInt16)] = [:]
    /// Where a SPHERE went, and when last: within the expiry that endpoint may still show our
    /// sphere, so it gets our FIELD_LEAVE even if its owner has just left the presence table.
    private var sentTo: [FieldEndpoint: Instant] = [:]

    private struct Remote {
        var sphere: FieldSphere
        /// Nil for the original app's spheres (no sequence).
        var sequence: UInt32?
        var heard: Instant
        /// Where its latest accepted datagram came from: ours go to that address while it is heard.
        var from: FieldEndpoint
    }

    private var remotes: [SphereKey: Remote] = [:]
    /// FIELD_LEAVEs: the sequence a later datagram must exceed, and until when.
    private var departed: [ID128: (sequence: UInt32, until: Instant)] = [:]
    /// The per-source token buckets (Protocol.md §11).
    private var limiter: RateLimiter<FieldEndpoint>
    private var actions: [FieldAction] = []

    /// - Parameters: `name` is cut to a sphere's short name; `x`, `y` are clamped into the field.
    public init(id: ID128, name: DisplayName, x: Int32, y: Int32, color: RGB, config: FieldConfig = FieldConfig()) {
        self.id = id
        self.config = config
        limiter = RateLimiter(rate: config.receiveRate, burst: config.receiveBurst, maxSources: config.maxSources)
        self.name = Sphere.shortName(name)
        local = FieldSphere(key: .peer(id), name: self.name.value, x: Self.clamp(x), y: Self.clamp(y), color: color)
    }

    /// Our sequence counts on from the wall clock (`wallClockMillis`, ms since the Unix epoch),
    /// in 1/32 s ticks: we send at most 30 a second, so every run starts above all the last one
    /// sent, and a participant that left and restarts is newer at once (Protocol.md §11). Before
    /// `.start` only; without it the sequence starts at 1.
    public mutating func countFrom(wallClockMillis: UInt64) {
        guard !started else { return }
        sequence = UInt32(truncatingIfNeeded: wallClockMillis / 1000 * 32 + wallClockMillis % 1000 * 32 / 1000) &- 1
    }

    // MARK: - Queries

    /// Every other sphere, in drawing order (participants by id, then the original app's).
    public var spheres: [FieldSphere] {
        remotes.values.map(\.sphere).sorted { $0.key < $1.key }
    }

    public func sphere(_ key: SphereKey) -> FieldSphere? { remotes[key]?.sphere }

    /// The participants we send to, by id.
    public var participantIDs: [ID128] { participants.keys.sorted() }

    /// The nearest time `handleTimeout(now:)` has work to do.
    public func pollTimeout() -> Instant? {
        var best: Instant?
        func consider(_ t: Instant) { best = best.map { min($0, t) } ?? t }
        if started, let last = lastSend { consider(last + wait) }
        for r in remotes.values { consider(r.heard + config.expiry) }
        return best
    }

    public mutating func pollActions(into out: inout [FieldAction]) {
        precondition(out.isEmpty, "pollActions(into:) takes an empty buffer") // our callers' own
        swap(&out, &actions)
    }

    /// What happens: our start and leave, participants found and gone, a datagram.
    public mutating func handle(_ input: FieldInput, now: Instant) {
        switch input {
        case .start: start(now: now)
        case .leave: leave()
        case let .participant(peer, addresses, port): participant(peer, addresses: addresses, port: port, now: now)
        case let .participantGone(peer): participants[peer] = nil
        case let .datagram(bytes, source): received(bytes, from: source, now: now)
        }
    }

    /// Our player moves or recolours the sphere (these never fail).
    public mutating func perform(_ command: SphereCommand, now: Instant) {
        switch command {
        case let .move(dx, dy): moveTo(x: Int32(clamping: Int64(local.x) + Int64(dx)), y: Int32(clamping: Int64(local.y) + Int64(dy)), now: now)
        case let .moveTo(x, y): moveTo(x: x, y: y, now: now)
        case let .setColor(color): setColor(color, now: now)
        }
    }

    // MARK: - Local inputs

    /// Joins the field: our state goes to every participant known so far.
    private mutating func start(now: Instant) {
        guard !started else { return }
        started = true
        dirty = true
        flush(now: now)
    }

    private mutating func moveTo(x: Int32, y: Int32, now: Instant) {
        let (cx, cy) = (Self.clamp(x), Self.clamp(y))
        guard cx != local.x || cy != local.y else { return }
        local.x = cx
        local.y = cy
        changed(now: now)
    }

    private mutating func setColor(_ color: RGB, now: Instant) {
        guard color != local.color else { return }
        local.color = color
        changed(now: now)
    }

    /// A participant appeared in the presence table, or its addresses or field port changed.
    /// It gets our state at once (within the send rate).
    private mutating func participant(_ peer: ID128, addresses: [String], port: UInt16, now: Instant) {
        guard peer != id else { return }
        guard port != 0, !addresses.isEmpty else { return participants[peer] = nil }
        let old = participants[peer]
        participants[peer] = (addresses, port)
        if old == nil || old?.port != port || Set(old?.addresses ?? []) != Set(addresses) { changed(now: now) }
    }

    /// Says FIELD_LEAVE to every participant and stops sending.
    private mutating func leave() {
        guard started else { return }
        started = false
        sequence &+= 1
        let bytes = Message.fieldLeave(id, sequence: sequence).encoded()
        var told = Set<FieldEndpoint>()
        for peer in participants.keys.sorted() {
            guard let p = participants[peer] else { continue }
            for a in p.addresses { told.insert(FieldEndpoint(address: a, port: p.port)) }
        }
        told.formUnion(sentTo.keys)
        sentTo = [:]
        for to in told.sorted() {
            counters.sent += 1
            actions.append(.send(bytes, to: to))
        }
    }

    public mutating func handleTimeout(now: Instant) {
        flush(now: now)
        for (key, r) in remotes where r.heard + config.expiry <= now {
            remotes[key] = nil
            actions.append(.event(.left(key, name: r.sphere.name, reason: .timeout)))
        }
        departed = departed.filter { $0.value.until > now }
        sentTo = sentTo.filter { $0.value + config.expiry > now }
    }

    // MARK: - Datagrams

    /// A datagram arrived on the field socket.
    private mutating func received(_ bytes: [UInt8], from source: FieldEndpoint, now: Instant) {
        counters.received += 1
        guard limiter.admit(source, now: now) else { return counters.rateLimited += 1 }
        if LegacySphere.looksLegacy(bytes) { return receivedOriginal(bytes, from: source, now: now) }
        let message: Message
        do {
            message = try Message(datagram: bytes)
        } catch {
            // A valid TCP message in a datagram is unexpected, not malformed (Protocol.md §5, §11).
            if case .wrongTransport = error { return counters.unexpected += 1 }
            return counters.malformed += 1
        }
        switch message {
        case let .sphere(s):
            guard accepts(s.instanceID, s.sequence, from: source, now: now) else { return }
            let sphere = FieldSphere(key: .peer(s.instanceID), name: s.name.value, x: s.x, y: s.y,
                                     color: RGB(s.red, s.green, s.blue))
            update(sphere, sequence: s.sequence, from: source, now: now)
        case let .fieldLeave(peer, seq):
            guard accepts(peer, seq, from: source, now: now, leaving: true) else { return }
            departed[peer] = (seq, now + config.lateAfterLeave)
            if let r = remotes.removeValue(forKey: .peer(peer)) {
                actions.append(.event(.left(.peer(peer), name: r.sphere.name, reason: .left)))
            }
        default:
            counters.unexpected += 1
        }
    }

    // MARK: - Private

    /// The original app's screen, in points: its packets' coordinates are on it.
    public static let originalScreenWidth: Int32 = 320
    public static let originalScreenHeight: Int32 = 480

    /// The original's screen points (0..<`size`) onto the field's 0..999: v * 1000 / size,
    /// rounded down, then clamped (Protocol.md §11, the original packet).
    static func scaled(_ v: Int32, from size: Int32) -> Int32 {
        clamp(Int32(clamping: Int64(v) * 1000 / Int64(size)))
    }

    private static func clamp(_ v: Int32) -> Int32 {
        min(max(v, Sphere.coordinates.lowerBound), Sphere.coordinates.upperBound)
    }

    private mutating func changed(now: Instant) {
        dirty = true
        flush(now: now)
    }

    /// How long after the latest send the next one is due: a changed state after the rate's
    /// gap, a new state's repeat, else the heartbeat (Protocol.md §11 "When").
    private var wait: Duration {
        dirty ? config.minGap : repeatOwed ? config.repeatAfter : config.heartbeat
    }

    /// Sends what is due: a dirty state once the gap since the last send has passed, else the
    /// repeat or the heartbeat.
    private mutating func flush(now: Instant) {
        guard started else { return }
        if let last = lastSend, now < last + wait { return }
        sequence &+= 1
        let s = Sphere(instanceID: id, sequence: sequence, x: local.x, y: local.y, red: local.color.red,
                       green: local.color.green, blue: local.color.blue, name: name)
        sendToAll(Message.sphere(s).encoded(), now: now)
        lastSend = now
        repeatOwed = dirty
        dirty = false
    }

    /// A SPHERE to every participant: at the address its sphere is heard from while it is (one
    /// copy, not one per address of a host with IPv4 and IPv6), else at every address it has
    /// (Protocol.md §11, Sending).
    private mutating func sendToAll(_ bytes: [UInt8], now: Instant) {
        for peer in participants.keys.sorted() {
            guard let p = participants[peer] else { continue }
            let heard = remotes[.peer(peer)].map(\.from.address).flatMap { p.addresses.contains($0) ? [$0] : nil }
            for a in heard ?? p.addresses {
                let to = FieldEndpoint(address: a, port: p.port)
                counters.sent += 1
                actions.append(.send(bytes, to: to))
                sentTo[to] = now
            }
        }
    }

    /// The identity and sequence checks of Protocol.md §11, in order; counts what it drops.
    /// A FIELD_LEAVE (`leaving`) from a sender that has just left the presence table is still
    /// taken from the endpoint its sphere was heard from: its discovery message (field off,
    /// GOODBYE) travels on another socket and may be read first.
    private mutating func accepts(_ peer: ID128, _ seq: UInt32, from source: FieldEndpoint, now: Instant,
                                  leaving: Bool = false) -> Bool {
        guard peer != id else { counters.spoofedOwn += 1; return false }
        if let p = participants[peer] {
            guard p.port == source.port, p.addresses.contains(source.address) else { counters.wrongSource += 1; return false }
        } else {
            guard leaving, let r = remotes[.peer(peer)] else { counters.unknownSender += 1; return false }
            guard r.from == source else { counters.wrongSource += 1; return false }
        }
        // Not newer than its FIELD_LEAVE, within a second: sent before it, delivered late. Later,
        // any sequence: it restarted (a version-1 sender counts from 1 again).
        if let d = departed[peer], now < d.until, !Self.newer(seq, than: d.sequence) {
            counters.stale += 1
            return false
        }
        if let r = remotes[.peer(peer)], let last = r.sequence, now < r.heard + config.restartAfter,
           !Self.newer(seq, than: last) {
            counters.stale += 1
            return false
        }
        return true
    }

    /// Serial-number order (RFC 1982): `a` is newer when (a - b) mod 2^32 is in 1...2^31 - 1.
    static func newer(_ a: UInt32, than b: UInt32) -> Bool {
        let d = a &- b
        return d != 0 && d < 1 << 31
    }

    private mutating func update(_ sphere: FieldSphere, sequence: UInt32?, from source: FieldEndpoint, now: Instant) {
        let old = remotes[sphere.key]?.sphere
        remotes[sphere.key] = Remote(sphere: sphere, sequence: sequence, heard: now, from: source)
        if old == nil {
            actions.append(.event(.joined(sphere)))
        } else if old != sphere {
            actions.append(.event(.changed(sphere)))
        }
    }

    private mutating func receivedOriginal(_ bytes: [UInt8], from source: FieldEndpoint, now: Instant) {
        let p: LegacySphere
        do {
            p = try LegacySphere(datagram: bytes)
        } catch {
            return counters.malformed += 1
        }
        let key = SphereKey.original(source)
        if remotes[key] == nil, remotes.keys.filter({ if case .original = $0 { true } else { false } }).count >= config.maxOriginals {
            return counters.rateLimited += 1
        }
        let sphere = FieldSphere(key: key, name: source.description, x: Self.scaled(p.x, from: Self.originalScreenWidth),
                                 y: Self.scaled(p.y, from: Self.originalScreenHeight), color: RGB(p.red, p.green, p.blue))
        update(sphere, sequence: nil, from: source, now: now)
    }
}
