import TicTacWire

/// The one adapter from a DNS-SD agent's events to the presence table's inputs, for either
/// service: which source a sighting counts as, which port is which, and the instance names it
/// put in the table (a peer published under two names keeps its view until both are gone;
/// `forgetAll` takes every view out when the agent stops, as it says nothing after that).
public struct DNSSDSightings: Sendable {
    /// The service whose events this reads.
    public let service: DNSSDService
    /// Instance name -> the id its `.up` put in the table.
    private var seen: [String: ID128] = [:]

    /// An adapter for an agent browsing `service`.
    public init(service: DNSSDService) {
        self.service = service
    }

    /// The presence source this service's sightings count as.
    public var source: PeerSources { service == .tictactoe ? .dnssd : .fieldDNSSD }

    /// A resolved instance as the presence table takes it (PresencePeer's one mapping from DNS-SD).
    public func sighting(_ s: DNSSDSighting) -> PresencePeer { PresencePeer(s, service: service) }

    /// The inputs one event makes, in order; none for `.registered` and `.unavailable`, which
    /// are for the player, not the table.
    public mutating func inputs(for event: DNSSDEvent) -> [DiscoveryInput] {
        switch event {
        case let .up(s):
            var out: [DiscoveryInput] = []
            if let old = seen[s.instanceName], old != s.instanceID, !seen.contains(where: { $0.key != s.instanceName && $0.value == old }) {
                out.append(.unsighted(old, via: source, reason: "\(s.instanceName) is another peer now"))
            }
            seen[s.instanceName] = s.instanceID
            out.append(.sighted(sighting(s)))
            return out
        case let .down(name, id):
            if seen[name] == id { seen[name] = nil }
            // The same id still published under another name (a rename): its view stays.
            guard !seen.values.contains(id) else { return [] }
            let why = service == .tictactoe ? "\(name) is no longer published" : "\(name) no longer publishes the field"
            return [.unsighted(id, via: source, reason: why)]
        case .registered, .unavailable, .dropped:
            return []
        }
    }

    /// Takes out every view this adapter put in the table, each with "name: `reason`".
    public mutating func forgetAll(reason: String) -> [DiscoveryInput] {
        let all = seen.sorted { $0.key < $1.key }
        seen = [:]
        var gone = Set<ID128>()
        return all.compactMap { name, id in
            gone.insert(id).inserted ? .unsighted(id, via: source, reason: "\(name): \(reason)") : nil
        }
    }
}
