import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacWire
import TicTacFieldCore

/// The field over DNS-SD (Protocol.md §11): publishes our field as `_spherenet._udp` (the
/// seed's type: SRV port = the field's UDP port, TXT `id=`) through an agent made for that
/// service, attached to the presence table (which reads what it browses), so participants are
/// found where broadcast does not pass (segments joined by Avahi's reflector).
public final class FieldDNSSD {
    private let agent: DNSSDAgent
    private let presence: PresenceService
    /// What the player should hear (DNS-SD unavailable, once per outage; a rename).
    public var onNotice: (String) -> Void = { _ in }
    public private(set) var isStarted = false
    private var requestedName = ""

    /// `agent` must browse `.field` (`AvahiDNSSDAgent(reactor:service: .field)`); `presence` is
    /// the table the daemon and the field share.
    public init(agent: DNSSDAgent, presence: PresenceService) {
        self.agent = agent
        self.presence = presence
        presence.attach(agent, service: .field) { [unowned self] event in notice(event) }
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
        presence.forgetSightings(of: agent, reason: "field browsing stopped")
    }

    private func notice(_ event: DNSSDEvent) {
        switch event {
        case let .registered(name):
            if let why = DNSSDCore.renameReason(requested: requestedName, registered: name) {
                onNotice("The field is published by DNS-SD as \"\(name)\" (\(why))")
            }
        case let .unavailable(text):
            onNotice(text)
        case .up, .down, .dropped:
            break // the presence table's
        }
    }
}
