import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Logging
import TicTacApp
import TicTacDiscovery
import TicTacEngine
import TicTacNet
import TicTacWire

extension BotLevel: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}

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

    @Option(parsing: .unconditional, help: ArgumentHelp("Handshakes a second at most from one address (0-65536; 0: no limit; four times as many from one /24); one more is told ERROR busy.",
                               valueName: "n"))
    var maxHandshakesPerAddress = 32

    @Option(parsing: .unconditional, help: ArgumentHelp("Watchers of your games at most from one address (1-64); one more is told the game is full.",
                               valueName: "n"))
    var maxWatchersPerAddress = 8

    @Option(help: ArgumentHelp("""
        Keep this daemon's key (and so its instance id) in FILE instead of the state \
        directory's: read it, or create it (mode 0600) when missing.
        """, valueName: "file"))
    var identity: String?

    @Option(help: ArgumentHelp("""
        Keep the identity key and the game history here (created mode 0700). Default: \
        $XDG_STATE_HOME/tictac, else ~/.local/state/tictac.
        """, valueName: "dir"))
    var stateDir: String?

    @Flag(help: "A throwaway id and no history (tests, benchmarks, a second daemon of yours).")
    var ephemeral = false

    @Option(parsing: .unconditional, help: ArgumentHelp("""
        How long a game whose connection was lost waits for the opponent before it is adjourned \
        (0, or 10-86400; 0: a lost connection ends the game, as with older versions).
        """, valueName: "seconds"))
    var resumeWindow = 600

    @Option(parsing: .unconditional, help: ArgumentHelp("""
        How long you wait, free, for an opponent who stays away before the game is claimed as \
        yours (0, or 2-2592000; 0: never; an opponent back and free takes the game up again).
        """, valueName: "seconds"))
    var adjournLimit = 3600

    @Flag(help: "Nobody may watch your games (tictac watch; Protocol.md §14).")
    var noSpectators = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (on standard error, or --log-file).")
    var logLevel: Logger.Level = .warning

    @Option(help: ArgumentHelp("Append the log to FILE instead of standard error (play's full screen otherwise has no log).",
                               valueName: "file"))
    var logFile: String?

    @Option(help: ArgumentHelp("""
        Append each version-2 link's traffic keys to FILE (mode 0600; also TICTAC_KEYLOG), for \
        `tictac replay --key-log`: whoever has FILE and a capture reads those games.
        """, valueName: "file"))
    var keyLog: String?

    @Option(help: .hidden)
    var seed: UInt64?

    @OptionGroup var discovery: DiscoveryOptions

    func validate() throws {
        if seed != nil, getenv("TICTAC_TEST_SEED_OK").map({ String(cString: $0) }) != "1" {
            // A seeded daemon's key and rolls are guessable: only for test captures.
            throw ValidationError("--seed is a test option (a seeded identity is guessable); it needs TICTAC_TEST_SEED_OK=1")
        }
        if let name { _ = try checked(try DisplayName(name)) }
        if ephemeral, identity != nil || stateDir != nil {
            throw ValidationError("--ephemeral keeps nothing: it cannot go with --identity or --state-dir")
        }
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be 0 to 65535 (0: the system picks one), not \(port)")
        }
        guard (1...65536).contains(maxLinksPerAddress) else {
            throw ValidationError("--max-links-per-address must be 1 to 65536")
        }
        guard (0...65536).contains(maxHandshakesPerAddress) else {
            throw ValidationError("--max-handshakes-per-address must be 0 to 65536")
        }
        guard (1...64).contains(maxWatchersPerAddress) else {
            throw ValidationError("--max-watchers-per-address must be 1 to 64")
        }
        guard resumeWindow == 0 || (10...86400).contains(resumeWindow) else {
            throw ValidationError("--resume-window must be 0 or 10 to 86400 seconds")
        }
        guard adjournLimit == 0 || (2...2_592_000).contains(adjournLimit) else {
            throw ValidationError("--adjourn-limit must be 0 or 2 to 2592000 seconds")
        }
        guard (2...300).contains(peerTimeout) else {
            throw ValidationError("--peer-timeout must be 2 to 300 seconds")
        }
        _ = try boardSize()
        // A mistyped HOST:PORT is a usage error; a name that does not resolve is not (run says
        // so in one line, EX_NOHOST): the name is looked up once, there.
        for peer in connect where !Self.wellFormed(peer) {
            throw ValidationError(AddressError.syntax(peer).description)
        }
    }

    /// HOST:PORT or [HOST]:PORT as `SocketAddress.resolve` takes it, checked with a literal
    /// address standing for the host (so no name is looked up here).
    static func wellFormed(_ text: String) -> Bool {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            guard close > text.index(after: text.startIndex) else { return false }
            return (try? SocketAddress.resolve("[::1]" + text[close...].dropFirst())) != nil
        }
        guard let colon = text.lastIndex(of: ":"), colon > text.startIndex, !text[..<colon].contains(":") else { return false }
        return (try? SocketAddress.resolve("127.0.0.1" + text[colon...])) != nil
    }

    /// One of the options of what a daemon keeps was given.
    var keepsState: Bool { identity != nil || stateDir != nil || ephemeral }

    func boardSize() throws -> BoardSize { try checked(BoardSize(rows: rows, cols: cols, k: k)) }

    /// What the application is handed (checked by `validate`).
    func settings() throws -> DaemonSettings {
        var s = DaemonSettings(name: try name.map { try checked(DisplayName($0)) }, discovery: discovery.settings,
                               log: LogSettings(level: logLevel, file: logFile))
        s.port = UInt16(clamping: port)
        s.connect = connect
        s.size = try boardSize()
        s.peerTimeout = .seconds(peerTimeout)
        s.maxLinksPerAddress = maxLinksPerAddress
        s.maxHandshakesPerAddress = maxHandshakesPerAddress
        s.maxWatchersPerAddress = maxWatchersPerAddress
        s.identityFile = identity
        s.stateDirectory = stateDir
        s.ephemeral = ephemeral
        s.resumeWindow = .seconds(resumeWindow)
        s.adjournLimit = .seconds(adjournLimit)
        s.spectators = !noSpectators
        s.seed = seed
        s.keyLogFile = KeyLogOption.path(keyLog)
        return s
    }
}

