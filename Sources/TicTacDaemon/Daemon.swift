#if canImport(Glibc)
import Glibc
#endif
import TicTacAPI
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacEngine
import TicTacNet
import TicTacWire
import TicTacTime
import TicTacDaemonCore

/// The daemon's I/O shell: owns the listener and the connections on a Reactor and does what
/// DaemonCore's actions say. Several daemons can share one reactor (as the tests do).
public final class Daemon {
    public let reactor: Reactor
    /// The sans-I/O core; fronts ask through DaemonQueries' narrow questions.
    let core: DaemonCore
    // Callbacks over private storage: no run-time exclusivity check (docs/performance.md, "Exclusivity").
    /// Called for everything the player should hear.
    public var onEvent: (DaemonEvent) -> Void { get { eventHandler } set { eventHandler = newValue } }
    private var eventHandler: (DaemonEvent) -> Void = { _ in }
    /// Called for each line of the operator's log (DaemonAction.log): stderr in the app.
    public var onLog: (String) -> Void { get { logHandler } set { logHandler = newValue } }
    private var logHandler: (String) -> Void = { _ in }
    /// Stores game facts in the history (`DaemonConfig.keepsHistory`), synchronously: a turn's
    /// facts together, before any of that turn's frames leave. False when they could not be
    /// stored: that turn's frames to those peers are not sent (`DaemonInput.historyFailed`).
    public var onRecord: ([GameFactRecord]) -> Bool { get { recordHandler } set { recordHandler = newValue } }
    private var recordHandler: ([GameFactRecord]) -> Bool = { _ in true }
    /// An engine's own lines (MESSAGE, DEBUG, ERROR...): its chatter, below the operator's log.
    public var onEngineNote: (String) -> Void = { _ in }
    /// A version-2 link's traffic keys, for the key log (`DaemonConfig.logsKeys`).
    public var onKeys: (LinkKeys) -> Void = { _ in }
    /// A turn's facts being stored (kept between turns for its capacity).
    private var records: [GameFactRecord] = []
    /// The raw-bytes tap: every link's bytes in and out, stamped with the reactor's time.
    /// Set it before connections are made (each link is wired when it opens).
    public var tap: ((LinkID, Instant, LinkTapEvent) -> Void)?
    /// Links at most (open connections, dials included). At the limit a new connection takes
    /// the place of a link of the greediest source, else of an idle stranger
    /// (DaemonCore.admit); with none, it is refused with ERROR `busy` (Protocol.md §5). The default leaves room under the
    /// descriptor limit, which `init` raises to the hard limit.
    public var maxConnections: Int
    /// Accepted connections at most from one source address (Protocol.md §5, `busy`): one host
    /// cannot take every slot (the core's Admission decides).
    public var maxLinksPerAddress: Int {
        get { core.maxLinksPerAddress }
        set { core.maxLinksPerAddress = newValue }
    }
    /// The same from one network prefix (SourcePrefix: /24, /64): one host with many addresses
    /// cannot take every slot either. Never below `maxLinksPerAddress`.
    public var maxLinksPerPrefix: Int {
        get { core.maxLinksPerPrefix }
        set { core.maxLinksPerPrefix = newValue }
    }
    /// Refused connections still flushing their ERROR `busy`; past `maxRefusing` a refused
    /// connection is closed bare, so refusing costs at most that many descriptors.
    private var refusals: [ObjectIdentifier: FrameConnection] = [:]
    /// Connections the core closed, flushing their last frames (at most their linger).
    private var lingering: [ObjectIdentifier: FrameConnection] = [:]
    private let maxRefusing = 64
    /// Trims the heap after a burst of closes (a flood gone).
    private lazy var trimmer = HeapTrimmer(reactor: reactor)
    /// Connections refused or dropped for room (busy), for logs and tests.
    public private(set) var refusedCount = 0

