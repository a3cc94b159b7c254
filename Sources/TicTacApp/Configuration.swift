import Logging
import TicTacDiscovery
import TicTacEngine
import TicTacFieldCore
import TicTacWire

/// Where the log goes and how much of it (`--log-level`, `--log-file`).
public struct LogSettings: Sendable {
    public var level: Logger.Level
    /// Append the log to this file; nil: standard error.
    public var file: String?

    public init(level: Logger.Level = .warning, file: String? = nil) {
        self.level = level
        self.file = file
    }
}

/// How daemons find each other on the LAN (Protocol.md §7, §10).
public struct DiscoverySettings: Sendable {
    public var port: UInt16
    public var interval: Duration
    /// Announce only on these interfaces (all when empty).
    public var interfaces: [String]
    public var broadcast: Bool
    public var dnssd: Bool

    public init(port: UInt16 = PresenceService.defaultPort, interval: Duration = .seconds(2), interfaces: [String] = [],
                broadcast: Bool = true, dnssd: Bool = true) {
        self.port = port
        self.interval = interval
        self.interfaces = interfaces
        self.broadcast = broadcast
        self.dnssd = dnssd
    }
}

/// What every daemon command shares (README "Usage"), checked by the executable.
public struct DaemonSettings: Sendable {
    /// Nil: login@host, with the command's suffix after the login.
    public var name: DisplayName?
    public var port: UInt16 = 0
    /// Peers to dial, as HOST:PORT or [IPV6]:PORT.
    public var connect: [String] = []
    public var size: BoardSize = .classic
    /// A peer silent this long is gone.
    public var peerTimeout: Duration = .seconds(5)
    public var maxLinksPerAddress = 32
    /// Handshakes a second from one address (0: no limit), and four times as many from a prefix.
    public var maxHandshakesPerAddress = 32
    /// Watchers of our games served at most from one source address (Protocol.md §14).
    public var maxWatchersPerAddress = 8
    /// The key's file (`--identity`); nil: the state directory's.
    public var identityFile: String?
    /// `--state-dir`; nil: `$XDG_STATE_HOME/tictac`, else `~/.local/state/tictac`.
    public var stateDirectory: String?
    /// `--ephemeral` (also implied by `--seed`): a throwaway id and no history.
    public var ephemeral = false
    /// `--resume-window`: how long a game whose link was lost waits; zero: it ends.
    public var resumeWindow: Duration = .seconds(600)
    /// `--adjourn-limit`: how long a free player waits for a peer that stays away before the
    /// game is claimed (Protocol.md §13); zero: never.
    public var adjournLimit: Duration = .seconds(3600)
    /// Our games may be watched (`--no-spectators` clears it; Protocol.md §14).
    public var spectators = true
    /// Every random draw from this seed (a test option), else the system's.
    public var seed: UInt64?
    /// Append each version-2 link's traffic keys here (`--key-log`, `TICTAC_KEYLOG`).
    public var keyLogFile: String?
    public var discovery: DiscoverySettings
    public var log: LogSettings

    public init(name: DisplayName? = nil, discovery: DiscoverySettings = DiscoverySettings(), log: LogSettings = LogSettings()) {
        self.name = name
        self.discovery = discovery
        self.log = log
    }
}

/// `tictac play`.
public struct PlayConfiguration: Sendable {
    public var daemon: DaemonSettings
    /// Against the bot on this machine, no network.
    public var local = false
    public var level: BotLevel = .perfect
    /// Two people at one keyboard (with `local`).
    public var hotSeat = false
    /// The hot-seat players' names (`--name`, `--opponent-name`); nil: "Player 1", "Player 2".
    public var playerOne: DisplayName?
    public var playerTwo: DisplayName?
    public var plain = false
    public var json = false
    public var noColor = false
    /// Seconds asked for per move (0: none).
    public var moveTime = 120

    public init(daemon: DaemonSettings) { self.daemon = daemon }
}

/// `tictac bot`.
public struct BotConfiguration: Sendable {
    public var daemon: DaemonSettings
    public var level: BotLevel = .perfect
    public var maxGames: Int?
    public var json = false
    public var maxLargeGames = 2
    /// Games started with one peer within a minute at most (0: no limit).
    public var maxGamesPerPeer = 30
    /// Players the history has never seen, per address per hour (0: no limit).
    public var maxNewPlayersPerAddress = 20
    /// Seconds per move the bot asks for (0: no clock).
    public var moveTime = 120
    /// A Gomocup engine's command line (run by /bin/sh): the bot's moves on k = 5 boards.
    public var engine: String?
    /// Engine games at most at the same time (a process each).
    public var engineGames = 4
    /// Engine restarts after failures at most within any 10 minutes (EngineRestartRate).
    public var engineRestarts = 8
    /// An engine process's address space (MiB) and CPU time (seconds).
    public var engineMemoryMiB = 1024
    public var engineCPUSeconds = 3600
    /// `--engine-think`: seconds the engine is told it has per move.
    public var engineThinkSeconds = 5

    public init(daemon: DaemonSettings) { self.daemon = daemon }
}

/// `tictac spheres`.
public struct SpheresConfiguration: Sendable {
    public var name: DisplayName?
    /// Nil: one of the palette at random (and it gives way to a sphere that shows it).
    public var color: RGB?
    public var plain = false
    public var json = false
    /// A headless participant that wanders.
    public var bot = false
    public var noColor = false
    public var log = LogSettings()
    public var discovery = DiscoverySettings()

    public init() {}
}

/// `tictac peers`.
public struct PeersConfiguration: Sendable {
    public var timeout: Duration = .seconds(1)
    public var json = false
    public var logLevel: Logger.Level = .warning
    public var discovery = DiscoverySettings()

    public init() {}
}
