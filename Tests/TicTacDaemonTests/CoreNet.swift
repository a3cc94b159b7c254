import Testing
import TicTacAPI
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

/// DaemonCores joined by in-memory links whose delivery the test controls, so messages can be
/// made to cross exactly: both sides act before either hears the other. Bytes go through the
/// real encoder and stream decoder.
struct CoreNet {
    var cores: [DaemonCore]
    var events: [[DaemonEvent]]
    var now = Instant.zero
    /// Each connection's two cores; its link id is the same number on both.
    private(set) var wires: [LinkID: (Int, Int)] = [:]
    /// In flight, per core and link: frames waiting to be delivered to that core.
    private var inbox: [[LinkID: [UInt8]]]
    private var decoders: [[LinkID: FrameDecoder]]
    private(set) var closed: Set<LinkID> = []
    /// Links lost on the way whose one end has not seen it yet (`closeOneSide`): that core.
    private(set) var unaware: [LinkID: Int] = [:]
    /// `dial` actions per core: the peer asked for, its addresses and port.
    var dials: [[(peer: ID128, addresses: [String], port: UInt16)]]
    /// Lines for each core's operator log.
    var logs: [[String]]
    /// History facts each core queued (`record`), in order.
    var records: [[GameFactRecord]]
    /// Bot searches handed out (`think`) and not yet answered, per core.
    var thinks: [[BotSearchJob]]
    /// Engine requests (`DaemonConfig.engine`), per core, in order.
    var engineRequests: [[EngineRequest]]
    /// The traffic keys each core gave out (`DaemonConfig.logsKeys`).
    var keys: [[LinkKeys]]
    /// Every search handed out, per core, in order.
    var searched: [[BotSearchJob]]
    /// Every frame each core sent, on any link, in order (whole frames, so one stream).
    private var sentBytes: [[UInt8]]
    /// Frames that vanish on the way: given the receiving core and the message, true drops it.
    var drop: ((Int, Message) -> Bool)?
    /// Each core's `boundQueue` actions: the unsent bytes each link may hold.
    var bounds: [[LinkID: Int]]
    /// Each core's actions of its last poll, in order (the order the shell carries them out).
    var lastActions: [[DaemonAction]]

    init(_ configs: DaemonConfig...) {
        self.init(configs, sealed: false)
    }

    /// `sealed`: the cores keep their versions (version 2 seals every frame: `sent`, `drop` and
    /// `inject` then see nothing readable; events tell what happened).
    init(_ configs: [DaemonConfig], sealed: Bool) {
        // The harness reads, drops and injects frames by message: version 1 keeps them in clear
        // (AuthenticatedStreamTests joins version-2 cores through a relay of its own).
        cores = configs.map { config in
            var c = config
            if !sealed { c.versions = 1...1 }
            return DaemonCore(config: c)
        }
        bounds = Array(repeating: [:], count: configs.count)
        lastActions = Array(repeating: [], count: configs.count)
        events = Array(repeating: [], count: configs.count)
        inbox = Array(repeating: [:], count: configs.count)
        decoders = Array(repeating: [:], count: configs.count)
        dials = Array(repeating: [], count: configs.count)
        logs = Array(repeating: [], count: configs.count)
        records = Array(repeating: [], count: configs.count)
        thinks = Array(repeating: [], count: configs.count)
        engineRequests = Array(repeating: [], count: configs.count)
        keys = Array(repeating: [], count: configs.count)
        searched = Array(repeating: [], count: configs.count)
        sentBytes = Array(repeating: [], count: configs.count)
    }

    /// The messages core `i` has sent so far, on every link.
    func sent(_ i: Int) -> [Message] {
        var decoder = FrameDecoder()
        decoder.feed(sentBytes[i])
        var out: [Message] = []
        while let frame = try? decoder.next(), let m = try? Message(frame: frame) { out.append(m) }
        return out
    }

    /// The frames core `i` has sent so far, on every link, as on the wire (sealed ones sealed).
    func sentFrames(_ i: Int) -> [Frame] {
        var decoder = FrameDecoder()
        decoder.feed(sentBytes[i])
        var out: [Frame] = []
        while let frame = try? decoder.next() { out.append(Frame(version: frame.version, type: frame.type, flags: frame.flags, payload: Array(frame.payload))) }
        return out
    }

    /// Tells core `i` what discovery says.
    mutating func presence(_ i: Int, _ event: DiscoveryEvent) {
        cores[i].handle(.presence(event), now: now)
        collect()
    }

