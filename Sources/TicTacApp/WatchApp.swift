import Logging
import TicTacDaemon
import TicTacDaemonCore
import TicTacDiscovery
import TicTacNet
import TicTacWire

/// `tictac watch`.
public struct WatchConfiguration: Sendable {
    /// The player to follow (a name, an id or a prefix of 4+ hex digits); nil: list the games.
    public var player: String?
    /// Every game of the LAN at once, kept up as games start and end (`--all`).
    public var all = false
    /// One JSON object per line.
    public var json = false
    /// Following a player on a terminal: the board full screen (read-only), `q` quits.
    public var fullScreen = false
    /// ANSI colours on the full screen.
    public var color = true
    /// How long to look at the LAN before listing, or before saying the player is not there.
    public var timeout: Duration = .seconds(2)
    /// The watcher's own daemon: its name, `--connect`, discovery, the log (always ephemeral).
    public var daemon: DaemonSettings

    public init(daemon: DaemonSettings) { self.daemon = daemon }
}

/// `tictac watch`: a daemon of its own that offers no game (no lobby lists it), finds the
/// players by discovery without announcing itself, and asks them (Protocol.md §14).
public enum WatchApp {
    /// Status when the player cannot be watched (it allows no spectators, its game is full, it
    /// serves none): EX_UNAVAILABLE.
    public static let unavailableStatus: Int32 = 69

    public static func run(_ config: WatchConfiguration) throws(AppFailure) -> Int32 {
        var settings = config.daemon
        settings.ephemeral = true // a watcher keeps nothing
        if settings.name == nil { settings.name = try AppFailure.attempt(.usage, nil) { try DisplayName("watcher") } }
        let setup = DaemonSetup(settings: settings)
        try LogSetup.bootstrap(settings.log)
        let logger = Logger(label: "tictac.watch")
        let peers = try setup.peers()
        let reactor = try AppFailure.attempt(.osErr, nil) { try Reactor() }
        let daemon = try setup.makeDaemon(reactor: reactor, name: try setup.displayName(), capabilities: [], bot: nil)
        var discovery = settings.discovery.config
        discovery.announces = false // a watcher is nobody's opponent: it only looks (and QUERYs)
        do {
            try daemon.startDiscovery(port: settings.discovery.port, interfaces: settings.discovery.interfaces, config: discovery,
                                      broadcast: settings.discovery.broadcast, random: setup.random.fork(DaemonSetup.discoveryStream).makeGenerator())
        } catch {
            logger.warning("broadcast discovery unavailable (\(error)); players can still be reached with --connect")
        }
        if settings.discovery.dnssd {
            daemon.startDNSSD(AvahiDNSSDAgent(reactor: reactor, publishes: false)) { logger.info("\($0)") }
        }
        if config.all {
            let runner = WatchAllRunner(reactor: reactor, daemon: daemon, config: config) { logger.info("\($0)") }
            try AppFailure.attempt(.osErr, nil) { try runner.run(connectTo: peers) }
            return runner.exitStatus
        }
        let runner = WatchRunner(reactor: reactor, daemon: daemon, config: config) { logger.info("\($0)") }
        try AppFailure.attempt(.osErr, nil) { try runner.run(connectTo: peers) }
        return runner.exitStatus
    }
}
