import TicTacWire

/// A peer as DNS-SD describes it: a resolved `_tictactoe._tcp` instance (Protocol.md §10).
public struct DNSSDSighting: Sendable, Hashable {
    /// The service instance name (the peer's display name, perhaps renamed: "Ann #2").
    public var instanceName: String
    /// From the TXT record's `id`: the key to merge by.
    public var instanceID: ID128
    /// The SRV record's target host ("ann-laptop.local.").
    public var hostTarget: String
    /// Every address of the host target, sorted: IPv4 dotted, IPv6 colon form; an IPv6 link-local
    /// address carries its interface index as scope ("fe80::1%3").
    public var addresses: [String]
    /// The TCP port of the peer's listener (SRV).
    public var port: UInt16
    /// From the TXT record: protocol versions (`v`), state (`st`), game kinds (`g`).
    public var versions: ClosedRange<UInt8>
    public var state: PresenceState
    public var games: Capabilities

    /// A sighting with every field given.
    public init(instanceName: String, instanceID: ID128, hostTarget: String, addresses: [String],
                port: UInt16, versions: ClosedRange<UInt8>, state: PresenceState, games: Capabilities) {
        self.instanceName = instanceName
        self.instanceID = instanceID
        self.hostTarget = hostTarget
        self.addresses = addresses
        self.port = port
        self.versions = versions
        self.state = state
        self.games = games
    }
}

/// What a DNS-SD agent reports. Free of daemon logic: the discovery core merges these with the
/// broadcast sightings by instance id.
public enum DNSSDEvent: Sendable, Hashable {
    /// A peer is there, or something about it changed (a later `.up` replaces an earlier one
    /// with the same instance name).
    case up(DNSSDSighting)
    /// A peer announced with `.up` is gone from DNS-SD.
    case down(instanceName: String, instanceID: ID128)
    /// Our service is published under this name (after any rename on a conflict).
    case registered(String)
    /// DNS-SD cannot be used for now; the agent retries on its own. Reported once per outage;
    /// the text is the line to show the user.
    case unavailable(String)
    /// An instance whose records do not describe a peer (Protocol.md §10), and why: for a
    /// debug log, said once per reason.
    case dropped(instanceName: String, reason: String)
}

/// Publishes our service and browses for peers. Implementations: `AvahiDNSSDAgent` (Avahi's
/// dns_sd compatibility library) and `FakeDNSSDAgent` (TicTacTestSupport, for tests).
public protocol DNSSDAgent: AnyObject {
    /// Receives every event, on the thread that drives the agent.
    var onEvent: ((DNSSDEvent) -> Void)? { get set }
    /// Registers `name` (the display name; the responder may rename it) with our TCP `port` and
    /// `txt`, and starts browsing. Failures are reported as events, never thrown.
    func start(name: String, port: UInt16, txt: DNSSDTXT)
    /// Replaces the published TXT record (state or game kinds changed).
    func update(txt: DNSSDTXT)
    /// Unpublishes, stops browsing, releases everything. No events follow.
    func stop()
}
