import TicTacWire

/// What the discovery core is told from outside.
public enum DiscoveryInput: Sendable, Equatable {
    /// Start announcing: an ANNOUNCE, then a QUERY so the daemons already there answer at once.
    case start
    /// This daemon changed (state, name, ports): announced at once, within the minimum gap.
    case update(LocalPresence)
    /// Say GOODBYE (a clean exit) and stop announcing.
    case stop
    /// A datagram arrived on the discovery port from an address (no port).
    case datagram([UInt8], from: String)
    /// A source other than broadcast (DNS-SD) sees a peer, or sees it change.
    case sighted(Sighting)
    /// That source no longer sees the peer.
    case unsighted(ID128, via: PeerSources, reason: String)
}

/// A peer as a source other than broadcast sees it: the one shape every such source (the game's
/// and the field's DNS-SD browsing) gives the presence table.
public struct Sighting: Sendable, Equatable {
    public var id: ID128
    public var via: PeerSources
    public var name: String
    public var addresses: [String]
    /// The game's TCP port (0: none).
    public var port: UInt16
    /// The field's UDP port (0: none).
    public var fieldPort: UInt16
    public var capabilities: Capabilities
    public var versions: ClosedRange<UInt8>
    public var state: PresenceState

    public init(id: ID128, via: PeerSources, name: String, addresses: [String], port: UInt16, fieldPort: UInt16 = 0,
                capabilities: Capabilities, versions: ClosedRange<UInt8>, state: PresenceState) {
        self.id = id
        self.via = via
        self.name = name
        self.addresses = addresses
        self.port = port
        self.fieldPort = fieldPort
        self.capabilities = capabilities
        self.versions = versions
        self.state = state
    }

    /// The one adapter from DNS-SD to presence (Protocol.md §10, §11): a `_tictactoe._tcp`
    /// instance gives the game's port and its TXT's games; a `_spherenet._udp` instance gives the
    /// field's port and offers the field.
    public init(_ s: DNSSDSighting, service: DNSSDService) {
        switch service {
        case .tictactoe:
            self.init(id: s.instanceID, via: .dnssd, name: s.instanceName, addresses: s.addresses, port: s.port,
                      capabilities: s.games, versions: s.versions, state: s.state)
        case .field:
            self.init(id: s.instanceID, via: .fieldDNSSD, name: s.instanceName, addresses: s.addresses, port: 0,
                      fieldPort: s.port, capabilities: [.field], versions: s.versions, state: s.state)
        }
    }
}
