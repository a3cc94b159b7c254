import Logging
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacJSON
import TicTacNet
import TicTacWire

/// `tictac peers`: listens for the daemons of the LAN for a while and prints them.
public enum PeersApp {
    public static func run(_ config: PeersConfiguration) throws(AppFailure) {
        var logger = Logger(label: "tictac.peers")
        logger.logLevel = config.logLevel
        let reactor = try AppFailure.attempt(.osErr, nil) { try Reactor() }
        var system = SystemRandomNumberGenerator()
        var discoveryConfig = config.discovery.config
        discoveryConfig.announces = false
        let name = try AppFailure.attempt(.usage, nil) { try DisplayName("peers") }
        let local = LocalPresence(id: ID128.random(using: &system), name: name, port: 1, capabilities: [])
        let port = config.discovery.port
        let look = try AppFailure.attempt(.unavailable, "cannot listen for discovery on UDP port \(port)") {
            try PresenceService(reactor: reactor, local: local, port: port, interfaces: config.discovery.interfaces,
                                config: discoveryConfig, broadcast: config.discovery.broadcast, random: system)
        }
        look.onDebug = { [logger] in logger.debug("\($0)") } // why a DNS-SD record is not a peer
        look.start()
        // DNS-SD too (browse only): daemons beyond the broadcast domain, e.g. across a reflector.
        var dnssd: AvahiDNSSDAgent?
        if config.discovery.dnssd {
            let agent = AvahiDNSSDAgent(reactor: reactor, publishes: false)
            look.attach(agent, service: .tictactoe) { event in
                if case let .unavailable(text) = event { logger.info("\(text)") }
            }
            agent.start(name: "peers", port: 1, txt: DNSSDTXT(instanceID: local.id))
            dnssd = agent
        }
        reactor.schedule(after: config.timeout) { reactor.stop() }
        try AppFailure.attempt(.osErr, nil) { try reactor.run() }
        let found = look.core.peers
        let c = look.core.counters
        logger.debug("datagrams: received \(c.received), malformed \(c.malformed), unexpected \(c.unexpected), rate-limited \(c.rateLimited), spoofed goodbye \(c.spoofedGoodbye), table full \(c.tableFull)")
        dnssd?.stop()
        look.stop()
        if config.json {
            let list = found.map { p -> JSON in
                .object([("id", .string(p.id.description)), ("name", .string(p.name)), ("kind", .string(kind(p.capabilities))),
                         ("program", p.program.map { .string($0) } ?? .null),
                         ("addresses", .array(p.addresses.map { .string($0) })), ("port", .int(Int(p.port))),
                         ("state", .string(p.state.description)), ("via", .array(p.via.names.map { .string($0) }))])
            }
            print(JSON.array(list).serialized)
        } else if found.isEmpty {
            print("No peers answered within \(seconds(config.timeout)) s.")
        } else {
            for line in table(found) { print(line) }
        }
    }

    /// One row per peer under a header, each column as wide as its widest cell.
    static func table(_ peers: [PresencePeer]) -> [String] {
        let header = ["NAME", "ID", "KIND", "ADDRESSES", "PORT", "STATE", "FOUND BY"]
        let rows = peers.map { p in
            [p.name, String(p.id.description.prefix(8)), kind(p.capabilities) + (p.program.map { ": \($0)" } ?? ""), p.addresses.joined(separator: ","),
             String(p.port), p.state.description, p.via.names.joined(separator: ", ")]
        }
        let widths = header.indices.map { i in ([header] + rows).map { $0[i].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            row.indices.map { i in i == row.count - 1 ? row[i] : row[i] + String(repeating: " ", count: widths[i] - row[i].count) }
                .joined(separator: "  ")
        }
    }

    /// What a peer is, from its capabilities: a bot, a player, or only in the field.
    static func kind(_ c: Capabilities) -> String {
        if c.contains(.bot) { return "bot" }
        if c.contains(.tictactoe) { return "player" }
        return c.contains(.field) ? "field" : "other"
    }

    /// `--timeout` as it was typed (a Double: 1.0, 0.5).
    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
