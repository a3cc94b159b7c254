#if canImport(Glibc)
import TicTacAPI
import Glibc
#endif
import TicTacDaemon
import TicTacDiscovery
import TicTacEngine
import TicTacField
import TicTacFieldCore
import TicTacNet
import TicTacTTY
import TicTacTerminal

/// `tictac play`: a player with a daemon (and the field it also serves), or a local game.
public enum PlayApp {
    /// Runs until the player leaves; returns the exit status (130 after Ctrl-C, else 0).
    public static func run(_ config: PlayConfiguration) throws(AppFailure) -> Int32 {
        let setup = DaemonSetup(settings: config.daemon)
        let terminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 && !config.plain && !config.json
        let logNotice = try LogSetup.bootstrap(config.daemon.log, screen: terminal)
        if config.local { return try runLocal(config, setup: setup, terminal: terminal) }
        if let daemon = try ControlCall.open(setup) {
            // A `tictac daemon` keeps this state directory: its front, not a second daemon.
            let d = config.daemon
            if d.name != nil || d.port != 0 || !d.connect.isEmpty || config.moveTime != 120 {
                let line = "tictac: attached to the running tictac daemon: --name, --port, --connect and --move-time are its own "
                    + "(tictac daemon --stop, then start it with them)\n"
                _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            }
            guard terminal else { return try ControlCall.relay(daemon, json: config.json) }
            let reactor = try AppFailure.attempt(.osErr, nil) { try Reactor() }
            let screen = try AppFailure.attempt(.osErr, nil) {
                try AttachedScreen(reactor: reactor, connection: daemon, front: makeScreen(config))
            }
            try AppFailure.attempt(.osErr, nil) { try screen.run() }
            return screen.exitStatus
        }
        let peers = try setup.peers()
        let reactor = try AppFailure.attempt(.osErr, nil) { try Reactor() }
        let state = setup.openState()
        defer { state.close() } // what is logged is in the store when the command ends
        let daemon = try setup.makeDaemon(reactor: reactor, name: try setup.displayName(), capabilities: [.tictactoe],
                                          bot: nil, moveTime: .seconds(config.moveTime), state: state)
        let front = makeFront(config, terminal: terminal)
        // The same daemon serves the collaborative field: `f` in the lobby, `field` in plain mode.
        var system = SystemRandomNumberGenerator()
        let palette = FullScreenFieldFront.palette
        let core = FieldCore(id: daemon.config.instanceID, name: daemon.config.name,
                             x: Int32(system.next() % 1000), y: Int32(system.next() % 1000),
                             color: palette[Int(system.next() % UInt64(palette.count))])
        let fieldFront: FieldFront = terminal
            ? FullScreenFieldFront(depth: SpheresApp.colorDepth(noColor: config.noColor), fromLobby: true)
            : PlainFieldFront(json: config.json, readsInput: false, readyEvent: "field")
        let shell = try AppFailure.attempt(.unavailable, "cannot open the field's UDP socket") {
            try FieldShell(reactor: reactor, core: core)
        }
        let field = FieldSession(reactor: reactor, daemon: daemon, field: shell, front: fieldFront)
        (fieldFront as? PlainFieldFront)?.output = (front as? PlainFront)?.output // one stdout queue, in order
        let player = try AppFailure.attempt(.osErr, nil) { try NetworkPlayer(reactor: reactor, daemon: daemon, front: front, field: field) }
        let notice = setup.startDiscovery(daemon) { [unowned player] in player.notify($0) }
        state.notify = { [unowned player] in player.notify($0) }
        if config.daemon.discovery.dnssd, let presence = daemon.presence {
            // Published while the field is open; `_tictactoe._tcp`'s agent already tells of outages.
            field.dnssd = FieldDNSSD(agent: AvahiDNSSDAgent(reactor: reactor, service: .field), presence: presence)
        }
        let notices = (state.notices + [notice, logNotice].compactMap { $0 }).map { DaemonEvent.notice($0) }
        try AppFailure.attempt(.osErr, nil) { try player.run(connectTo: peers, notices: notices) }
        return player.exitStatus
    }

    /// Against the bot (or a second person) at this keyboard, no network.
    private static func runLocal(_ config: PlayConfiguration, setup: DaemonSetup, terminal: Bool) throws(AppFailure) -> Int32 {
        if config.hotSeat, !terminal {
            throw AppFailure(.usage, "--hotseat shares the full screen: standard input and output must be a terminal")
        }
        let match = LocalMatch(size: config.daemon.size, level: config.level, rng: setup.random.makeGenerator(),
                               budget: .nodes(Bot.defaultSearchNodes), moveTime: .seconds(config.moveTime), hotSeat: config.hotSeat,
                               playerTwo: config.playerTwo?.value)
        let reactor = try AppFailure.attempt(.osErr, nil) { try Reactor() }
        let runner = LocalGameRunner(reactor: reactor, match: match, front: makeFront(config, terminal: terminal))
        try AppFailure.attempt(.osErr, nil) { try runner.run() }
        return runner.exitStatus
    }

    /// Full screen in a terminal; plain lines for scripts, pipes and screen readers.
    private static func makeFront(_ config: PlayConfiguration, terminal: Bool) -> Front {
        terminal ? makeScreen(config) : PlainFront(json: config.json)
    }

    private static func makeScreen(_ config: PlayConfiguration) -> FullScreenFront {
        FullScreenFront(color: !config.noColor && getenv("NO_COLOR") == nil, hotSeat: config.hotSeat, playerOne: config.playerOne?.value)
    }
}
