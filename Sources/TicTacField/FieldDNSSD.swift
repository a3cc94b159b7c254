import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacWire
import TicTacFieldCore

/// The field over DNS-SD (Protocol.md §11): publishes our field as `_spherenet._udp` (the
/// seed's type: SRV port = the field's UDP port, TXT `id=`) through an agent made for that
/// service, and feeds the instances it browses into the presence table, so participants are
/// found where broadcast does not pass (segments joined by Avahi's reflector).
public final class FieldDNSSD {
    private let agent: DNSSDAgent
    private let discovery: BroadcastDiscovery
    /// Ids this agent put in the presence table: taken out again on `stop`, as the agent says
    /// nothing after it.
    private var sighted: [String: ID128] = [:]
    /// What the player should hear (DNS-SD unavailable, once per outage; a rename).
    public var onNotice: (String) -> Void = { _ in }
    public private(set) var isStarted = false
    private var requestedName = ""

    /// `agent` must browse `.field` (`AvahiDNSSDAgent(reactor:service: .field)`); `discovery` is
    /// the presence table the daemon and the field share.
    public init(agent: DNSSDAgent, discovery: BroadcastDiscovery) {
        self.agent = agent
        self.discovery = discovery
        agent.onEvent = { [unowned self] event in handle(event) }
    }

    /// Publishes our field under `name` (the responder may rename it) and starts browsing.
    public func start(name: String, id: ID128, fieldPort: UInt16) {
        guard !isStarted else { return }
        isStarted = true
        requestedName = name
        agent.start(name: name, port: fieldPort, txt: DNSSDTXT(instanceID: id, games: [.field]))
    }

    /// Unpublishes, stops browsing, and removes what it saw from the presence table.
    public func stop() {
        guard isStarted else { return }
        isStarted = false
        agent.stop()
        let seen = sighted
        sighted = [:]
        for (name, id) in seen.sorted(by: { $0.key < $1.key }) {
            discovery.unsighted(id, via: .fieldDNSSD, reason: "\(name): field browsing stopped")
        }
    }

    private func handle(_ event: DNSSDEvent) {
        switch event {
        case let .up(s):
            if let old = sighted[s.instanceName], old != s.instanceID {
                discovery.unsighted(old, via: .fieldDNSSD, reason: "\(s.instanceName) is another participant now")
            }
            sighted[s.instanceName] = s.instanceID
            discovery.sighted(Sighting(s, service: .field))
        case let .down(name, id):
            if sighted[name] == id { sighted[name] = nil }
            // The same id may still be published under another name (a rename): keep its view then.
            guard !sighted.values.contains(id) else { return }
            discovery.unsighted(id, via: .fieldDNSSD, reason: "\(name) no longer publishes the field")
        case let .registered(name):
            if name != requestedName { onNotice("The field is published by DNS-SD as \"\(name)\" (the name was taken)") }
        case let .unavailable(text):
            onNotice(text)
        }
    }
}
