import TicTacAPI
import TicTacDaemon
import TicTacDaemonCore
import TicTacNet
import TicTacTTY
import TicTacTerminal
import TicTacTime
import TicTacWire

/// `tictac watch --all`: every game of the LAN at once, kept up as games start and end. Every
/// `survey` interval it asks each player that serves watchers and plays (and each bot) for its
/// games (WATCH list), and follows each game not yet followed through one of its two players (a
/// daemon serves one watch per link, Protocol.md §14, so a bot's several games are followed
/// through its opponents where they serve). A finished game stays on screen until the next game
/// of its match replaces it, or a few seconds after its match ends.
public final class WatchAllRunner {
    private let reactor: Reactor
    private let daemon: Daemon
    private let config: WatchConfiguration
    private let log: (String) -> Void
    private let lifecycle: RunnerLifecycle
    private let output: LineWriter
    private let format: WatchFormatter
    private var screen: WatchFront<WatchTiles>?
    /// The games followed, by the daemon that serves each (nil until its WATCHING).
    private var followed: [ID128: WatchedBoard?] = [:]
    /// Who serves each game followed (for the order on screen).
    private var servers: [ID128: PeerInfo] = [:]
    /// The opponent each server was asked to show (its game until WATCHING says more).
    private var opponents: [ID128: ID128] = [:]

    static let survey: Duration = .seconds(2)
    /// How long a game whose match ended stays on screen.
    static let linger: Duration = .seconds(5)

    public init(reactor: Reactor, daemon: Daemon, config: WatchConfiguration, log: @escaping (String) -> Void) {
        self.reactor = reactor
        self.daemon = daemon
        self.config = config
        self.log = log
        format = WatchFormatter(json: config.json)
        output = LineWriter(gapLine: OutputFormatter(style: config.json ? .json : .text).gapLine)
        lifecycle = RunnerLifecycle(reactor: reactor)
    }

    public var exitStatus: Int32 { lifecycle.exitStatus }

    public func run(connectTo peers: [[SocketAddress]]) throws(NetError) {
        try lifecycle.start { [daemon, unowned self] deadline, done in
            screen?.stop()
            daemon.leave(within: deadline, then: done)
        }
        daemon.onEvent = { [unowned self] event in handle(event) }
        if config.fullScreen {
            let front = WatchFront(WatchTiles(color: config.color, unicode: WatchFront<WatchTiles>.unicode))
            front.onQuit = { [unowned self] interrupted in interrupted ? lifecycle.interrupt() : lifecycle.quit() }
            try front.start(reactor: reactor)
            screen = front
        } else {
            output.attach(to: reactor)
        }
        for addresses in peers { daemon.keepConnecting(to: addresses) }
        reactor.schedule(after: min(config.timeout, Self.survey)) { [weak self] in self?.surveyNow() }
        defer { output.drain(within: .seconds(1)) }
        try lifecycle.run()
    }

    /// Asks every playing player (and bot) that serves watchers and is not followed yet.
    private func surveyNow() {
        guard !lifecycle.leaving else { return }
        // A peer known only by a link (`--connect`) has announced no state: it is asked too.
        for p in daemon.peers where p.capabilities.contains(.spectators) && followed[p.id] == nil
            && (p.state == .playing || p.capabilities.contains(.bot) || p.via.isEmpty) {
            do throws(CommandError) { try daemon.command(.watch(p.id.description, Watch(.list))) } catch {
                log("cannot ask \(p.name) for its games: \(error)")
            }
        }
        redraw()
        reactor.schedule(after: Self.survey) { [weak self] in self?.surveyNow() }
    }

    /// Is the game between `a` and `b` followed already (through either)?
    private func covered(_ a: ID128, _ b: ID128) -> Bool {
        followed.keys.contains { id in
            let pair: Set = (followed[id] ?? nil).map { [$0.game.o.id, $0.game.x.id] } ?? [id, opponents[id] ?? id]
            return pair == [a, b]
        }
    }

    private func handle(_ event: DaemonEvent) {
        switch event {
        case let .watched(update, from): watched(update, from: from)
        case let .peerLost(p, _) where followed[p.id] != nil:
            drop(p.id)
        default:
            break
        }
    }

    private func watched(_ update: WatchUpdate, from peer: PeerInfo) {
        let f = format.about(peer)
        switch update {
        case let .games(list):
            // Each game not followed yet, through this daemon while it follows none, else
            // through its opponent when that one serves watchers and follows none either.
            let serving = daemon.peers.filter { $0.capabilities.contains(.spectators) }
            for game in list where !covered(peer.id, game.opponent.id) {
                if followed[peer.id] == nil {
                    follow(game.opponent.id, through: peer)
                } else if let other = serving.first(where: { $0.id == game.opponent.id }), followed[other.id] == nil {
                    follow(peer.id, through: other)
                }
            }
        case let .game(g):
            guard followed[peer.id] != nil, let board = WatchedBoard(g, from: peer) else { return }
            followed[peer.id] = board
            write(f.started(board))
        case let .move(cell, number):
            guard var board = followed[peer.id] ?? nil else { return }
            guard board.move(cell: cell, number: number) else { return drop(peer.id) } // asked afresh at the next survey
            followed[peer.id] = board
            write(f.moved(board))
        case let .ended(e):
            guard var board = followed[peer.id] ?? nil else { return }
            board.finish(e)
            followed[peer.id] = board
            write(f.ended(board, e))
        case let .stopped(reason):
            guard followed[peer.id] != nil else { return }
            write(format.stopped(peer, reason))
            // The last board stays a moment, then goes (unless a new watch took its place).
            let board = followed[peer.id] ?? nil
            reactor.schedule(after: Self.linger) { [weak self] in
                guard let self, let now = followed[peer.id], now == board else { return }
                drop(peer.id)
            }
            if board == nil { drop(peer.id) }
        }
    }

    /// Asks `server` for its game against `opponent`.
    private func follow(_ opponent: ID128, through server: PeerInfo) {
        do throws(CommandError) {
            try daemon.command(.watch(server.id.description, Watch(.follow, opponent: opponent)))
            followed[server.id] = .some(nil)
            servers[server.id] = server
            opponents[server.id] = opponent
        } catch {
            log("cannot follow \(server.name)'s game: \(error)")
        }
    }

    private func drop(_ id: ID128) {
        followed[id] = nil
        servers[id] = nil
        opponents[id] = nil
        redraw()
    }

    private func write(_ lines: [String]) {
        guard screen == nil else { return redraw() }
        for line in lines { output.write(line) }
    }

    private func redraw() {
        guard let screen else { return }
        let boards = followed.keys.sorted { a, b in
            (servers[a]?.name.lowercased() ?? "", a) < (servers[b]?.name.lowercased() ?? "", b)
        }.compactMap { followed[$0] ?? nil }
        let count = boards.count
        screen.update { tiles in
            tiles.boards = boards
            tiles.status = count == 0 ? "Looking for games (every \(Self.survey.components.seconds) s)" : "Following \(count) game\(count == 1 ? "" : "s")"
        }
    }
}
