import TicTacTime
import TicTacWire

// The presence table's types: a peer, what the core tells and counts, what we announce, the
// limits (Protocol.md §7).

/// One peer on the LAN as discovery sees it (presence, not a connection).
public struct PresencePeer: Sendable, Equatable {
    public var id: ID128
    public var name: String
    /// Every address it was seen at, most recently heard first.
    public var addresses: [String]
    /// Its TCP listener (the one to dial).
    public var port: UInt16
    /// Its collaborative field's UDP port, 0 if none.
    public var fieldPort: UInt16
    public var capabilities: Capabilities
    public var versions: ClosedRange<UInt8>
    public var state: PresenceState
    public var via: PeerSources
    /// True when name, ports, state and offers come from a signed ANNOUNCE (Protocol.md §7):
    /// the peer holds the key of its id. False: a hint (version-1 ANNOUNCE, DNS-SD).
    public var signed: Bool
    /// The program playing under this name, as its ANNOUNCE says (field 13); nil: not said.
    public var program: String?

    public init(id: ID128, name: String, addresses: [String], port: UInt16, fieldPort: UInt16 = 0,
                capabilities: Capabilities, versions: ClosedRange<UInt8>, state: PresenceState,
                via: PeerSources, signed: Bool = false, program: String? = nil) {
        self.signed = signed
        self.program = program
        self.id = id
        self.name = name
        self.addresses = addresses
        self.port = port
        self.fieldPort = fieldPort
        self.capabilities = capabilities
        self.versions = versions
        self.state = state
        self.via = via
    }
}

/// What the daemon hears about the LAN.
public enum DiscoveryEvent: Sendable, Equatable {
    case found(PresencePeer)
    /// Its state, name, addresses, ports or sources changed.
    case updated(PresencePeer)
    case lost(PresencePeer, reason: String)
}

/// What the discovery shell must do.
public enum DiscoveryAction: Sendable, Equatable {
    /// Send these bytes to every suitable interface's broadcast address (Protocol.md §7).
    case broadcast([UInt8])
    case event(DiscoveryEvent)
}

/// Datagrams received, sent and refused, for logs and `tictac peers --json`.
public struct DiscoveryCounters: Sendable, Equatable {
    public var received = 0
    public var sent = 0
    /// Not one valid discovery datagram (bad frame, unknown type, bad field).
    public var malformed = 0
    /// A valid datagram that is not discovery (a SPHERE on the discovery port).
    public var unexpected = 0
    /// Our own broadcasts heard back (normal: not an error).
    public var own = 0
    /// Beyond the per-source rate (Protocol.md §7).
    public var rateLimited = 0
    /// A GOODBYE from an address its peer was never heard at.
    public var spoofedGoodbye = 0
    /// A new peer while the presence table is full of peers it may not evict, or beyond its
    /// source address's or prefix's share (`DiscoveryConfig.maxPeers`, `maxPerSource`, `maxPerPrefix`).
    public var tableFull = 0
    /// Peers evicted to make room for a newcomer (unsigned, least recently heard first).
    public var evicted = 0
    /// Signatures checked, and those that failed (wrong key, bad signature).
    public var verified = 0
    public var badSignature = 0
    /// Signed datagrams beyond the verification rate (per source, or all together).
    public var verifyLimited = 0
    /// A signed datagram not newer than the last accepted of its id (a replay).
    public var replayed = 0
    /// An unsigned ANNOUNCE or GOODBYE for an id known signed.
    public var unsigned = 0

    /// Datagrams dropped for any reason (own echoes excepted).
    public var dropped: Int {
        malformed + unexpected + rateLimited + spoofedGoodbye + tableFull + badSignature + verifyLimited + replayed + unsigned
    }
}

/// What this daemon announces about itself.
public struct LocalPresence: Sendable, Equatable {
    public var id: ID128
    public var name: DisplayName
    public var port: UInt16
    public var fieldPort: UInt16
    public var capabilities: Capabilities
    public var versions: ClosedRange<UInt8>
    public var state: PresenceState
    /// The program playing under our name (an engine bot's ABOUT), announced in field 13.
    public var program: DisplayName?

    public init(id: ID128, name: DisplayName, port: UInt16, fieldPort: UInt16 = 0, capabilities: Capabilities,
                versions: ClosedRange<UInt8> = ProtocolVersion.supported, state: PresenceState = .idle,
                program: DisplayName? = nil) {
        self.program = program
        self.id = id
        self.name = name
        self.port = port
        self.fieldPort = fieldPort
        self.capabilities = capabilities
        self.versions = versions
        self.state = state
    }
}

/// Timers and limits of broadcast discovery (Protocol.md §7 and §9).
public struct DiscoveryConfig: Sendable {
    public var interval: Duration = .seconds(2)
    /// Largest random delay before answering a QUERY.
    public var replyJitter: Duration = .milliseconds(100)
    /// Smallest gap between two ANNOUNCEs.
    public var minGap: Duration = .milliseconds(250)
    /// Per-source token bucket: datagrams per second, and the burst.
    public var ratePerSecond = 20
    public var rateBurst = 40
    /// Sources whose buckets are remembered; beyond it the idle ones are forgotten.
    public var maxSources = 4096
    /// Peers the presence table holds at most. A new one beyond it evicts an unsigned peer
    /// (heard once before renewed, least recently heard first), else a signed one the same way.
    public var maxPeers = 1024
    /// New ids one source address, and one /24 (IPv4) or /64 (IPv6) prefix, may hold in the
    /// table by broadcast, unsigned and signed: one host cannot fill it alone. Signed ones cost
    /// a verification each (at most `verifyPerSource` a second), and daemons sharing a host
    /// (loopback) are signed.
    public var maxPerSource = 16
    public var maxPerPrefix = 64
    public var maxSignedPerSource = 64
    public var maxSignedPerPrefix = 256
    /// The longest interval a peer's claim (ANNOUNCE field 9) keeps it for: expiry is three of
    /// min(its interval, this).
    public var maxPeerInterval: Duration = .seconds(10)
    /// Signatures checked per source address (per second, burst), and for all sources together
    /// per second: checked before a signature is, so a flood of bad ones costs bounded CPU.
    public var verifyPerSource = 5
    public var verifyBurst = 10
    public var verifyPerSecond = 1000
    /// How long the last signed timestamp of a peer that left or expired is kept (replays of
    /// its older datagrams refused, unsigned ones for its id too).
    public var stampMemory: Duration = .seconds(60)
    /// False for a look at the LAN (`tictac peers`): QUERY only, never ANNOUNCE or GOODBYE, so
    /// the look does not show up as a player.
    public var announces = true

    public init() {}
}

extension Duration {
    /// The whole duration in nanoseconds (saturating).
    var nanosecondsValue: Int64 {
        let (s, atto) = components
        return s.multipliedReportingOverflow(by: 1_000_000_000).overflow ? .max : s * 1_000_000_000 + atto / 1_000_000_000
    }
}
