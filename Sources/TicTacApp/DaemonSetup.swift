#if canImport(Glibc)
import Glibc
#endif
import Logging
import TicTacDaemon
import TicTacDaemonCore
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacEngine
import TicTacNet
import TicTacPbrain
import TicTacWire

/// A daemon made from `DaemonSettings`: its name, its key, its randomness, discovery.
struct DaemonSetup {
    let settings: DaemonSettings

    /// Labels of the forked random streams (`RandomSource.fork`): what discovery or an identity
    /// file draws never shifts what the daemon core draws, so a replay can run the core alone.
    static let identityStream: UInt64 = 0x6964, discoveryStream: UInt64 = 0x6469

    /// Where all the daemon's randomness comes from: the system, or (`--seed`, for captures
    /// that replay byte for byte) generators derived from the seed.
    var random: RandomSource { RandomSource(seed: settings.seed) }

    /// `--name`, else login@host with `suffix` after the login (`-bot`: ann-bot@box).
    func displayName(suffix: String = "") throws(AppFailure) -> DisplayName {
        if let name = settings.name { return name }
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let hostName = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let user = getenv("USER").map { String(cString: $0) } ?? getlogin().map { String(cString: $0) } ?? "player"
        let trimmed = String("\(user)\(suffix)@\(hostName)".utf8.prefix(DisplayName.maxBytes)) ?? "player"
        if let name = try? DisplayName(trimmed) { return name }
        return try AppFailure.attempt(.usage, nil) { try DisplayName("player") } // a host name we cannot show
    }

    /// Each `--connect` peer with every address its name resolves to (tried in order). Before
    /// the loop runs, so a name that does not resolve ends the start (README: status 68).
    func peers() throws(AppFailure) -> [[SocketAddress]] {
        try settings.connect.map { text throws(AppFailure) in
            do throws(AddressError) {
                return try SocketAddress.resolve(text)
            } catch {
                // A mistyped HOST:PORT is a usage mistake; a name that does not resolve is not.
                if case .syntax = error { throw AppFailure(.usage, error.description) }
                throw AppFailure(.noHost, "--connect: \(error)")
            }
        }
    }

    /// What this run keeps: nothing with `--ephemeral` or `--seed` (a test's seeded key must
    /// come from the seed), else the state directory (`--state-dir`, or the default with `place`
    /// under it: the bot's `bot`, so a bot and a player on one host each keep their own id and
    /// history instead of one getting a throwaway id).
    func openState(place: String? = nil) -> DaemonState {
        if settings.ephemeral || settings.seed != nil { return DaemonState() }
        return DaemonState(path: statePath(place: place))
    }

    /// The state directory's path (nil: no environment to place it in).
    func statePath(place: String? = nil) -> String? {
        var env: [String: String] = [:]
        for name in ["XDG_STATE_HOME", "HOME"] { env[name] = getenv(name).map { String(cString: $0) } }
        let home = StateDirectory.defaultPath(environment: env)
        return settings.stateDirectory ?? home.map { path in place.map { path + "/" + $0 } ?? path }
    }

    /// The control socket of a `tictac daemon` on this state directory (ControlPath), nil with
    /// `--ephemeral` or `--seed` (they keep no state directory to share).
    var controlSocket: String? {
        settings.ephemeral || settings.seed != nil ? nil : ControlPath.socket(state: statePath())
    }

