import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Logging
import TicTacDaemon
import TicTacDaemonCore
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacEngine
import TicTacField
import TicTacFieldCore
import TicTacNet
import TicTacReplay
import TicTacTerminal
import TicTacWire
import TicTacTime

@main
struct TicTac: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tictac",
        abstract: "A peer-to-peer LAN game daemon: tic-tac-toe in the terminal.",
        version: "tictac 0.2.0 (protocol versions \(ProtocolVersion.supported.lowerBound)-\(ProtocolVersion.supported.upperBound))",
        subcommands: [Play.self, BotCommand.self, PeersCommand.self, SpheresCommand.self, ReplayCommand.self]
    )
}

extension BotLevel: ExpressibleByArgument {}

/// Options every daemon command shares.
struct DaemonOptions: ParsableArguments {
    @Option(help: "Your display name (1-64 bytes, no control characters). Default: login@host.")
    var name: String?

    @Option(parsing: .unconditional, help: "TCP port to listen on (0-65535; 0: the system picks one).")
    var port = 0

    @Option(help: ArgumentHelp("A peer to connect to, as HOST:PORT or [IPV6]:PORT (repeatable).", valueName: "host:port"))
    var connect: [String] = []

    @Option(parsing: .unconditional, help: "Board rows (3-20) for invitations you send.")
    var rows = 3

    @Option(parsing: .unconditional, help: "Board columns (3-20) for invitations you send.")
    var cols = 3

    @Option(parsing: .unconditional, help: "Pieces in a row that win (3 up to the longer side).")
    var k = 3

    @Option(parsing: .unconditional, help: ArgumentHelp("A peer silent this long (2-300) is gone; PING goes after 1 s of silence.",
                               valueName: "seconds"))
    var peerTimeout = 5

    @Option(parsing: .unconditional, help: ArgumentHelp("Connections at most from one address (1-65536); one more is told ERROR busy.",
                               valueName: "n"))
    var maxLinksPerAddress = 32

    @Option(help: ArgumentHelp("""
        Keep this daemon's key (and so its instance id) in FILE: read it, or create it \
        (mode 0600) when missing. Suggested: $XDG_STATE_HOME/tictac/identity \
        (~/.local/state/tictac/identity). Without it, a fresh key per run.
        """, valueName: "file"))
    var identity: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (on standard error, or --log-file).")
    var logLevel: Logger.Level = .warning

    @Option(help: ArgumentHelp("Append the log to FILE instead of standard error (play's full screen otherwise has no log).",
                               valueName: "file"))
    var logFile: String?

    @Option(help: .hidden)
    var seed: UInt64?

    @OptionGroup var discovery: DiscoveryOptions

    /// Where all the daemon's randomness comes from: the system, or (test option `--seed`,
    /// for captures that replay byte for byte) generators derived from the seed.
    var randomSource: RandomSource { RandomSource(seed: seed) }