    /// Opens a connection from core `dialler` to core `to`; nothing is delivered yet.
    /// Each side records the other's address, 198.18.0.(index + 1), or `address` for the dialler.
    mutating func connect(dialler: Int, to: Int? = nil, address: String? = nil) -> LinkID {
        let id = wires.count + 1
        let other = to ?? 1 - dialler
        wires[id] = (dialler, other)
        for i in [dialler, other] {
            let far = i == dialler ? "198.18.0.\(other + 1)" : address ?? "198.18.0.\(dialler + 1)"
            cores[i].handle(.linkOpened(id, outgoing: i == dialler, address: far, port: nil), now: now)
        }
        collect()
        return id
    }

    private func far(_ id: LinkID, from i: Int) -> Int {
        guard let w = wires[id] else { return i }
        return w.0 == i ? w.1 : w.0
    }

    /// Delivers everything waiting for core `i` on every link, or on one (not what that produces).
    mutating func deliver(to i: Int, link: LinkID? = nil) {
        var pending = inbox[i]
        if let link {
            pending = pending.filter { $0.key == link }
            inbox[i][link] = nil
        } else {
            inbox[i] = [:]
        }
        for id in pending.keys.sorted() where !closed.contains(id) {
            var decoder = decoders[i][id] ?? FrameDecoder()
            decoder.feed(pending[id] ?? [])
            while let frame = try? decoder.next() {
                if let drop, let m = try? Message(frame: frame), drop(i, m) { continue }
                cores[i].handle(.frame(id, frame), now: now)
            }
            decoders[i][id] = decoder
        }
        collect()
    }

    /// Completes the handshake of `link` on core `side`, and on the other only where the order
    /// of Protocol.md §4 requires it: the acceptor is ready once the dialler's PROOF is in; the
    /// dialler only once the acceptor's PROOF is, so the acceptor is then ready too.
    mutating func completeHandshake(_ link: LinkID, on side: Int) {
        guard let (dialler, acceptor) = wires[link] else { return }
        deliver(to: dialler, link: link) // the acceptor's HELLO: the dialler sends its PROOF
        deliver(to: acceptor, link: link) // HELLO and PROOF: the acceptor is ready and proves
        if side == dialler { deliver(to: dialler, link: link) }
    }

    /// Delivers in both directions until nothing is in flight.
    mutating func settle() {
        var rounds = 0
        while inbox.contains(where: { !$0.isEmpty }), rounds < 1000 {
            for i in cores.indices { deliver(to: i) }
            rounds += 1
        }
    }

    /// `inviter` dials `invitee` and invites it by `name`; `invitee` accepts: the match starts,
    /// its first roll decided.
    mutating func startMatch(_ inviter: Int = 0, _ invitee: Int = 1, invite name: String = "ben") throws(CommandError) {
        _ = connect(dialler: inviter, to: invitee)
        settle()
        try command(inviter, .invite(name))
        settle()
        try command(invitee, .accept)
        settle()
    }

    /// Core 0 or 1, whichever has the move in their game.
    var mover: Int? {
        if game(0)?.state == .myTurn { return 0 }
        return game(1)?.state == .myTurn ? 1 : nil
    }

    /// A fixed order of cells: `play`'s each move takes the first still empty.
    static let script = [4, 0, 8, 2, 6, 3, 5, 1, 7]

    /// Up to `moves` moves between cores 0 and 1 in `script`'s order, each settled; stops when
    /// nobody has the move.
    mutating func play(moves: Int) throws {
        for _ in 0..<moves {
            guard let side = mover, let board = game(side)?.board else { return }
            let cell = try #require(Self.script.first { board.emptyCells.contains($0) })
            try command(side, .move(cell))
            settle()
        }
    }

    mutating func command(_ i: Int, _ c: PlayerCommand) throws(CommandError) {
        try cores[i].perform(c, now: now)
        collect()
    }

    /// Moves the clock on; only core `only`'s timers run when given (the others are frozen:
    /// they neither send nor notice the time).
    mutating func advance(by d: Duration, only: Int? = nil) {
        now = now + d
        for i in cores.indices where only == nil || only == i { cores[i].handleTimeout(now: now) }
        collect()
    }