    /// The daemon, with what it keeps (`state`: its notices are for the player).
    func makeDaemon(reactor: Reactor, name: DisplayName, capabilities: Capabilities, bot: Bot?,
                    moveTime: Duration = .seconds(120), maxLargeGames: Int = 2, maxGamesPerPeer: Int = 30,
                    gameEvents: GameEventKinds = .all, engine: EngineBoards? = nil, state: DaemonState? = nil,
                    program: DisplayName? = nil, maxBotGames: Int? = nil, maxNewPlayers: Int = 20) throws(AppFailure) -> Daemon {
        let random = random
        var keyRandom = random.fork(Self.identityStream).makeGenerator()
        let keyFile = settings.identityFile ?? state?.directory?.identityPath
        if let keyFile, let state, access(keyFile, F_OK) != 0, errno == ENOENT { try state.identityMissing(keyFile) }
        let key = try keyFile.map { path throws(AppFailure) in
            try AppFailure.attempt(.config, nil) { try IdentityFile.loadOrCreate(path: path, using: &keyRandom) }
        }
        var config = DaemonConfig(identity: key, name: name, capabilities: capabilities, makeRandom: random.makeGenerator)
        config.size = settings.size
        config.deadAfter = settings.peerTimeout
        config.player = bot.map { .bot($0, engine: engine) } ?? .human
        config.program = program
        config.moveTime = moveTime
        config.maxLargeGamesPerAddress = maxLargeGames
        config.maxGamesPerPeerPerMinute = maxGamesPerPeer
        config.maxBotGames = maxBotGames
        config.maxNewPlayersPerAddressPerHour = maxNewPlayers
        config.gameEvents = gameEvents
        config.resumeWindow = settings.resumeWindow
        config.adjournLimit = settings.adjournLimit
        if let state, state.store != nil {
            config.keepsHistory = true
            config.scores = state.scores()
            (config.restored, config.restoredEnds) = state.resumable(limit: 2 * config.maxKeptGames, rematchDelay: config.rematchDelay,
                                                                     moveTime: config.moveTime, makeRandom: config.makeRandom)
        }
        // `--resume-window 0`: games end with their link, so none is claimed as resumable.
        if settings.resumeWindow > .zero, bot != nil || capabilities.contains(.tictactoe) {
            config.capabilities.formUnion([.resume, .rollResume, .claims])
        }
        // Rolls without RESET and ROLL_ACK with a peer that rolls so too (Protocol.md §8).
        if bot != nil || capabilities.contains(.tictactoe) { config.capabilities.insert(.quickRoll) }
        // Watchers are served by players' daemons that allow them (Protocol.md §14).
        config.spectators = settings.spectators
        config.maxWatchersPerAddress = settings.maxWatchersPerAddress
        config.maxHandshakesPerAddressPerSecond = settings.maxHandshakesPerAddress
        config.maxHandshakesPerPrefixPerSecond = settings.maxHandshakesPerAddress * 4
        if settings.spectators, bot != nil || capabilities.contains(.tictactoe) { config.capabilities.insert(.spectators) }
        let keyLog = try settings.keyLogFile.map { path throws(AppFailure) in try KeyLogFile(path: path) }
        config.logsKeys = keyLog != nil
        let port = settings.port
        let daemon = try AppFailure.attempt(.unavailable, "cannot listen on TCP port \(port)") {
            try Daemon(reactor: reactor, config: config, port: port)
        }
        daemon.maxLinksPerAddress = settings.maxLinksPerAddress
        if let keyLog { daemon.onKeys = { keyLog.append($0) } }
        let logger = Logger(label: "tictac.daemon")
        daemon.onLog = { logger.notice("\($0)") }
        daemon.onEngineNote = { logger.info("\($0)") }
        if let state, state.store != nil {
            let us = config.instanceID
            daemon.onRecord = { state.record($0, us: us) } // the closure keeps the state (and its lock) alive
        } else if let state {
            daemon.onRecord = { _ in _ = state; return true } // the directory's lock lives as long as the daemon
        }
        return daemon
    }

    /// Starts the presence table on `daemon` (broadcast unless --no-broadcast, then DNS-SD unless
    /// --no-dnssd; with neither it still exists, empty); a failure is a notice for the player, not
    /// the end: peers can still be reached with --connect. Later notices (DNS-SD coming and
    /// going) go to `notify`.
    func startDiscovery(_ daemon: Daemon, fieldPort: UInt16 = 0, notify: @escaping (String) -> Void) -> String? {
        let d = settings.discovery
        do {
            try daemon.startDiscovery(port: d.port, interfaces: d.interfaces, config: d.config, fieldPort: fieldPort,
                                      broadcast: d.broadcast, random: random.fork(Self.discoveryStream).makeGenerator())
        } catch {
            return "broadcast discovery unavailable (\(error)); peers can still be reached with --connect"
        }
        daemon.presence?.onDebug = { Logger(label: "tictac.discovery").debug("\($0)") }
        if d.dnssd { daemon.startDNSSD(AvahiDNSSDAgent(reactor: daemon.reactor), onNotice: notify) }
        return nil
    }
}

extension DiscoverySettings {
    /// What the discovery core is given.
    var config: DiscoveryConfig {
        var c = DiscoveryConfig()
        c.interval = interval
        return c
    }
}