    func validate() throws {
        if seed != nil, getenv("TICTAC_TEST_SEED_OK").map({ String(cString: $0) }) != "1" {
            // A seeded daemon's key and rolls are guessable: only for test captures.
            throw ValidationError("--seed is a test option (a seeded identity is guessable); it needs TICTAC_TEST_SEED_OK=1")
        }
        if let name { _ = try checked(try DisplayName(name)) }
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be 0 to 65535 (0: the system picks one), not \(port)")
        }
        guard (1...65536).contains(maxLinksPerAddress) else {
            throw ValidationError("--max-links-per-address must be 1 to 65536")
        }
        guard (2...300).contains(peerTimeout) else {
            throw ValidationError("--peer-timeout must be 2 to 300 seconds")
        }
        _ = try boardSize()
        for peer in connect {
            // A mistyped HOST:PORT is a usage error; a name that does not resolve is not (run
            // says so in one line, EX_NOHOST).
            do { _ = try SocketAddress.resolve(peer) } catch { if case .syntax = error { throw ValidationError(error.description) } }
        }
    }

    func boardSize() throws -> BoardSize { try checked(BoardSize(rows: rows, cols: cols, k: k)) }

    func displayName(default suffix: String = "") throws -> DisplayName {
        if let name { return try checked(DisplayName(name)) }
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let hostName = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let user = getenv("USER").map { String(cString: $0) } ?? getlogin().map { String(cString: $0) } ?? "player"
        let proposed = "\(user)\(suffix)@\(hostName)"
        let trimmed = String(proposed.utf8.prefix(DisplayName.maxBytes)) ?? "player"
        if let n = try? DisplayName(trimmed) { return n }
        return try checked(try DisplayName("player")) // a host name we cannot show

    }

    /// Each `--connect` peer with every address its name resolves to (tried in order).
    func peers() throws -> [[SocketAddress]] {
        try connect.map { try running(.noHost, "--connect", SocketAddress.resolve($0)) }
    }

    func makeDaemon(reactor: Reactor, random: RandomSource, name: DisplayName, capabilities: Capabilities, bot: Bot?,
                    moveTime: Duration = .seconds(120), maxLargeGames: Int = 2, gameEvents: GameEventKinds = .all) throws -> Daemon {
        var keyRandom = random.fork(DaemonOptions.identityStream).makeGenerator()
        let key = try identity.map { path in try running(.config, nil, IdentityFile.loadOrCreate(path: path, using: &keyRandom)) }
        var config = DaemonConfig(identity: key, name: name, capabilities: capabilities,
                                  makeRandom: random.makeGenerator)
        config.size = try boardSize()
        config.deadAfter = .seconds(peerTimeout)
        config.bot = bot
        config.moveTime = moveTime
        config.maxLargeGamesPerAddress = maxLargeGames
        config.gameEvents = gameEvents
        let daemon = try running(.unavailable, "cannot listen on TCP port \(port)",
                                 Daemon(reactor: reactor, config: config, port: UInt16(clamping: port)))
        daemon.maxLinksPerAddress = maxLinksPerAddress
        let logger = Logger(label: "tictac.daemon")
        daemon.onLog = { logger.notice("\($0)") }
        return daemon
    }

    /// Labels of the forked random streams (`RandomSource.fork`): what discovery or an identity
    /// file draws never shifts what the daemon core draws, so a replay can run the core alone.
    static let identityStream: UInt64 = 0x6964, discoveryStream: UInt64 = 0x6469

    /// Starts discovery on `daemon` (broadcast, then DNS-SD); a failure is a notice for the
    /// player, not the end: peers can still be reached with --connect. Later notices (DNS-SD
    /// coming and going) go to `notify`.
    func startDiscovery(_ daemon: Daemon, random: RandomSource, fieldPort: UInt16 = 0,
                        notify: @escaping (String) -> Void) -> String? {
        guard !discovery.noBroadcast || !discovery.noDnssd else { return nil }
        do {
            try daemon.startDiscovery(port: discovery.discoveryPort, interfaces: discovery.interface,
                                      config: discovery.config(), fieldPort: fieldPort,
                                      broadcast: !discovery.noBroadcast,
                                      random: random.fork(DaemonOptions.discoveryStream).makeGenerator())
        } catch {
            return "broadcast discovery unavailable (\(error)); peers can still be reached with --connect"
        }
        if !discovery.noDnssd { daemon.startDNSSD(AvahiDNSSDAgent(reactor: daemon.reactor), onNotice: notify) }
        return nil
    }

    /// Sends the log to `--log-file` (standard error becomes that file) or leaves it on standard
    /// error. `screen`: standard error is the terminal a full-screen front draws on, so without
    /// `--log-file` nothing is logged there; returns a notice for the player when a log was asked for.
    @discardableResult
    func bootstrapLogging(screen: Bool = false) throws -> String? {
        var level = logLevel
        var notice: String?
        if let logFile {
            let fd = open(logFile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            if fd < 0 { // a failure while running, not a usage mistake: one line, EX_CANTCREAT
                let why = String(cString: strerror(errno))
                _ = try running(.cantCreate, "cannot open --log-file \(logFile)", { throw Failure(description: why) }())
            }
            dup2(fd, STDERR_FILENO)
            close(fd)
        } else if screen, isatty(STDERR_FILENO) == 1 {
            if level < .warning { notice = "The log has nowhere to go on this screen: use --log-file FILE (or 2>FILE)" }
            level = .critical // the screen is the game's
        }
        let chosen = level // the factory may run on any thread: it captures a constant
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = chosen
            return handler
        }
        return notice
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// How daemons find each other on the LAN (Protocol.md §7).
struct DiscoveryOptions: ParsableArguments {
    @Option(name: .customLong("discovery-port"), parsing: .unconditional,
            help: "UDP port of broadcast discovery; every daemon of one LAN must use the same (1-65535).")
    var discoveryPortNumber = Int(BroadcastDiscovery.defaultPort)

    /// The checked `--discovery-port`.
    var discoveryPort: UInt16 { UInt16(clamping: discoveryPortNumber) }

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds between announcements (0.1-60).", valueName: "seconds"))
    var announceInterval = 2.0

    @Option(help: ArgumentHelp("Announce only on this interface (repeatable; `lo` for this host only).", valueName: "name"))
    var interface: [String] = []

    @Flag(help: "No broadcast discovery (DNS-SD and --connect still work).")
    var noBroadcast = false

    @Flag(help: "No DNS-SD (Avahi): neither publish this daemon nor browse for others.")
    var noDnssd = false

    func validate() throws {
        guard (1...65535).contains(discoveryPortNumber) else {
            throw ValidationError("--discovery-port must be 1 to 65535, not \(discoveryPortNumber)")
        }
        guard (0.1...60).contains(announceInterval) else {
            throw ValidationError("--announce-interval must be 0.1 to 60 seconds")
        }
    }

    func config() -> DiscoveryConfig {
        var c = DiscoveryConfig()
        c.interval = .milliseconds(Int64((announceInterval * 1000).rounded()))
        return c
    }
}

/// Turns a typed library error into a one-line usage message for the user (a bad option value).
/// (Every error type of the libraries describes itself in one line.)
func checked<T>(_ body: @autoclosure () throws -> T) throws -> T {
    do { return try body() } catch { throw ValidationError(String(describing: error)) }
}

/// Exit statuses of <sysexits.h> for failures while running (usage errors exit 64, EX_USAGE).
enum SysExit: Int32 {
    case dataErr = 65, noInput = 66, noHost = 68, unavailable = 69, osErr = 71, cantCreate = 73, config = 78
}

/// Runs `body`; a failure is not a usage mistake: one line on standard error ("tictac: what:
/// why"), no usage text, and the sysexits status `status`.
func running<T>(_ status: SysExit, _ what: String?, _ body: @autoclosure () throws -> T) throws -> T {
    do {
        return try body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        let line = ["tictac", what, String(describing: error)].compactMap { $0 }.joined(separator: ": ")
        let bytes = Array((line + "\n").utf8)
        _ = write(STDERR_FILENO, bytes, bytes.count)
        throw ExitCode(status.rawValue)
    }
}

/// A failure told in one line.
struct Failure: Error, CustomStringConvertible {
    let description: String
}

/// Ctrl-C (SIGINT, or the key in the full screen) ends with 128 + SIGINT, as shells expect.
let interruptedStatus = ExitCode(128 + SIGINT)

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play tic-tac-toe from this terminal: against peers, or the bot with --local.",
        discussion: """
        Without --local this starts a daemon: it listens on TCP, connects to the peers given with \
        --connect, and lets you invite them (or be invited).

        Plain mode (--plain, or automatically \
        when standard input is not a terminal) reads one command per line (move N, new, resign, \
        quit, peers, invite NAME|ID, accept, decline, cancel, lobby) and prints one event per line; \
        --json prints each event as a JSON object. See README.md, "Plain mode".
        """
    )

    @OptionGroup var options: DaemonOptions

    @Flag(help: "Play the bot on this machine, without any network.")
    var local = false

    @Option(help: "With --local, the bot's level: random, easy, good or perfect.")
    var level: BotLevel = .perfect

    @Flag(help: "With --local, two people at this keyboard instead of the bot (full screen only).")
    var hotseat = false

    @Flag(help: "Plain line mode: one command in, one event out per line.")
    var plain = false

    @Flag(help: "With plain mode, print each event as one JSON object per line.")
    var json = false

    @Flag(help: "No colours in the full-screen view (also: the NO_COLOR environment variable).")
    var noColor = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds you ask for per move (0: none, else 5-65535). The game uses the shorter of "
                               + "both players' asks; when yours runs out your daemon resigns for you.",
                               valueName: "seconds"))
    var moveTime = 120

    func validate() throws {
        if local, !options.connect.isEmpty { throw ValidationError("--local plays without a network; drop --connect") }
        if hotseat, !local { throw ValidationError("--hotseat is a game at one keyboard: add --local") }
        if hotseat, plain || json { throw ValidationError("--hotseat shares the full screen: drop --plain and --json") }
        if local, options.port != 0 { throw ValidationError("--local plays without a network, so it listens on no port; drop --port") }
        guard moveTime == 0 || (Int(GameSession.minimumMoveTime)...Int(UInt16.max)).contains(moveTime) else {
            throw ValidationError("--move-time must be 0 (no clock) or \(GameSession.minimumMoveTime)-65535 seconds")
        }
    }

    func run() throws {
        let size = try options.boardSize()
        let terminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 && !plain && !json
        let logNotice = try options.bootstrapLogging(screen: terminal)
        if local {
            if hotseat, !terminal {
                throw ValidationError("--hotseat shares the full screen: standard input and output must be a terminal")
            }
            let match = LocalMatch(size: size, level: level, rng: options.randomSource.makeGenerator(),
                                   budget: .nodes(Bot.defaultSearchNodes), moveTime: .seconds(moveTime), hotSeat: hotseat)
            let runner = try running(.osErr, nil, LocalGameRunner(match: match, front: makeFront(terminal: terminal)))
            try running(.osErr, nil, runner.run())
            if runner.interrupted { throw interruptedStatus }
            return
        }
        let reactor = try running(.osErr, nil, Reactor())
        let random = options.randomSource
        let daemon = try options.makeDaemon(reactor: reactor, random: random, name: try options.displayName(),
                                            capabilities: [.tictactoe], bot: nil, moveTime: .seconds(moveTime))
        let front = makeFront(terminal: terminal)
        // The same daemon serves the collaborative field: `f` in the lobby, `field` in plain mode.
        var system = SystemRandomNumberGenerator()
        let core = FieldCore(id: daemon.core.config.instanceID, name: daemon.core.config.name,
                             x: Int32(system.next() % 1000), y: Int32(system.next() % 1000),
                             color: FullScreenFieldFront.palette[Int(system.next() % UInt64(FullScreenFieldFront.palette.count))])
        let fieldFront: FieldFront = terminal
            ? FullScreenFieldFront(depth: SpheresCommand.colorDepth(noColor: noColor), fromLobby: true)
            : PlainFieldFront(json: json, readsInput: false, readyEvent: "field")
        let field = FieldSession(reactor: reactor, daemon: daemon,
                                 field: try running(.unavailable, "cannot open the field's UDP socket", FieldShell(reactor: reactor, core: core)),
                                 front: fieldFront)
        (fieldFront as? PlainFieldFront)?.output = (front as? PlainFront)?.output // one stdout queue, in order
        let player = NetworkPlayer(reactor: reactor, daemon: daemon, front: front, field: field)
        let notice = options.startDiscovery(daemon, random: random) { [unowned player] in player.notify($0) }
        if !options.discovery.noDnssd, let presence = daemon.discovery {
            // Published while the field is open; `_tictactoe._tcp`'s agent already tells of outages.
            field.dnssd = FieldDNSSD(agent: AvahiDNSSDAgent(reactor: reactor, service: .field), discovery: presence)
        }
        let notices = [notice, logNotice].compactMap { $0 }.map { OutputEvent.notice($0) }
        try running(.osErr, nil, player.run(connectTo: try options.peers(), notices: notices))
        if player.interrupted { throw interruptedStatus }
    }

    /// Full screen in a terminal; plain lines for scripts, pipes and screen readers.
    private func makeFront(terminal: Bool) -> Front {
        terminal ? FullScreenFront(color: !noColor && getenv("NO_COLOR") == nil, hotSeat: hotseat) : PlainFront(json: json)
    }
}

