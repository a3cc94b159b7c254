import TicTacAPI
import TicTacDaemon
import TicTacDaemonCore
import TicTacNet
import TicTacTime
import TicTacTTY
import TicTacTerminal
import TicTacWire

/// `tictac watch`'s loop. Without a player: after a look at the LAN, asks every player that
/// serves watchers and is playing (or is a bot) for its games (WATCH list), prints them once
/// (a game both players list is shown once) and leaves. With a player: follows its game
/// (WATCH follow), a late watcher from the board so far, then each move and the end; when its
/// match ends, or it plays none, it asks again every 2 s and follows the next. Leaves on a
/// signal (RunnerLifecycle).
public final class WatchRunner {
    private let reactor: Reactor
    private let daemon: Daemon
    private let config: WatchConfiguration
    private let log: (String) -> Void
    private let lifecycle: RunnerLifecycle
    private let output: LineWriter
    private let format: WatchFormatter
    /// The game followed, as the watcher knows it.
    private var board: WatchedBoard?
    /// The player followed, once found.
    private var server: PeerInfo?
    /// A WATCH follow went out and is not yet answered with a stop.
    private var following = false
    /// Said once: the player is not (yet) on the LAN.
    private var saidLooking = false
    /// When the run began (the player is "not on the LAN" only after `config.timeout`).
    private var startedAt: Instant?
    private var status: Int32?
    /// Listing: who has yet to answer, and the games heard.
    private var asked: Set<ID128> = []
    private var listed: [(server: PeerInfo, game: ListedGame)] = []
    /// Full screen (`config.fullScreen`, following a player): the board drawn, no lines written.
    private var screen: WatchFront<WatchScreen>?
    /// The full screen's last line, and the one said in the shell when it could not watch.
    private var lastLine: String?
    private var farewell: String?
    /// Why the player's daemon last stopped our watch (its game over, none yet).
    private var lastStop: WatchStopReason?

    /// How often to ask again when there is nothing to follow.
    static let retry: Duration = .seconds(2)

    public init(reactor: Reactor, daemon: Daemon, config: WatchConfiguration, log: @escaping (String) -> Void) {
        self.reactor = reactor
        self.daemon = daemon
        self.config = config
        self.log = log
        format = WatchFormatter(json: config.json)
        output = LineWriter(gapLine: OutputFormatter(style: config.json ? .json : .text).gapLine)
        lifecycle = RunnerLifecycle(reactor: reactor)
    }

    /// 130 after SIGINT, `WatchApp.unavailableStatus` when the player cannot be watched, else 0.
    public var exitStatus: Int32 { status ?? lifecycle.exitStatus }

    public func run(connectTo peers: [[SocketAddress]]) throws(NetError) {
        try lifecycle.start { [daemon, unowned self] deadline, done in
            screen?.stop()
            // Why a full screen that could not watch went: said again on the main screen.
            if let farewell { output.write(farewell) }
            daemon.leave(within: deadline, then: done)
        }
        daemon.onEvent = { [unowned self] event in handle(event) }
        if config.fullScreen, let player = config.player {
            let front = WatchFront(WatchScreen(color: config.color, unicode: WatchFront<WatchScreen>.unicode))
            front.onQuit = { [unowned self] interrupted in interrupted ? lifecycle.interrupt() : lifecycle.quit() }
            front.screen.status = "Looking for \(player)"
            try front.start(reactor: reactor)
            screen = front
        }
        startedAt = reactor.now
        output.attach(to: reactor)
        for addresses in peers { daemon.keepConnecting(to: addresses) }
        if config.player == nil {
            reactor.schedule(after: config.timeout) { [weak self] in self?.askForLists() }
        } else {
            reactor.schedule(after: .milliseconds(200)) { [weak self] in self?.follow() }
        }
        defer { output.drain(within: .seconds(1)) }
        try lifecycle.run()
    }

    /// Lines for the plain output; on the full screen, the status line says the last of them
    /// and the board (`board`) is drawn as it is.
    private func write(_ lines: [String]) {
        guard let screen else { return lines.forEach { output.write($0) } }
        lastLine = lines.last ?? lastLine
        let board = self.board
        screen.update { s in
            s.board = board
            s.status = board.map { WatchScreen.status(of: $0) } ?? s.status
            if board == nil || board?.end != nil, let last = lines.last, !last.hasPrefix(" ") { s.status = last }
        }
    }

    private func quit(status: Int32? = nil) {
        if let status { self.status = status }
        if status != nil, screen != nil { farewell = lastLine }
        lifecycle.quit()
    }

