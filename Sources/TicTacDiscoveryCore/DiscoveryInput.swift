import TicTacTime
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
    /// A source other than broadcast (DNS-SD) sees a peer, or sees it change; `via` names that
    /// one source.
    case sighted(PresencePeer)
    /// That source no longer sees the peer.
    case unsighted(ID128, via: PeerSources, reason: String)
    /// A connection to the peer was refused where the table says it listens (nothing listens
    /// there, or no route): it has left, and every view of it goes ("ben has left"), unless a
    /// signed ANNOUNCE of it was heard at or after `since` (the dial's start).
    case refused(ID128, since: Instant)
    /// Our own loop could not run for this long (the process was stopped): the peers'
    /// ANNOUNCEs of that time are read before any of them expires (Protocol.md §9).
    case stalled(Duration)
}

extension PresencePeer {
    /// The one adapter from DNS-SD to presence (Protocol.md §10, §11): a `_tictactoe._tcp`
    /// instance gives the game's port and its TXT's games; a `_spherenet._udp` instance gives the
    /// field's port and offers the field.
    public init(_ s: DNSSDSighting, service: DNSSDService) {
        switch service {
        case .tictactoe:
            self.init(id: s.instanceID, name: s.instanceName, addresses: s.addresses, port: s.port,
                      capabilities: s.games, versions: s.versions, state: s.state, via: .dnssd)
        case .field:
            self.init(id: s.instanceID, name: s.instanceName, addresses: s.addresses, port: 0, fieldPort: s.port,
                      capabilities: [.field], versions: s.versions, state: s.state, via: .fieldDNSSD)
        }
    }
}