struct BotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bot",
        abstract: "Run a headless bot: it accepts every invitation and plays.",
        discussion: """
        The bot listens on TCP (--port), and with --connect dials peers and invites them. It prints \
        one line per finished game (with --json, a JSON object) and exits on SIGINT/SIGTERM or \
        after --max-games games, telling its peers it leaves.
        """
    )

    @OptionGroup var options: DaemonOptions

    @Option(help: "random, easy, good or perfect (never loses on 3 x 3).")
    var level: BotLevel = .perfect

    @Option(parsing: .unconditional, help: """
        Exit after this many finished games, counted over all peers together. A game in which \
        the opponent made no move (a resignation right after the roll) is not counted, but a \
        peer that moves once and resigns can still use them up: leave it unset for a bot open \
        to the LAN.
        """)
    var maxGames: Int?

    @Flag(help: "Print each finished game as a JSON object.")
    var json = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Games on boards larger than 3 x 3 at most per source address (0-64); one more "
                               + "is declined as busy. Their searches share one thread.", valueName: "n"))
    var maxLargeGames = 2

    func validate() throws {
        if let maxGames, maxGames < 1 { throw ValidationError("--max-games must be 1 or more, not \(maxGames)") }
        guard (0...64).contains(maxLargeGames) else {
            throw ValidationError("--max-large-games must be 0 to 64, not \(maxLargeGames)")
        }
    }

    func run() throws {
        try options.bootstrapLogging()
        let logger = Logger(label: "tictac.bot")
        let reactor = try running(.osErr, nil, Reactor())
        let random = options.randomSource
        let daemon = try options.makeDaemon(reactor: reactor, random: random, name: try options.displayName(default: "-bot"),
                                            capabilities: [.tictactoe, .bot], bot: Bot(level: level),
                                            maxLargeGames: maxLargeGames, gameEvents: GameCounter.gameEvents)
        if let notice = options.startDiscovery(daemon, random: random, notify: { logger.warning("\($0)") }) {
            logger.warning("\(notice)")
        }
        let runner = BotRunner(reactor: reactor, daemon: daemon, json: json, maxGames: maxGames) { logger.info("\($0)") }
        try running(.osErr, nil, runner.run(connectTo: try options.peers()))
        if runner.interrupted { throw interruptedStatus }
    }
}