    // MARK: - Following one player

    /// Asks the player for its game, or tries again later while it is not found.
    private func follow() {
        guard !lifecycle.leaving, !following, let player = config.player else { return }
        do {
            try daemon.command(.watch(player, Watch(.follow)))
            following = true
        } catch {
            switch error {
            case .noSpectators:
                write([format.notice("\(player) serves no watchers (an older tictac, or --no-spectators)")])
                return quit(status: WatchApp.unavailableStatus)
            case .noSuchPeer where !saidLooking && reactor.now >= (startedAt ?? reactor.now) + config.timeout:
                saidLooking = true
                write([format.notice("\(player) is not on the LAN (yet): looking")])
            default:
                break
            }
            reactor.schedule(after: .milliseconds(500)) { [weak self] in self?.follow() }
        }
    }

    private func again() {
        following = false
        reactor.schedule(after: Self.retry) { [weak self] in self?.follow() }
    }

    private func handle(_ event: DaemonEvent) {
        switch event {
        case let .watched(update, from): watched(update, from: from)
        case let .peerLost(p, _) where p.id == server?.id && following:
            if let board, board.end == nil { write(format.ended(board, WatchEnd(winner: 0, how: .noResult))) }
            board = nil
            again()
        case let .protocolError(p, code, message, _):
            log("\(p?.name ?? "a peer"): \(code) \(message)")
            if p?.id == server?.id { again() }
        case let .connectFailed(to, reason):
            log("cannot connect to \(to): \(reason)")
            if following, asked.isEmpty { again() }
        default:
            break
        }
    }

    private func watched(_ update: WatchUpdate, from peer: PeerInfo) {
        if case let .games(list) = update { return heard(list, from: peer) }
        if case .stopped = update, asked.remove(peer.id) != nil { return listDone() }
        guard config.player != nil else { return }
        server = peer
        switch update {
        case let .game(g):
            lastStop = nil
            if let b = board, b.end == nil { write(format.ended(b, WatchEnd(winner: 0, how: .noResult))) }
            board = WatchedBoard(g, from: peer)
            if let board { write(format.started(board)) } else { write([format.notice("a game tictac cannot show")]) }
        case let .move(cell, number):
            guard var b = board, b.move(cell: cell, number: number) else {
                // Not the next move of the board we hold: ask again for the whole game.
                write([format.notice("move \(number) does not fit the board: asking for the game again")])
                following = false
                return follow()
            }
            board = b
            write(format.moved(b))
        case let .ended(e):
            guard var b = board else { return }
            b.finish(e)
            board = b
            write(format.ended(b, e))
        case let .stopped(reason):
            // Asked again every 2 s while the player is not playing: said once until it changes.
            if reason != lastStop { write(format.stopped(peer, reason)) }
            lastStop = reason
            switch reason {
            case .off, .full: quit(status: WatchApp.unavailableStatus)
            case .noGame, .over, .stopped: again()
            }
        case .games:
            break
        }
    }

    // MARK: - Listing the games of the LAN

    private func askForLists() {
        let players = daemon.peers.filter {
            // A peer known only by a link (`--connect`) has announced no state: it is asked too.
            $0.capabilities.contains(.spectators) && ($0.state == .playing || $0.capabilities.contains(.bot) || $0.via.isEmpty)
        }
        for p in players {
            do {
                try daemon.command(.watch(p.id.description, Watch(.list)))
                asked.insert(p.id)
            } catch {
                log("cannot ask \(p.name) for its games: \(error)")
            }
        }
        if asked.isEmpty { return listDone() }
        reactor.schedule(after: .seconds(3)) { [weak self] in self?.listDone(force: true) }
    }

    private func heard(_ games: [ListedGame], from peer: PeerInfo) {
        for g in games {
            // Both players list their game: it is listed once, under the name that sorts first,
            // whichever answered first (the same line every run).
            if let i = listed.firstIndex(where: { $0.server.id == g.opponent.id && $0.game.opponent.id == peer.id }) {
                if (peer.name.lowercased(), peer.id) < (listed[i].server.name.lowercased(), listed[i].server.id) { listed[i] = (peer, g) }
                continue
            }
            listed.append((peer, g))
        }
        asked.remove(peer.id)
        listDone()
    }

    private func listDone(force: Bool = false) {
        guard config.player == nil, !lifecycle.leaving, asked.isEmpty || force else { return }
        asked.removeAll()
        write(format.list(listed.sorted { ($0.server.name.lowercased(), $0.server.id) < ($1.server.name.lowercased(), $1.server.id) }))
        quit()
    }
}
