// swift-tools-version:6.1
import PackageDescription

// Linux only (epoll, Avahi's dns_sd). No unsafe flags: release builds keep Swift's run-time
// exclusivity checks, and the package can be depended on.
let package = Package(
    name: "tictac",
    products: [
        .executable(name: "tictac", targets: ["tictac"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Frame header, messages, encoder/decoder. Pure: no sockets, no clocks, no dependencies
        // (so the fuzz target can compile it on its own).
        .target(name: "TicTacWire"),
        // JSON values with ordered keys, serialized on one line (plain mode's events, replay's).
        .target(name: "TicTacJSON"),
        // Monotonic instants, the deadline heap, SansIOCore (the cores' verbs): a leaf every layer may import.
        .target(name: "TicTacTime"),
        // libsodium (Debian: libsodium-dev), the one crypto library: TicTacCrypto's SHA-256, HKDF,
        // Ed25519 and X25519, and the stream's ChaCha20-Poly1305 in place (LinkCipher).
        .systemLibrary(name: "CSodium", providers: [.apt(["libsodium-dev"])]),
        .target(name: "TicTacCrypto", dependencies: ["CSodium"]),
        // Boards, rules, the game session state machine, bots. Pure: injected clock and RNG.
        .target(name: "TicTacEngine", dependencies: ["TicTacCrypto", "TicTacWire", "TicTacTime"]),
        // The POSIX shell: one epoll reactor, timers, sockets; TCP connections generic over their decoder.
        .target(name: "CTicTacNet"),
        .target(name: "TicTacNet", dependencies: ["CTicTacNet", "TicTacTime"]),
        // <dns_sd.h> from Avahi's compatibility library.
        // Included by path rather than through pkg-config, whose -D_REENTRANT SwiftPM refuses.
        .systemLibrary(name: "CDNSSD",
                       providers: [.apt(["libavahi-compat-libdnssd-dev"])]),
        // Discovery's sans-I/O cores: the presence table (broadcast, DNS-SD, manual peers) and the
        // DNS-SD state machine, with their types. No sockets, no Avahi.
        .target(name: "TicTacDiscoveryCore", dependencies: [
            "TicTacCrypto", // signed ANNOUNCE and GOODBYE (Ed25519)
            "TicTacTime", "TicTacWire",
        ]),
        // Discovery's shells: the broadcast socket and the Avahi dns_sd agent.
        .target(name: "TicTacDiscovery", dependencies: ["CDNSSD", "TicTacDiscoveryCore", "TicTacNet", "TicTacTime", "TicTacWire"]),
        // The Gomocup engine protocol (pbrain): its codec, the session that drives one engine and
        // the probe of its boards, and what the core asks of an engine. Pure: lines in, lines out.
        .target(name: "TicTacPbrain", dependencies: ["TicTacEngine"]),
        // What the fronts and the daemon say to each other: peers, the player's commands and their
        // errors, the daemon's events. The fronts import this, never the daemon core.
        .target(name: "TicTacAPI", dependencies: ["TicTacDiscoveryCore", "TicTacEngine", "TicTacWire"]),
        // The daemon's sans-I/O core (links, handshake, lobby, invitations, games) and its parts.
        .target(name: "TicTacDaemonCore", dependencies: [
            "CSodium", "TicTacCrypto", "TicTacAPI", "TicTacDiscoveryCore", "TicTacEngine", "TicTacPbrain", "TicTacWire", "TicTacTime",
        ]),
        // The daemon's socket shell, the bot's search thread, the identity file, the state directory.
        .target(name: "TicTacDaemon", dependencies: [
            "TicTacAPI", "CTicTacNet", "TicTacDaemonCore", "TicTacDiscovery", "TicTacDiscoveryCore", "TicTacNet", "TicTacEngine", "TicTacPbrain", "TicTacWire", "TicTacTime",
        ]),
        // The collaborative field's sans-I/O FieldCore (sequence, heartbeat, expiry, rate limits).
        .target(name: "TicTacFieldCore", dependencies: ["TicTacTime", "TicTacWire"]),
        // The field's UDP shell, fed by the presence table.
        .target(name: "TicTacField", dependencies: ["TicTacFieldCore", "TicTacDiscovery", "TicTacDiscoveryCore", "TicTacNet", "TicTacTime", "TicTacWire"]),
        // The fronts' view models, pure: plain mode and the full screens (tic-tac-toe's, the
        // field's, the watch's), commands, keys, events and how they are written and drawn.
        .target(name: "TicTacTerminal", dependencies: ["TicTacAPI", "TicTacDiscoveryCore", "TicTacFieldCore", "TicTacEngine", "TicTacWire",
                                                       "TicTacJSON", "TicTacTime"]),
        // The fronts' terminal I/O on the reactor: raw mode, the nonblocking screen writer,
        // standard input's lines, and the fronts that join them to TicTacTerminal's models.
        .target(name: "TicTacTTY", dependencies: ["TicTacAPI", "TicTacTerminal", "TicTacFieldCore", "TicTacWire", "TicTacNet",
                                                  "TicTacJSON", "TicTacTime"]),
        // The runners behind the fronts (player, bot, field, local game) and their one lifecycle;
        // each command's setup from the configuration the executable parsed.
        .target(name: "TicTacApp", dependencies: [
            "CTicTacNet", "TicTacAPI", "TicTacTerminal", "TicTacTTY", "TicTacDaemon", "TicTacDaemonCore", "TicTacDiscovery", "TicTacDiscoveryCore", "TicTacField",
            "TicTacFieldCore", "TicTacEngine", "TicTacJSON", "TicTacNet", "TicTacPbrain", "TicTacReplay", "TicTacStore", "TicTacWire", "TicTacTime",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The durable history: peers, games, moves and scores in one SQLite file (GRDB; GRDB's
        // own tools version, 6.1, is why this package asks for 6.1).
        .target(name: "TicTacStore", dependencies: [
            "TicTacEngine", "TicTacWire", .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"), // FastStatement's sqlite3 calls
        ]),
        // Packet captures: a pcap reader, TCP reassembly, and replay through the sans-I/O cores.
        .target(name: "TicTacReplay", dependencies: [
            "TicTacAPI", "TicTacDaemonCore", "TicTacJSON", "TicTacEngine", "TicTacWire", "TicTacTime",
        ]),
        // The executable: argument parsing and nothing else.
        // Declared as imported: what the other modules need comes with TicTacApp.
        .executableTarget(name: "tictac", dependencies: [
            "TicTacApp", "TicTacTerminal", "TicTacEngine", "TicTacDiscovery", "TicTacNet", "TicTacWire",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // What several test targets share: the fake DNS-SD agent, waits on a reactor.
        .target(name: "TicTacTestSupport", dependencies: ["TicTacDiscoveryCore", "TicTacNet", "TicTacTime"],
                path: "Tests/TicTacTestSupport"),
        .testTarget(name: "TicTacWireTests", dependencies: ["TicTacWire"]),
        .testTarget(name: "TicTacStoreTests", dependencies: ["TicTacStore", "TicTacEngine", "TicTacWire", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "TicTacTimeTests", dependencies: ["TicTacTime"]),
        .testTarget(name: "TicTacEngineTests", dependencies: ["TicTacCrypto", "TicTacEngine", "TicTacWire", "TicTacTime"]),
        .testTarget(name: "TicTacNetTests", dependencies: ["TicTacNet", "TicTacTime", "TicTacWire"]),
        .testTarget(name: "TicTacDiscoveryTests", dependencies: ["TicTacDiscovery", "TicTacDiscoveryCore", "TicTacEngine", "TicTacTestSupport", "TicTacNet", "TicTacTime", "TicTacWire"]),
        .testTarget(name: "TicTacDaemonTests", dependencies: ["TicTacAPI", "TicTacDiscovery", "TicTacDiscoveryCore", "TicTacTestSupport", "TicTacDaemon", "TicTacDaemonCore", "TicTacFieldCore", "TicTacNet", "TicTacEngine", "TicTacPbrain", "TicTacWire", "TicTacTime",
                                                           "TicTacApp", "TicTacStore", "TicTacCrypto"]),
        .testTarget(name: "TicTacFieldTests", dependencies: ["TicTacField", "TicTacFieldCore", "TicTacEngine", "TicTacTestSupport", "TicTacDiscovery", "TicTacDiscoveryCore", "TicTacNet", "TicTacTime", "TicTacWire"]),
        .testTarget(name: "TicTacReplayTests", dependencies: ["TicTacReplay", "TicTacDaemonCore", "TicTacDiscoveryCore", "TicTacEngine", "TicTacWire", "TicTacTime"]),
        .testTarget(name: "TicTacAppTests", dependencies: ["TicTacAPI", "TicTacApp", "TicTacTerminal", "TicTacTTY", "TicTacDaemon", "TicTacDaemonCore", "TicTacDiscoveryCore", "TicTacField",
                                                        "TicTacFieldCore", "TicTacEngine", "TicTacJSON", "TicTacNet", "TicTacStore", "TicTacWire", "TicTacTime"]),
        .testTarget(name: "TicTacTerminalTests", dependencies: ["TicTacAPI", "TicTacDiscoveryCore", "TicTacField", "TicTacFieldCore", "TicTacTerminal", "TicTacTTY",
                                                             "TicTacEngine", "TicTacJSON", "TicTacNet", "TicTacWire", "TicTacDaemon", "TicTacDaemonCore", "TicTacTime"]),
    ],
    swiftLanguageModes: [.v6]
)