    private var listener: TCPListener?
    private var connections: [LinkID: FrameConnection] = [:]
    /// The core's actions being carried out (kept between calls for its capacity).
    private var actionBuffer: [DaemonAction] = []
    /// The watchers' frames, served a few links a turn of the loop after the others (LateFrames).
    private lazy var late = LateFrames(reactor: reactor, core: core, connection: { [unowned self] in connection($0) },
                                       close: { [unowned self] id, flush in close(id, flush: flush) })
    var nextLink: LinkID = 1
    /// Set by `leave()`: dials dropped on the way out are not failures to report.
    var leaving = false
    private let timer: DeadlineTimer
    /// Every presence-table change, after the core has seen it (the collaborative field's
    /// participants come from here, Protocol.md §11).
    public var onPresence: (DiscoveryEvent) -> Void = { _ in }
    /// The presence table (broadcast discovery, when on, and DNS-SD feed it), once started.
    public var presence: PresenceService? { presenceService }
    var presenceService: PresenceService? // stored apart: no run-time exclusivity check
    /// DNS-SD publication and browsing, once started.
    public internal(set) var dnssd: DNSSDAgent?
    /// The bot's search thread, made at the first search (BotWorker).
    var botWorker: BotWorker?
    /// The external engine's processes (`useEngine`), for a bot whose moves come from one.
    var engineHost: EngineHost?

    /// Starts listening on `port` (0: the kernel picks; see `port`).
    public init(reactor: Reactor, config: DaemonConfig, port: UInt16 = 0) throws(NetError) {
        self.reactor = reactor
        self.core = DaemonCore(config: config)
        timer = DeadlineTimer(reactor: reactor)
        // Room for the listener, discovery, stdin/stdout, signals, and what refusing needs.
        maxConnections = max(16, min(4096, DescriptorLimit.raise() - 64 - 64))
        listener = try TCPListener(reactor: reactor, port: port) { [weak self] fd, remote in
            self?.accepted(fd, remote)
        }
        listener?.onError = { [weak self] error in self?.onLog("accepting a connection: \(error)") }
        timer.onFire = { [weak self] in
            guard let self else { return }
            core.handleTimeout(now: reactor.now)
            apply()
        }
        reactor.whenStalled { [weak self] length in // the peers' silence meanwhile was ours (DaemonInput.stalled)
            self?.core.handle(.stalled(length), now: reactor.now)
            self?.apply()
        }
    }

    /// The TCP port actually listened on (the one to announce).
    public var port: UInt16 { listener?.port ?? 0 }

    public var connectionCount: Int { connections.count }

    /// Carries out a player command.
    public func command(_ command: PlayerCommand) throws(CommandError) {
        defer { apply() }
        try core.perform(command, now: reactor.now)
    }

    /// Sends LEAVE to every peer and closes every connection after flushing; stops listening.
    public func leave() {
        leaving = true
        presence?.stop() // GOODBYE
        dnssd?.stop() // unpublished
        dnssd = nil
        core.leaveAll()
        apply()
        engineHost?.stopAll() // any process the core's stops left (none, normally)
        // Dials still in progress are not links yet: just drop them.
        for conn in connections.values where !conn.isConnected { conn.close() }
        listener?.close()
        listener = nil
    }

    /// `leave()`, then calls `done` once every connection has flushed and closed, or after
    /// `limit` at the latest (a peer that stopped reading must not hold up the exit).
    public func leave(within limit: Duration, then done: @escaping () -> Void) {
        leave()
        let deadline = reactor.now + limit
        func check() {
            if connections.isEmpty || reactor.now >= deadline { return done() }
            reactor.schedule(after: .milliseconds(10)) { check() }
        }
        check()
    }

    // MARK: - Connections

    private func accepted(_ fd: Int32, _ remote: SocketAddress) {
        let ip = remote.ip
        switch core.admit(from: ip, connections: connections.count, maxConnections: maxConnections) {
        case .accept: break
        case let .refuse(why): return refuse(fd, remote, why)
        case let .acceptDropping(idle):
            refusedCount += 1
            core.dropForRoom(idle, now: reactor.now)
            apply()
        }
        let conn: FrameConnection
        do {
            conn = try FrameConnection(reactor: reactor, accepted: fd, remote: remote, decoder: FrameInbound())
        } catch {
            onLog("cannot use the connection from \(remote): \(error)")
            Glibc.close(fd)
            return
        }
        let id = nextLink
        nextLink += 1
        wire(conn, id: id)
        tap?(id, reactor.now, .opened(outgoing: false, remote: remote))
        core.handle(.linkOpened(id, outgoing: false, address: ip, port: remote.port), now: reactor.now)
        apply()
    }

