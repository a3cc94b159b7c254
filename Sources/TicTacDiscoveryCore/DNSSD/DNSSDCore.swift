import TicTacTime
import TicTacWire

/// The sans-I/O heart of the DNS-SD agent: the registration, the table of browsed instances and
/// their resolves, timeouts and retries. Inputs in, actions out; no dns_sd call and no clock.
public struct DNSSDCore: SansIOCore {
    private enum Phase { case stopped, running, unavailable(retryAt: Instant) }

    private enum ResolveState {
        /// Browsed, not resolved yet (the batch under way has not ended).
        case new
        /// Waiting to (re)try the resolve.
        case waiting(retryAt: Instant)
        /// Resolving until the deadline: SRV, TXT and a first address.
        case resolving(deadline: Instant)
        /// Answered (a peer, ourselves, or not a peer); the resolve stays open for changes.
        case answered
    }

    private struct Instance {
        /// Browse adds minus removes: Avahi reports an instance once per interface and protocol.
        var adds = 0
        /// Removed and added again within one batch: resolve afresh.
        var restart = false
        var resolve: ResolveState = .new
        var retryDelay: Duration
        var host: String?
        var port: UInt16 = 0
        var txt: [UInt8]?
        var addresses: Set<String> = []
        /// The sighting last reported with `.up`.
        var shown: DNSSDSighting?
        /// Why it was last found not a peer (said once, not at every answer).
        var dropped: String?
    }

    /// The timeouts and retry delays in use.
    public let timing: DNSSDTiming
    /// The service published and browsed.
    public let service: DNSSDService
    /// False for a look that only browses (`tictac peers`): nothing is registered.
    public let publishes: Bool
    /// The DNS-SD service type of tictac (Protocol.md §10).
    public static let serviceType = DNSSDService.tictactoe.type
    /// A DNS label: an instance name is at most 63 bytes of UTF-8 (RFC 6763 §4.1.1).
    public static let maxInstanceNameBytes = 63

    private var phase = Phase.stopped
    private var baseName = ""
    private var port: UInt16 = 0
    private var txt: DNSSDTXT?
    private var renames = 0
    private var registeredName: String?
    private var reportedUnavailable = false
    private var unavailableDelay: Duration
    private var instances: [String: Instance] = [:]
    /// Instances touched by the browse batch under way ("more coming").
    private var batch: Set<String> = []
    private var actions: [DNSSDAction] = []

    /// A stopped core for `service`; `.start` begins. With `publishes` false it only browses.
    public init(service: DNSSDService = .tictactoe, timing: DNSSDTiming = DNSSDTiming(), publishes: Bool = true) {
        self.service = service
        self.timing = timing
        self.publishes = publishes
        unavailableDelay = timing.unavailableRetryFirst
    }

    /// Between `.start` and `.stop` (also while DNS-SD is unavailable).
    public var isStarted: Bool {
        if case .stopped = phase { return false }
        return true
    }

    /// The instance name registered, once the responder confirmed it.
    public var currentName: String? { registeredName }

    /// When `handleTimeout` is due next, if anything waits.
    public func pollTimeout() -> Instant? {
        var next: Instant?
        func consider(_ t: Instant) { if next.map({ t < $0 }) ?? true { next = t } }
        if case let .unavailable(at) = phase { consider(at) }
        for (_, i) in instances {
            switch i.resolve {
            case let .waiting(at): consider(at)
            case let .resolving(at): consider(at)
            case .new, .answered: break
            }
        }
        return next
    }

    private func registration(_ txt: DNSSDTXT) -> [DNSSDAction] {
        publishes ? [.register(name: attemptName, port: port, txt: service.encode(txt))] : []
    }

    /// Feeds one input; its actions wait in `pollActions`, in order.
    public mutating func handle(_ input: DNSSDInput, now: Instant) {
        var out: [DNSSDAction] = []
        step(input, now: now, &out)
        actions += out
    }

    /// The time `pollTimeout()` gave has come: resolves that took too long, the outage's retry.
    public mutating func handleTimeout(now: Instant) {
        var out: [DNSSDAction] = []
        step(nil, now: now, &out)
        actions += out
    }

    public mutating func pollActions(into out: inout [DNSSDAction]) {
        precondition(out.isEmpty, "pollActions(into:) takes an empty buffer") // our callers' own
        swap(&out, &actions)
    }

