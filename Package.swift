// swift-tools-version:6.0
import PackageDescription

// Release builds optimise across our modules (the codec, engine and daemon are generic-light
// but split into modules; without this their small generic helpers stay unspecialised).
// They also leave out the run-time exclusivity checks (every access to a class's stored
// property, a global or a captured var called into the Swift runtime: about a sixth of the
// instructions of a move round trip, tools/bench/instructions). Those checks catch only our own
// overlapping-access bugs, never anything a peer sends; debug builds, which run the whole test
// suite, keep them, as does the compile-time check in every build.
let optimized: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization", "-enforce-exclusivity=unchecked"],
                                              .when(configuration: .release))]

let package = Package(
    name: "tictac",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "tictac", targets: ["tictac"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Frame header, messages, encoder/decoder. Pure: no sockets, no clocks, no dependencies
        // (so the fuzz target can compile it on its own).
        .target(name: "TicTacWire", swiftSettings: optimized),
        // Monotonic instants and the deadline heap: a leaf every layer may import.
        .target(name: "TicTacTime", swiftSettings: optimized),
        // Boards, rules, the game session state machine, bots. Pure: injected clock and RNG.
        .target(name: "TicTacEngine", dependencies: [
            "TicTacWire", "TicTacTime",
            .product(name: "Crypto", package: "swift-crypto"),
        ], swiftSettings: optimized),
        // POSIX core: one epoll reactor, timers, sockets.
        .target(name: "CTicTacNet"),
        .target(name: "TicTacNet", dependencies: ["CTicTacNet", "TicTacTime"], swiftSettings: optimized),
        // <dns_sd.h> from Avahi's compatibility library.
        // Included by path rather than through pkg-config, whose -D_REENTRANT SwiftPM refuses.
        .systemLibrary(name: "CDNSSD",
                       providers: [.apt(["libavahi-compat-libdnssd-dev"])]),
        // Discovery: the sans-I/O presence core (broadcast, DNS-SD, manual peers) and its shells.
        .target(name: "TicTacDiscovery", dependencies: ["CDNSSD", "TicTacNet", "TicTacTime", "TicTacWire"],
                swiftSettings: optimized),
        // The daemon: a sans-I/O core (links, handshake, invitations, games) and its socket shell.
        .target(name: "TicTacDaemon", dependencies: [
            "TicTacDiscovery", "TicTacNet", "TicTacEngine", "TicTacWire", "TicTacTime",
            .product(name: "Crypto", package: "swift-crypto"), // the identity key (Ed25519)
        ], swiftSettings: optimized),
        // The collaborative field: a sans-I/O FieldCore (sequence, heartbeat, expiry, rate limits)
        // beside the game core, and its UDP shell fed by the presence table.
        .target(name: "TicTacField", dependencies: ["TicTacDiscovery", "TicTacNet", "TicTacTime", "TicTacWire"],
                swiftSettings: optimized),
        // Plain line mode: command parser, event formatter, the local game loop.
        .target(name: "TicTacTerminal", dependencies: ["TicTacDiscovery", "TicTacField", "TicTacEngine", "TicTacWire", "TicTacNet", "TicTacDaemon", "TicTacTime"],
                swiftSettings: optimized), // the bot runner sees every event of a bot daemon
        // Packet captures: a pcap reader, TCP reassembly, and replay through the sans-I/O cores.
        .target(name: "TicTacReplay", dependencies: [
            "TicTacDaemon", "TicTacTerminal", "TicTacDiscovery", "TicTacEngine", "TicTacWire", "TicTacTime",
        ]),
        // The executable: argument parsing and nothing else.
        .executableTarget(name: "tictac", dependencies: [
            "TicTacTerminal", "TicTacEngine", "TicTacDaemon", "TicTacField", "TicTacDiscovery", "TicTacNet", "TicTacWire", "TicTacTime",
            "TicTacReplay",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "TicTacWireTests", dependencies: ["TicTacWire"]),
        .testTarget(name: "TicTacTimeTests", dependencies: ["TicTacTime"]),
        .testTarget(name: "TicTacEngineTests", dependencies: ["TicTacEngine", "TicTacWire", "TicTacTime"]),
        .testTarget(name: "TicTacNetTests", dependencies: ["TicTacNet", "TicTacTime", "TicTacWire"]),
        .testTarget(name: "TicTacDiscoveryTests", dependencies: ["TicTacDiscovery", "TicTacNet", "TicTacTime", "TicTacWire"]),
        .testTarget(name: "TicTacDaemonTests", dependencies: ["TicTacDiscovery", "TicTacDaemon", "TicTacNet", "TicTacEngine", "TicTacWire", "TicTacTime"]),
        .testTarget(name: "TicTacFieldTests", dependencies: ["TicTacField", "TicTacDiscovery", "TicTacNet", "TicTacTime", "TicTacWire"]),
        .testTarget(name: "TicTacReplayTests", dependencies: ["TicTacReplay", "TicTacDaemon", "TicTacDiscovery", "TicTacEngine", "TicTacWire", "TicTacTime"]),
        .testTarget(name: "TicTacTerminalTests", dependencies: ["TicTacDiscovery", "TicTacField", "TicTacTerminal", "TicTacEngine", "TicTacWire", "TicTacDaemon", "TicTacTime"]),
    ],
    swiftLanguageModes: [.v6]
)
