import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacNet

/// Discovery's two ways in (Protocol.md §7 broadcast, §10 DNS-SD), both feeding the core's
/// presence table.
extension Daemon {
    /// Starts broadcast discovery on `port` (Protocol.md §7): announces this daemon and feeds
    /// what it hears to the core's presence table. `fieldPort`: the collaborative field's UDP
    /// port to announce (0: none).
    public func startDiscovery(port: UInt16 = PresenceService.defaultPort, interfaces: [String] = [],
                               config: DiscoveryConfig = DiscoveryConfig(), fieldPort: UInt16 = 0,
                               broadcast: Bool = true, random: any RandomNumberGenerator) throws(NetError) {
        let local = LocalPresence(id: core.config.instanceID, name: core.config.name, port: self.port,
                                  fieldPort: fieldPort, capabilities: core.config.capabilities,
                                  state: core.presenceState, program: core.config.program)
        let d = try PresenceService(reactor: reactor, local: local, port: port, interfaces: interfaces,
                                    config: config, broadcast: broadcast,
                                    key: PresenceKey(privateKey: core.config.identity.privateKey), random: random)
        d.onEvent = { [weak self] event in
            guard let self else { return }
            core.handle(.presence(event), now: reactor.now)
            apply()
            onPresence(event)
        }
        presenceService = d
        _ = core.presenceChanged() // what `local` announces: later changes are reported from here
        d.start()
    }

    /// Publishes this daemon and browses for peers with DNS-SD (Protocol.md §10) through `agent`;
    /// its sightings join the presence table of `startDiscovery` (call that first). `onNotice`
    /// hears what the player should know: DNS-SD unavailable (once per outage), our final name.
    public func startDNSSD(_ agent: DNSSDAgent, onNotice: @escaping (String) -> Void) {
        guard let presence else { return }
        presence.attach(agent, service: .tictactoe) { [unowned self] event in
            switch event {
            case let .registered(name):
                if let why = DNSSDCore.renameReason(requested: core.config.name.value, registered: name) {
                    onNotice("Published by DNS-SD as \"\(name)\" (\(why))")
                }
            case let .unavailable(text):
                onNotice(text)
            case .up, .down, .dropped:
                break // the presence table's
            }
        }
        dnssd = agent
        // The TXT's `st` and `g` follow what the ANNOUNCE says, whoever changes it (the field).
        presence.onLocalChange = { [weak agent] local in agent?.update(txt: DNSSDTXT(local)) }
        agent.start(name: core.config.name.value, port: port, txt: DNSSDTXT(presence.local))
    }
}