    /// One input, or the timer (nil).
    private mutating func step(_ input: DNSSDInput?, now: Instant, _ out: inout [DNSSDAction]) {
        switch (phase, input) {
        case let (.stopped, .start(name, port, txt)):
            baseName = Self.instanceName(name)
            self.port = port
            self.txt = txt
            renames = 0
            unavailableDelay = timing.unavailableRetryFirst
            reportedUnavailable = false
            phase = .running
            out += registration(txt) + [.browse]
        case (_, .start):
            break // already started: one registration per agent
        case (.stopped, _):
            break // nothing runs; late callbacks of cancelled refs do not exist, but be safe
        case (_, .stop):
            phase = .stopped
            instances = [:]
            batch = []
            registeredName = nil
            out.append(.cancelAll)
        case let (.running, .update(new)):
            txt = new
            if publishes { out.append(.updateTXT(service.encode(new))) }
        case let (.unavailable, .update(new)):
            txt = new // published at the next registration
        case let (.running, .failed(op, code)):
            out.append(.cancel(op))
            failed(op, code: code, now: now, &out)
        case (.unavailable, .failed):
            break // every ref was deallocated when the outage began
        case let (.running, .registered(name)):
            if registeredName != name { out.append(.emit(.registered(name))) }
            registeredName = name
            reportedUnavailable = false // the daemon works: a later outage is a new one
            unavailableDelay = timing.unavailableRetryFirst
        case let (.running, .browsed(name, added, moreComing)):
            browsed(name, added: added, now: now)
            if !moreComing { flushBatch(now: now, &out) }
        case let (.running, .resolved(name, host, port, txt)):
            resolved(name, host: host, port: port, txt: txt, now: now, &out)
        case let (.running, .address(name, ip, added)):
            guard instances[name] != nil else { break }
            if added { instances[name]?.addresses.insert(ip) } else { instances[name]?.addresses.remove(ip) }
            reconsider(name, now: now, &out)
        case (.running, .none):
            for name in instances.keys.sorted() { timeout(name, now: now, &out) }
        case let (.unavailable(at), .none):
            guard now >= at, let txt else { break }
            phase = .running
            out += registration(txt) + [.browse]
        case (.unavailable, .registered), (.unavailable, .browsed), (.unavailable, .resolved),
             (.unavailable, .address):
            break // from refs deallocated when the outage began
        }
    }

    // MARK: Registration and outages

    /// The name tried now: the base name, then "base #2", "base #3"... on local conflicts.
    private var attemptName: String {
        guard renames > 0 else { return baseName }
        let suffix = " #\(renames + 1)"
        return Self.truncate(baseName, toBytes: Self.maxInstanceNameBytes - suffix.utf8.count) + suffix
    }

    /// Why the name we are published under is not the one asked for, as the player is told;
    /// nil when it is the same. Cut to fit a DNS label, taken by another, or both.
    public static func renameReason(requested: String, registered: String) -> String? {
        guard registered != requested else { return nil }
        let cut = instanceName(requested)
        if registered == cut { return "the name is cut to \(maxInstanceNameBytes) bytes, the most a DNS label holds" }
        return cut == requested ? "the name was taken" : "the name is cut to fit DNS, and was taken"
    }

    /// A display name cut to a DNS label's 63 bytes at a character boundary ("tictac" if empty).
    public static func instanceName(_ name: String) -> String {
        let n = truncate(name, toBytes: maxInstanceNameBytes)
        return n.isEmpty ? "tictac" : n
    }

    private static func truncate(_ s: String, toBytes max: Int) -> String {
        var out = "", bytes = 0
        for c in s {
            bytes += c.utf8.count
            if bytes > max { break }
            out.append(c)
        }
        return out
    }

    private mutating func failed(_ op: DNSSDOperation, code: Int32, now: Instant, _ out: inout [DNSSDAction]) {
        switch op {
        case .register where code == DNSSDCode.nameConflict && renames < timing.maxRenames:
            // Avahi refuses a name another client of the same daemon holds (no automatic rename
            // for local conflicts): pick the next alternative ourselves.
            renames += 1
            if let txt { out.append(.register(name: attemptName, port: port, txt: service.encode(txt))) }
        case .register, .browse:
            outage(code: code, now: now, &out)
        case let .resolve(name), let .addresses(name):
            out.append(.cancel(op == .resolve(name) ? .addresses(name) : .resolve(name)))
            guard instances[name] != nil else { return }
            hide(name, &out)
            retryLater(name, now: now)
        }
    }

    private mutating func outage(code: Int32, now: Instant, _ out: inout [DNSSDAction]) {
        out.append(.cancelAll)
        for name in instances.keys.sorted() { hide(name, &out) }
        instances = [:]
        batch = []
        registeredName = nil
        if !reportedUnavailable {
            reportedUnavailable = true
            let reason = code == DNSSDCode.unknown ? "avahi-daemon is not running" : "dns_sd error \(code)"
            out.append(.emit(.unavailable("DNS-SD unavailable: \(reason); using broadcast discovery only")))
        }
        phase = .unavailable(retryAt: now + unavailableDelay)
        unavailableDelay = min(unavailableDelay * 2, timing.unavailableRetryMax)
    }

    // MARK: Browsing and resolving

    private mutating func browsed(_ name: String, added: Bool, now: Instant) {
        if added {
            if instances[name] == nil {
                instances[name] = Instance(retryDelay: timing.resolveRetryFirst)
            } else if instances[name]?.adds == 0 {
                instances[name]?.restart = true
            }
            instances[name]?.adds += 1
        } else {
            // Guard: a removal of what was never added (or already removed) is ignored.
            guard let adds = instances[name]?.adds, adds > 0 else { return }
            instances[name]?.adds = adds - 1
        }
        batch.insert(name)
    }