/// How daemons find each other on the LAN (Protocol.md §7).
struct DiscoveryOptions: ParsableArguments {
    @Option(name: .customLong("discovery-port"), parsing: .unconditional,
            help: "UDP port of broadcast discovery; every daemon of one LAN must use the same (1-65535).")
    var discoveryPortNumber = Int(PresenceService.defaultPort)

    /// The checked `--discovery-port`.
    var discoveryPort: UInt16 { UInt16(clamping: discoveryPortNumber) }

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds between announcements (0.1-60).", valueName: "seconds"))
    var announceInterval = 2.0

    @Option(help: ArgumentHelp("Announce only on this interface, one of this host's (repeatable; `lo` for this host only).", valueName: "name"))
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
        // A name that is no interface would announce nowhere, silently.
        let known = NetworkInterfaces.names()
        if let unknown = interface.first(where: { !known.contains($0) }), !known.isEmpty {
            throw ValidationError("--interface: no interface '\(unknown.prefix(64))' on this host (there are: \(known.joined(separator: ", ")))")
        }
    }

    /// What the application is handed.
    var settings: DiscoverySettings {
        DiscoverySettings(port: discoveryPort, interval: .milliseconds(Int64((announceInterval * 1000).rounded())),
                          interfaces: interface, broadcast: !noBroadcast, dnssd: !noDnssd)
    }
}

/// Turns a typed library error into a one-line usage message for the user (a bad option value).
/// (Every error type of the libraries describes itself in one line.)
func checked<T>(_ body: @autoclosure () throws -> T) throws -> T {
    do { return try body() } catch { throw ValidationError(String(describing: error)) }
}


/// `--key-log FILE`, else `TICTAC_KEYLOG` (as SSLKEYLOGFILE: set for one run, read by every command).
enum KeyLogOption {
    static func path(_ option: String?) -> String? {
        if let option, !option.isEmpty { return option }
        guard let env = getenv("TICTAC_KEYLOG").map({ String(cString: $0) }), !env.isEmpty else { return nil }
        return env
    }
}