struct PeersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peers",
        abstract: "Look at the LAN: list the tictac daemons that answer.",
        discussion: """
        Sends a QUERY by broadcast (Protocol.md §7) and browses DNS-SD (§10) unless --no-dnssd, \
        listens for --timeout seconds, and prints what answered, sorted by name, with how each was \
        found. It neither announces nor publishes itself, so it never shows up as a player.
        """
    )

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to listen for answers (0.1-30).", valueName: "seconds"))
    var timeout = 1.0

    @Flag(help: "Print a JSON array of {id, name, addresses, port, state, via}.")
    var json = false

    @Option(help: "Log level on standard error (debug: the datagrams counted and dropped).")
    var logLevel: Logger.Level = .warning

    @OptionGroup var discovery: DiscoveryOptions

    func validate() throws {
        guard (0.1...30).contains(timeout) else { throw ValidationError("--timeout must be 0.1 to 30 seconds") }
    }

    func run() throws {
        var logger = Logger(label: "tictac.peers")
        logger.logLevel = logLevel
        let reactor = try running(.osErr, nil, Reactor())
        var system = SystemRandomNumberGenerator()
        var config = discovery.config()
        config.announces = false
        let local = LocalPresence(id: ID128.random(using: &system), name: try checked(DisplayName("peers")),
                                  port: 1, capabilities: [])
        let look = try running(.unavailable, "cannot listen for discovery on UDP port \(discovery.discoveryPort)", BroadcastDiscovery(reactor: reactor, local: local, port: discovery.discoveryPort,
                                                  interfaces: discovery.interface, config: config, random: system))
        look.start()
        // DNS-SD too (browse only): daemons beyond the broadcast domain, e.g. across a reflector.
        var dnssd: AvahiDNSSDAgent?
        if !discovery.noDnssd {
            let agent = AvahiDNSSDAgent(reactor: reactor, publishes: false)
            agent.onEvent = { [unowned look] event in
                switch event {
                case let .up(s):
                    look.sighted(s.instanceID, via: .dnssd, name: s.instanceName, addresses: s.addresses, port: s.port,
                                 capabilities: s.games, versions: s.versions, state: s.state)
                case let .down(name, id):
                    look.unsighted(id, via: .dnssd, reason: "\(name) is no longer published")
                case let .unavailable(text):
                    logger.info("\(text)")
                case .registered:
                    break
                }
            }
            agent.start(name: "peers", port: 1, txt: DNSSDTXT(instanceID: local.id))
            dnssd = agent
        }
        reactor.schedule(after: .milliseconds(Int64((timeout * 1000).rounded()))) { reactor.stop() }
        try running(.osErr, nil, reactor.run())
        let found = look.core.peers
        let c = look.core.counters
        logger.debug("datagrams: received \(c.received), malformed \(c.malformed), unexpected \(c.unexpected), rate-limited \(c.rateLimited), spoofed goodbye \(c.spoofedGoodbye), table full \(c.tableFull)")
        dnssd?.stop()
        look.stop()
        if json {
            let list = found.map { p -> JSON in
                .object([("id", .string(p.id.description)), ("name", .string(p.name)),
                         ("addresses", .array(p.addresses.map { .string($0) })), ("port", .int(Int(p.port))),
                         ("state", .string(p.state.description)), ("via", .array(p.via.names.map { .string($0) }))])
            }
            print(JSON.array(list).serialized)
        } else if found.isEmpty {
            print("No peers answered within \(timeout) s.")
        } else {
            for p in found {
                print("\(p.name)  \(p.id.description.prefix(8))  \(p.addresses.joined(separator: ","))  port \(p.port)  \(p.state)  "
                      + "(\(p.via.names.joined(separator: ", ")))")
            }
        }
    }
}