    /// Answers ERROR `busy` before any HELLO, then closes after a short linger (Protocol.md §5).
    private func refuse(_ fd: Int32, _ remote: SocketAddress, _ why: String) {
        refusedCount += 1
        onLog("refused \(remote): \(why)")
        guard refusals.count < maxRefusing,
              let conn = try? FrameConnection(reactor: reactor, accepted: fd, remote: remote, decoder: FrameInbound()) else {
            Glibc.close(fd)
            return
        }
        let key = ObjectIdentifier(conn)
        refusals[key] = conn // held until it has closed
        conn.onClose = { [weak self] _ in self?.refusals[key] = nil }
        conn.send(Message.error(code: ErrorCode.busy.rawValue, message: why).encoded(version: ProtocolVersion.current))
        conn.closeAfterFlush(linger: .milliseconds(500))
    }

    func wire(_ conn: FrameConnection, id: LinkID, fallback: [SocketAddress] = [], dialling peer: ID128? = nil,
                      since: Instant = Instant.zero, onConnected: ((LinkID, SocketAddress) -> Void)? = nil,
                      onFailure: ((String, String) -> Void)? = nil) {
        var all = takeOut(&connections)
        all[id] = conn
        connections = all
        if let tap {
            conn.onRead = { [weak self] bytes in
                guard let self else { return }
                tap(id, reactor.now, .received(Array(bytes)))
            }
            conn.onWrite = { [weak self] bytes in
                guard let self else { return }
                tap(id, reactor.now, .sent(Array(bytes)))
            }
        }
        conn.onMessage = { [weak self] frame in
            guard let self else { return }
            core.handle(.frame(id, frame), now: reactor.now)
            apply()
        }
        conn.onDecodeError = { [weak self] error in
            guard let self else { return }
            core.handle(.decodeFailed(id, error), now: reactor.now)
            apply()
        }
        // `conn` unowned, not weak (a side table slows every retain: docs/performance.md). The
        // closure runs while the connection is still in `connections` (close() leaves a closed
        // one there for it), and holds it from its first line.
        conn.onClose = { [weak self, unowned conn] reason in
            guard let self else { return }
            let conn = conn // removing it from `connections` below may drop the last other reference
            removeConnection(id)
            if conn.isConnected { tap?(id, reactor.now, .closed(reason.description)) }
            trimmer.linkClosed()
            core.connectionGone(id)
            if !conn.isConnected, conn.isOutgoing, !leaving {
                // The core never saw this link: the next address is tried.
                if !fallback.isEmpty { return connect(to: fallback, dialling: peer, since: since, onConnected: onConnected, onFailure: onFailure) }
                failed(conn.remote.description, peer: peer, reason: reason, since: since, onFailure: onFailure)
            }
            core.handle(.linkClosed(id, reason: reason.description), now: reactor.now)
            apply()
        }
    }

    /// The core closed a link: it leaves `connections` now, the core hears of it after this
    /// batch (never re-entered while carrying out its actions), and the socket flushes, shuts
    /// down and lingers on its own (TCPConnection.closeAfterFlush), held in `lingering`.
    private func close(_ id: LinkID, flush: Bool) {
        guard let conn = connection(id) else { return }
        // Already closed this turn (the peer's FIN, an error): the close callback wire() set is
        // on its way, at the end of the turn, and does all of this itself (tells the core the
        // connection is gone, then closed). Doing it here too once let one address past its limit, and the
        // connection stayed in `lingering` for good (its new callback could never run).
        guard !conn.isClosed else { return }
        removeConnection(id)
        core.connectionGone(id)
        conn.onMessage = nil
        conn.onDecodeError = nil
        let key = ObjectIdentifier(conn)
        lingering[key] = conn
        conn.onClose = { [weak self] _ in
            self?.lingering[key] = nil
            self?.trimmer.linkClosed()
        }
        if flush { conn.closeAfterFlush() } else { conn.close() }
        reactor.afterBatch { [weak self] in
            guard let self else { return }
            core.handle(.linkClosed(id, reason: "closed"), now: reactor.now)
            apply()
        }
    }

    // MARK: - Actions and the timer

