#if canImport(Glibc)
import Glibc
#endif
import TicTacDaemon
import TicTacEngine
import TicTacNet
import TicTacWire

/// The headless bot: a daemon that accepts every invitation and plays. Prints one line per
/// finished game; exits cleanly (LEAVE to every peer) on SIGINT/SIGTERM or after `maxGames`.
public final class BotRunner {
    private let reactor: Reactor
    private let daemon: Daemon
    private let json: Bool
    private let maxGames: Int?
    private let log: (String) -> Void
    private var signals: SignalSource?
    private var games = 0
    private var leaving = false
    /// Stopped by SIGINT: the command exits 130 (128 + SIGINT).
    public private(set) var interrupted = false

    /// - Parameter log: one line for the operator's log (stderr), e.g. peers coming and going.
    public init(reactor: Reactor, daemon: Daemon, json: Bool, maxGames: Int?, log: @escaping (String) -> Void) {
        self.reactor = reactor
        self.daemon = daemon
        self.json = json
        self.maxGames = maxGames
        self.log = log
    }

    /// Runs until a signal, or `maxGames` games.
    public func run(connectTo peers: [[SocketAddress]]) throws(NetError) {
        SignalSource.ignoreBrokenPipe()
        signals = try SignalSource(reactor: reactor, signals: [SIGINT, SIGTERM, SIGHUP]) { [unowned self] signal in
            if signal == SIGINT { interrupted = true }
            quit()
        }
        daemon.onEvent = { [unowned self] event in handle(event) }
        let config = daemon.core.config
        log("bot \(config.name) (\(config.instanceID)) listening on port \(daemon.port)")
        if !json {
            // One line to say it runs and where a player finds it (README "Usage").
            let addresses = FullScreenFront.hostAddresses()
            let at = addresses.isEmpty ? "this host" : addresses.joined(separator: ", ")
            print("bot \(config.name) (\(config.instanceID.description.prefix(8))) listening on \(at), port \(daemon.port)")
            fflush(nil)
        } else {
            print(OutputFormatter(style: .json).json(.ready(name: config.name.value, id: config.instanceID, port: daemon.port)).serialized)
            fflush(nil)
        }
        for addresses in peers { daemon.keepConnecting(to: addresses) }
        try reactor.run()
    }

    private func handle(_ event: DaemonEvent) {
        switch event {
        case let .game(.gameOver(result, _, _), opponent):
            games += 1
            if json {
                let line = JSON.object([("event", .string("game-over")), ("opponent", OutputFormatter.who(opponent)),
                                        ("result", .string(result.rawValue)), ("games", .int(games))])
                print(line.serialized)
            } else {
                print("game \(games) vs \(opponent.name): \(result.rawValue)")
            }
            fflush(nil)
            if let maxGames, games >= maxGames { quit() }
        case let .peerFound(p): log("peer \(p.name) (\(p.id)) at \(p.address)")
        case let .peerLost(p, reason): log("peer \(p.name) gone: \(reason)")
        case let .declined(p, reason): log("\(p.name) declined: \(reason.name)")
        case let .protocolError(p, code, message, sent):
            log("\(sent ? "sent" : "received") error \(code) \(sent ? "to" : "from") \(p?.name ?? "a peer"): \(message)")
        case let .connectFailed(to, reason): log("cannot connect to \(to): \(reason)")
        default: break
        }
    }

    private func quit() {
        guard !leaving else { return }
        leaving = true
        daemon.leave(within: .seconds(1)) { [reactor] in reactor.stop() }
    }
}