struct SpheresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spheres",
        abstract: "The collaborative field: move your coloured sphere, see everyone else's move.",
        discussion: """
        Starts a daemon that announces the field (Protocol.md §11) and finds the others on the LAN \
        by itself: no hosting or joining. Arrows or hjkl move your sphere, shift or HJKL take big \
        steps, c changes colour, q quits. Plain mode (--plain, or when standard input is not a \
        terminal) reads move DX DY, goto X Y, color R G B, quit, and prints sphere and sphere-left \
        events. --bot wanders by itself without reading input. See README.md, "The collaborative field".
        """
    )

    @Option(help: "Your display name (1-64 bytes; the field shows its first 24 bytes). Default: login@host.")
    var name: String?

    @Option(help: ArgumentHelp("Your sphere's colour, 0-255 each (default: one picked at random).", valueName: "r,g,b"))
    var color: String?

    @Flag(help: "Plain line mode: one command in, one event out per line.")
    var plain = false

    @Flag(help: "With plain mode, print each event as one JSON object per line.")
    var json = false

    @Flag(help: "A headless participant that wanders around the field (prints events as plain mode does).")
    var bot = false

    @Flag(help: "No colours: each sphere shows its initial (also: the NO_COLOR environment variable).")
    var noColor = false

    @Option(help: "Log level on standard error: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .warning

    @OptionGroup var discovery: DiscoveryOptions

    func validate() throws {
        if let name { _ = try checked(try DisplayName(name)) }
        if let color, FieldCommand.parseColor(color) == nil {
            throw ValidationError("--color must be R,G,B with each 0 to 255, e.g. 255,128,0")
        }
    }

    func run() throws {
        let options = try DaemonOptions.parse(["--log-level", logLevel.rawValue] + (name.map { ["--name", $0] } ?? []))
        try options.bootstrapLogging()
        var system = SystemRandomNumberGenerator()
        let displayName = try options.displayName(default: bot ? "-wanderer" : "")
        let reactor = try running(.osErr, nil, Reactor())
        let daemon = try options.makeDaemon(reactor: reactor, random: options.randomSource, name: displayName,
                                            capabilities: [.field], bot: nil)
        let rgb = color.flatMap(FieldCommand.parseColor)
            ?? FullScreenFieldFront.palette[Int(system.next() % UInt64(FullScreenFieldFront.palette.count))]
        let core = FieldCore(id: daemon.core.config.instanceID, name: displayName,
                             x: Int32(system.next() % 1000), y: Int32(system.next() % 1000), color: rgb)
        let field = try running(.unavailable, "cannot open the field's UDP socket", FieldShell(reactor: reactor, core: core))
        var notices: [String] = []
        do {
            try daemon.startDiscovery(port: discovery.discoveryPort, interfaces: discovery.interface,
                                      config: discovery.config(), fieldPort: field.port,
                                      broadcast: !discovery.noBroadcast, random: system)
        } catch {
            notices.append("broadcast discovery unavailable (\(error)): no one can be found")
        }
        let terminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 && !plain && !json && !bot
        let front: FieldFront = terminal
            ? FullScreenFieldFront(depth: Self.colorDepth(noColor: noColor))
            : PlainFieldFront(json: json, readsInput: !bot)
        let runner = SpheresRunner(reactor: reactor, daemon: daemon, field: field, front: front, wander: bot)
        runner.colors.chosen = color != nil
        // The field by DNS-SD too (`_spherenet._udp`, Protocol.md §11): found across the reflector.
        if !discovery.noDnssd, let presence = daemon.discovery {
            runner.dnssd = FieldDNSSD(agent: AvahiDNSSDAgent(reactor: reactor, service: .field), discovery: presence)
        }
        try running(.osErr, nil, runner.run(notices: notices))
    }

    /// The terminal's colours from the flag and the environment (NO_COLOR, COLORTERM, TERM).
    static func colorDepth(noColor: Bool) -> ColorDepth {
        ColorDepth.detect(noColor: noColor || getenv("NO_COLOR") != nil,
                          colorterm: getenv("COLORTERM").map { String(cString: $0) },
                          term: getenv("TERM").map { String(cString: $0) })
    }
}

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Tell what a packet capture of tictac traffic shows.",
        discussion: """
        Reads a pcap file (tcpdump -w; Ethernet, Linux cooked, null or raw IP) and prints the peers \
        seen by discovery, each TCP connection with its handshake, invitations and games move by \
        move with the board after each move, the results, and anything abnormal (marked !!): bytes \
        that do not decode, ERROR frames, retransmissions, a connection that ends without LEAVE.
        """
    )

    @Argument(help: "The capture (pcap, not pcapng).")
    var file: String

    @Flag(help: "One JSON object per line, as plain mode's --json.")
    var json = false

    func run() throws {
        if access(file, R_OK) != 0 {
            let why = String(cString: strerror(errno))
            _ = try running(.noInput, "cannot open \(file)", { throw Failure(description: why) }())
        }
        let bytes = try running(.noInput, nil, readWholeFile(file))
        let capture = try running(.dataErr, file, Capture(pcap: bytes))
        let stories = Narrator.tell(capture)
        if !json {
            print("\(file): \(capture.packetCount) packets, \(capture.connections.count) TCP connection(s), \(capture.datagrams.count) datagram(s)")
        }
        for story in stories { print(json ? story.json : story.line) }
        let abnormal = stories.filter(\.abnormal).count
        if !json { print(abnormal == 0 ? "nothing abnormal" : "\(abnormal) abnormal event(s), marked !!") }
    }
}