    /// The end of a browse batch ("more coming" false): act on what the batch left.
    private mutating func flushBatch(now: Instant, _ out: inout [DNSSDAction]) {
        for name in batch.sorted() {
            guard let i = instances[name] else { continue }
            if i.adds <= 0 {
                out += [.cancel(.resolve(name)), .cancel(.addresses(name))]
                hide(name, &out)
                instances[name] = nil
            } else if i.restart {
                instances[name]?.restart = false
                startResolve(name, now: now, &out)
            } else if case .new = i.resolve {
                startResolve(name, now: now, &out)
            }
        }
        batch = []
    }

    private mutating func startResolve(_ name: String, now: Instant, _ out: inout [DNSSDAction]) {
        out += [.cancel(.resolve(name)), .cancel(.addresses(name)), .resolve(instance: name)]
        instances[name]?.resolve = .resolving(deadline: now + timing.resolveTimeout)
        instances[name]?.host = nil
        instances[name]?.txt = nil
        instances[name]?.addresses = []
    }

    private mutating func resolved(_ name: String, host: String, port: UInt16, txt: [UInt8], now: Instant,
                                   _ out: inout [DNSSDAction]) {
        guard let i = instances[name] else { return }
        if i.host != host {
            out += [.cancel(.addresses(name)), .queryAddresses(instance: name, host: host)]
            instances[name]?.addresses = []
            instances[name]?.host = host
        }
        instances[name]?.port = port
        instances[name]?.txt = txt
        reconsider(name, now: now, &out)
    }

    private mutating func timeout(_ name: String, now: Instant, _ out: inout [DNSSDAction]) {
        guard let i = instances[name] else { return }
        switch i.resolve {
        case let .waiting(at) where now >= at:
            startResolve(name, now: now, &out)
        case let .resolving(deadline) where now >= deadline:
            // No resolve without a timeout: abandon it, try again later (Protocol.md §10).
            out += [.cancel(.resolve(name)), .cancel(.addresses(name))]
            hide(name, &out)
            retryLater(name, now: now)
        default:
            break
        }
    }

    private mutating func retryLater(_ name: String, now: Instant) {
        guard let delay = instances[name]?.retryDelay else { return }
        instances[name]?.resolve = .waiting(retryAt: now + delay)
        instances[name]?.retryDelay = min(delay * 2, timing.resolveRetryMax)
        instances[name]?.host = nil
        instances[name]?.txt = nil
        instances[name]?.addresses = []
    }

    /// Compares what is known of `name` with what was last reported, and reports the change.
    private mutating func reconsider(_ name: String, now: Instant, _ out: inout [DNSSDAction]) {
        guard let i = instances[name], let host = i.host, let raw = i.txt else { return }
        // A record without a valid id, ourselves, a name no player could show, or port 0 (no
        // listener to reach): not a peer; why is logged, at debug (ourselves aside).
        let txt: DNSSDTXT
        do { txt = try service.decodeOrThrow(raw) } catch {
            return drop(name, because: "\(error)", &out)
        }
        guard txt.instanceID != self.txt?.instanceID else { return drop(name, because: nil, &out) }
        guard (try? DisplayName(name)) != nil else { return drop(name, because: "not a valid display name", &out) }
        guard i.port != 0 else { return drop(name, because: "SRV port 0", &out) }
        guard !i.addresses.isEmpty else {
            // Answered before and every address went: gone until one returns. Still resolving
            // (perhaps afresh, with the old sighting shown): the deadline stands.
            if case .answered = i.resolve { hide(name, &out) }
            return
        }
        instances[name]?.dropped = nil
        let s = DNSSDSighting(instanceName: name, instanceID: txt.instanceID, hostTarget: host,
                              addresses: i.addresses.sorted(), port: i.port, versions: txt.versions,
                              state: txt.state, games: txt.games)
        instances[name]?.resolve = .answered
        instances[name]?.retryDelay = timing.resolveRetryFirst
        guard s != i.shown else { return }
        if let old = i.shown, old.instanceID != s.instanceID { hide(name, &out) } // another daemon
        instances[name]?.shown = s
        out.append(.emit(.up(s)))
    }

    /// An instance that is not a peer: hidden if it was shown, and why said once per record.
    private mutating func drop(_ name: String, because reason: String?, _ out: inout [DNSSDAction]) {
        let said = instances[name]?.dropped
        instances[name]?.resolve = .answered
        instances[name]?.dropped = reason
        hide(name, &out)
        if let reason, reason != said { out.append(.emit(.dropped(instanceName: name, reason: reason))) }
    }

    private mutating func hide(_ name: String, _ out: inout [DNSSDAction]) {
        guard let shown = instances[name]?.shown else { return }
        instances[name]?.shown = nil
        out.append(.emit(.down(instanceName: name, instanceID: shown.instanceID)))
    }
}