    func apply() {
        var pending: [DaemonAction] = []
        swap(&pending, &actionBuffer) // the buffer kept from the last call (none when re-entered)
        defer { pending.clearKeepingCapacity(); swap(&pending, &actionBuffer) }
        core.pollActions(into: &pending)
        // Two passes. First what goes to the network and the links (frames, closes, dials) and
        // the bot's searches, in order; then the notifications (events to the front, log lines),
        // in order. A front's work (a JSON line written, a screen drawn) then never stands
        // between a frame and the peer waiting for it, and a turn's frames for one link leave in
        // one send() even when an event came between them (a bot's game-ending MOVE, its
        // game-over, then the next game's RESET and commitment). Nor can an event handler's
        // command put its frames before frames the core queued earlier.
        // Consecutive frames for one link leave in one send(): a stream does not keep frame
        // boundaries (Protocol.md §2): fewer system calls here, and fewer wake-ups and reads at
        // the peer.
        var batch: (id: LinkID, bytes: [UInt8])?
        func sendBatch() {
            guard let b = batch else { return }
            batch = nil
            connection(b.id)?.send(b.bytes)
            core.recycle(b.bytes) // written or copied into the connection's queue: reused
        }
        let unstored = core.config.keepsHistory ? storeRecords(&pending) : []
        var notes = false
        for i in pending.indices {
            // The notifications stay where they are for the second pass (their kind is read
            // without copying them).
            switch pending[i] {
            case .event, .log:
                notes = true
                continue
            default:
                break
            }
            // Each action is moved out (a payload-free one left in its place, never carried out,
            // until the buffer is emptied): copying it cost more than most actions' work.
            var action = DaemonAction.close(0, flush: false)
            swap(&action, &pending[i])
            switch consume action {
            case let .send(id, bytes):
                if !unstored.isEmpty, let peer = core.peer(of: id), unstored.contains(peer) {
                    core.recycle(bytes) // its facts are not stored: it must not leave (Protocol.md §13)
                    continue
                }
                if batch?.id == id {
                    batch?.bytes.append(contentsOf: bytes)
                    core.recycle(bytes)
                } else {
                    sendBatch()
                    batch = (id, bytes)
                }
            case .event, .log:
                break // left for the second pass, above
            case let .close(id, flush):
                sendBatch()
                close(id, flush: flush)
            case let .dial(peer, addresses, port):
                sendBatch()
                connect(to: addresses.compactMap { SocketAddress(ip: $0, port: port) }, dialling: peer)
            case let .think(job):
                sendBatch()
                think(job)
            case let .keys(keys):
                onKeys(keys) // before the link's first sealed frame leaves
            case let .engine(request):
                sendBatch()
                engineHost?.handle(request)
            case .record:
                break // taken out and stored first (storeRecords)
            case let .boundQueue(id, maxBytes):
                connection(id)?.maxQueuedBytes = maxBytes
            }
        }
        sendBatch()
        late.take()
        if notes {
            for i in pending.indices {
                switch pending[i] {
                case .event, .log: break
                default: continue // carried out, or a placeholder
                }
                var action = DaemonAction.close(0, flush: false)
                swap(&action, &pending[i])
                switch consume action {
                case let .event(event): onEvent(event)
                case let .log(line): onLog(line)
                case .send, .close, .dial, .think, .engine, .record, .boundQueue, .keys: break // carried out in the first pass
                }
            }
        }
        if !unstored.isEmpty {
            core.handle(.historyFailed(unstored), now: reactor.now)
            apply()
        }
        if let presence, let state = core.presenceChanged() {
            var local = presence.local
            local.state = state
            presence.update(local)
        }
        rearm()
    }

    /// The turn's history facts, in one call before any of its frames are sent: a fact is then
    /// stored before the frame that tells the peer (and one after it a moment early, harmless).
    /// The peers whose facts could not be stored (none when all were).
    private func storeRecords(_ pending: inout [DaemonAction]) -> Set<ID128> {
        for action in pending { if case let .record(fact) = action { records.append(fact) } }
        guard !records.isEmpty else { return [] }
        pending.removeAll { if case .record = $0 { true } else { false } }
        let failed = onRecord(records) ? [] : Set(records.map(\.peer))
        records.removeAll(keepingCapacity: true)
        return failed
    }

    private func rearm() { timer.follow(core.pollTimeout()) }

    // `connections` read through a copy, changed while taken out (docs/performance.md, "Exclusivity").
    private func connection(_ id: LinkID) -> FrameConnection? {
        let all = connections
        return all[id]
    }

    private func removeConnection(_ id: LinkID) {
        var all = takeOut(&connections)
        all.removeValue(forKey: id)
        connections = all
    }
}