    /// Takes actions: bytes into the peer's inbox, closes to both ends, events to the log.
    private mutating func collect() {
        var again = true
        while again {
            again = false
            for i in cores.indices {
                var late: [DaemonAction] = []
                let main = cores[i].pollActions()
                cores[i].pollLateActions(into: &late) // as the shell: after the others
                let actions = main + late
                if !actions.isEmpty { lastActions[i] = actions }
                for action in actions {
                    switch action {
                    case let .send(id, bytes):
                        guard !closed.contains(id) else { continue }
                        inbox[far(id, from: i)][id, default: []] += bytes
                        sentBytes[i] += bytes
                    case let .close(id, _):
                        guard !closed.contains(id) else {
                            // The end that had not seen the loss gives the link up itself.
                            if unaware[id] == i {
                                unaware[id] = nil
                                cores[i].handle(.linkClosed(id, reason: "closed"), now: now)
                                again = true
                            }
                            continue
                        }
                        // What was sent on this link before the close arrives first; other links'
                        // bytes may arrive later (TCP orders one connection, not two).
                        deliver(to: far(id, from: i), link: id)
                        closed.insert(id)
                        for j in [i, far(id, from: i)] { cores[j].handle(.linkClosed(id, reason: "closed"), now: now) }
                        collect()
                        again = true
                    case let .dial(peer, addresses, port):
                        dials[i].append((peer, addresses, port))
                    case let .event(e):
                        events[i].append(e)
                    case let .log(line):
                        logs[i].append(line)
                    case let .record(r):
                        records[i].append(r)
                    case let .think(job):
                        thinks[i].append(job) // answered by `answerSearches`
                    case let .boundQueue(id, maxBytes):
                        bounds[i][id] = maxBytes
                    case let .engine(request):
                        engineRequests[i].append(request) // answered by the test (EngineCoreTests)
                    case let .keys(k):
                        keys[i].append(k)
                    }
                }
            }
        }
        for core in cores {
            if let fault = core.seatFault { Issue.record("the seat disagrees with the links: \(fault)") }
        }
    }

    /// Runs core `i`'s searches handed out so far and gives it the answers (as its worker would).
    mutating func answerSearches(_ i: Int) {
        let jobs = thinks[i]
        thinks[i] = []
        searched[i] += jobs
        for job in jobs { cores[i].handle(.botMoveReady(job.run()), now: now) }
        collect()
    }

    /// Gives core `i` an engine host's answer.
    mutating func answerEngine(_ i: Int, _ answer: EngineAnswer) {
        cores[i].handle(.engineAnswered(answer), now: now)
        collect()
    }

    /// Delivers a message to core `i` on `link` as if its peer had sent it.
    mutating func inject(_ message: Message, to i: Int, link: LinkID) {
        cores[i].handle(.frame(link, message.frame()), now: now)
        collect()
    }

    /// Core `i` sends `message` on `link` as no command of its would: encoded in the link's
    /// version and sealed with its keys when it has them (a peer that misbehaves on purpose).
    mutating func send(_ message: Message, from i: Int, link: LinkID) {
        guard let l = cores[i].links[link], !closed.contains(link) else { return }
        var bytes = message.encoded(version: l.version ?? 1)
        if l.session.cipher != nil { _ = l.session.cipher?.seal(&bytes, frameAt: 0) }
        inbox[far(link, from: i)][link, default: []] += bytes
    }

    /// Core `i`'s player quits (LEAVE on every link, then close).
    mutating func leaveAll(_ i: Int) {
        cores[i].leaveAll()
        collect()
        settle()
    }

    /// The connection drops (both ends see it close).
    mutating func close(_ id: LinkID) {
        if let side = unaware.removeValue(forKey: id) {
            cores[side].handle(.linkClosed(id, reason: "dropped"), now: now)
            return collect()
        }
        guard let (a, b) = wires[id], !closed.contains(id) else { return }
        closed.insert(id)
        for i in [a, b] { cores[i].handle(.linkClosed(id, reason: "dropped"), now: now) }
        collect()
    }

    /// The connection is lost on the way: core `side` sees it close, the other end not yet (it
    /// learns when it gives the link up itself, or `close` tells it). What is in flight is lost.
    mutating func closeOneSide(_ id: LinkID, seenBy side: Int) {
        guard let (a, b) = wires[id], !closed.contains(id) else { return }
        closed.insert(id)
        unaware[id] = side == a ? b : a
        cores[side].handle(.linkClosed(id, reason: "dropped"), now: now)
        collect()
    }

    /// Core `i` is killed and started again as `core`: the peers see its links close (a reset),
    /// and nothing in flight to or from it arrives.
    mutating func restart(_ i: Int, as core: DaemonCore) {
        cores[i] = core
        for (id, ends) in wires.sorted(by: { $0.key < $1.key }) where ends.0 == i || ends.1 == i {
            let far = ends.0 == i ? ends.1 : ends.0
            let farKnows = closed.contains(id) && unaware[id] != far
            closed.insert(id)
            unaware[id] = nil
            if !farKnows { cores[far].handle(.linkClosed(id, reason: "reset"), now: now) }
        }
        collect()
    }

    func count(_ i: Int, _ match: (DaemonEvent) -> Bool) -> Int { events[i].count(where: match) }
    var errors: [DaemonEvent] {
        (events[0] + events[1]).filter { if case .protocolError = $0 { true } else { false } }
    }
    func game(_ i: Int) -> GameSession? { cores[i].currentGame }
}
