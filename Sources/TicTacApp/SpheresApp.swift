#if canImport(Glibc)
import Glibc
#endif
import TicTacDaemon
import TicTacDiscovery
import TicTacField
import TicTacFieldCore
import TicTacNet
import TicTacTTY
import TicTacTerminal

/// `tictac spheres`: a daemon that takes part in the collaborative field only.
public enum SpheresApp {
    /// Runs until the player leaves; returns the exit status (130 after Ctrl-C, else 0).
    public static func run(_ config: SpheresConfiguration) throws(AppFailure) -> Int32 {
        let setup = DaemonSetup(settings: DaemonSettings(name: config.name, discovery: config.discovery, log: config.log))
        try LogSetup.bootstrap(config.log)
        var system = SystemRandomNumberGenerator()
        let displayName = try setup.displayName(suffix: config.bot ? "-wanderer" : "")
        let reactor = try AppFailure.attempt(.osErr, nil) { try Reactor() }
        let daemon = try setup.makeDaemon(reactor: reactor, name: displayName, capabilities: [.field], bot: nil)
        let palette = FullScreenFieldFront.palette
        let core = FieldCore(id: daemon.config.instanceID, name: displayName,
                             x: Int32(system.next() % 1000), y: Int32(system.next() % 1000),
                             color: config.color ?? palette[Int(system.next() % UInt64(palette.count))])
        let field = try AppFailure.attempt(.unavailable, "cannot open the field's UDP socket") {
            try FieldShell(reactor: reactor, core: core)
        }
        var notices: [String] = []
        let d = config.discovery
        do {
            try daemon.startDiscovery(port: d.port, interfaces: d.interfaces, config: d.config, fieldPort: field.port,
                                      broadcast: d.broadcast, random: system)
        } catch {
            notices.append("broadcast discovery unavailable (\(error)): no one can be found")
        }
        let terminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 && !config.plain && !config.json && !config.bot
        let front: FieldFront = terminal
            ? FullScreenFieldFront(depth: colorDepth(noColor: config.noColor))
            : PlainFieldFront(json: config.json, readsInput: !config.bot)
        let runner = SpheresRunner(reactor: reactor, daemon: daemon, field: field, front: front, wander: config.bot)
        runner.colors.chosen = config.color != nil
        // The field by DNS-SD too (`_spherenet._udp`, Protocol.md §11): found across the reflector.
        if d.dnssd, let presence = daemon.presence {
            runner.dnssd = FieldDNSSD(agent: AvahiDNSSDAgent(reactor: reactor, service: .field), presence: presence)
        }
        try AppFailure.attempt(.osErr, nil) { try runner.run(notices: notices) }
        return runner.exitStatus
    }

    /// The terminal's colours from the flag and the environment (NO_COLOR, COLORTERM, TERM).
    static func colorDepth(noColor: Bool) -> ColorDepth {
        ColorDepth.detect(noColor: noColor || getenv("NO_COLOR") != nil,
                          colorterm: getenv("COLORTERM").map { String(cString: $0) },
                          term: getenv("TERM").map { String(cString: $0) })
    }
}
