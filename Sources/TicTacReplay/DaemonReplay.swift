import TicTacAPI
import TicTacDaemonCore
import TicTacEngine
import TicTacTime
import TicTacWire

// Theory of operation
//
// A daemon is a function of its inputs: the seed (every random draw: key, nonces, ids, rolls,
// bot choices), the bytes its peers sent and when, and its player's commands. A capture holds
// the bytes and the times; the fixture records the seed. So a fresh DaemonCore given the same
// seed and fed each received byte at its captured time must send exactly the bytes the capture
// shows it sent, on every connection.
//
// The player's commands are not on the wire, but each one shows as the frame it makes the
// daemon send (MOVE, RESIGN, ACCEPT, INVITE, LEAVE, ...). When the capture shows our daemon
// sending a frame the core has not produced from its inputs and timers, the replay gives the
// core the command that makes that frame, at the frame's captured time. A bot takes no
// commands (only the LEAVE of its exit), so every move it makes must come from the core.
//
// Times: the captured times (Unix nanoseconds) become Instants relative to the first packet.
// Before each captured input the core's due timers run, as the reactor runs them.

/// Replays one daemon of a capture through a fresh DaemonCore.
public struct DaemonReplay {
    private let daemon: ReplayedDaemon
    private let config: DaemonConfig
    private var core: DaemonCore
    private let ourID: ID128
    private let isBot: Bool
    private var t0: Int64 = 0
    private var report = ReplayReport()
    private var produced: [LinkID: [UInt8]] = [:]
    private var expected: [LinkID: [UInt8]] = [:]
    private var closed: Set<LinkID> = []
    private var diverged: Set<LinkID> = []
    private var readers: [LinkID: FrameReader] = [:]
    private var peers: [LinkID: Endpoint] = [:]
    private var peerIDs: [LinkID: ID128] = [:]
    /// The capabilities our daemon's captured HELLO offered.
    private var captured: Capabilities?

    public init(_ daemon: ReplayedDaemon) throws(ReplayError) {
        self.daemon = daemon
        config = try daemon.config()
        core = DaemonCore(config: config)
        ourID = config.instanceID
        isBot = daemon.bot != nil
    }

    /// The instance id the seed gives (how the daemon's connections are found in a capture).
    public var instanceID: ID128 { ourID }

    private enum Input {
        case open(LinkID, outgoing: Bool, peer: Endpoint)
        case received(LinkID, [UInt8])
        case sent(LinkID, [UInt8])
        case peerClosed(LinkID, reset: Bool)
    }

    /// Replays every connection of `capture` on which this daemon sent its HELLO.
    ///
    /// The captured time of a received segment is when it reached the host, not when the
    /// daemon read it: a daemon busy with its own output (a bot's last move, its LEAVE) may
    /// send before it reads what had already arrived, so the two crossed. When the replay
    /// diverges on a frame our daemon sent, it is tried again with that send placed before
    /// the peer input received just before it (within `crossingWindow`), as long as that helps.
    public mutating func run(_ capture: Capture) -> ReplayReport {
        var inputs: [(time: Int64, input: Input)] = []
        var timed: [(time: Int64, packet: Int, order: Int, input: Input)] = []
        var links = 0
        for conn in capture.connections {
            guard let weAreClient = ourSide(of: conn) else { continue }
            // What the captured daemon offered: the options of its command line that the seed
            // does not give (spectators, claims, resume), as its HELLO shows them.
            if captured == nil { captured = Self.firstHello(conn.bytes(fromClient: weAreClient))?.capabilities }
            links += 1
            let id = links
            let peer = weAreClient ? conn.server : conn.client
            peers[id] = peer
            if let hello = Self.firstHello(conn.bytes(fromClient: !weAreClient)) { peerIDs[id] = hello.instanceID }
            timed.append((conn.established, conn.establishedPacket, timed.count, .open(id, outgoing: weAreClient, peer: peer)))
            for e in conn.events {
                let ours = e.fromClient == weAreClient
                let input: Input
                switch e.kind {
                case let .data(bytes): input = ours ? .sent(id, bytes) : .received(id, bytes)
                case .fin, .reset:
                    guard !ours else { continue } // our own close is the core's action
                    input = .peerClosed(id, reset: e.kind == .reset)
                case .gap: continue // the bytes after it never arrive: the replay diverges there
                }
                timed.append((e.time, e.packet, timed.count, input))
            }
        }
        timed.sort { ($0.time, $0.packet, $0.order) < ($1.time, $1.packet, $1.order) }
        inputs = timed.map { ($0.time, $0.input) }
        // The first pass's divergence is the one reported when no order of crossings helps.
        var (result, failedAt) = pass(inputs, links: links)
        let first = result
        for _ in 0..<32 {
            guard let s = failedAt, case let .sent(link, _) = inputs[s].input else { break }
            // The nearest earlier input from the peer on that link, close enough to have crossed.
            guard let r = (0..<s).reversed().first(where: { i in
                guard inputs[s].time - inputs[i].time <= Self.crossingWindow else { return false }
                switch inputs[i].input {
                case let .received(l, _), let .peerClosed(l, _): return l == link
                default: return false
                }
            }) else { break }
            let send = inputs.remove(at: s)
            inputs.insert((inputs[r].time, send.input), at: r)
            (result, failedAt) = pass(inputs, links: links)
        }
        return result.divergences.isEmpty ? result : first
    }

    /// How long a daemon may plausibly leave received bytes unread while it sends (200 ms).
    public static let crossingWindow: Int64 = 200_000_000

    /// One replay of `inputs` in this order by a fresh core; the index of the sent input at
    /// which it diverged, if it did there.
    private mutating func pass(_ inputs: [(time: Int64, input: Input)], links: Int) -> (ReplayReport, Int?) {
        // A fresh config too: its random source is a sequence, and a pass starts it over.
        var fresh = (try? daemon.config()) ?? config
        fresh.logsKeys = true // the keys it derives go to the report (ReplayReport.keys)
        if let captured {
            fresh.capabilities = captured
            fresh.spectators = captured.contains(.spectators)
        }
        core = DaemonCore(config: fresh)
        report = ReplayReport()
        report.links = links
        produced = [:]; expected = [:]; closed = []; diverged = []; readers = [:]
        t0 = inputs.first?.time ?? 0
        var failedAt: Int?
        for (index, (time, input)) in inputs.enumerated() {
            let now = instant(time)
            runTimers(until: now)
            switch input {
            case let .open(id, outgoing, peer):
                readers[id] = FrameReader()
                core.handle(.linkOpened(id, outgoing: outgoing, address: peer.ip, port: peer.port), now: now)
            case let .received(id, bytes):
                guard !closed.contains(id) else { continue } // the shell drops input after closing
                var reader = readers[id] ?? FrameReader()
                let error = reader.receive(bytes) { frame in
                    core.handle(.frame(id, frame), now: now)
                    drain(now: now)
                    return !closed.contains(id)
                }
                readers[id] = reader
                if let error, !closed.contains(id) { core.handle(.decodeFailed(id, error), now: now) }
            case let .sent(id, bytes):
                expected[id, default: []] += bytes
                report.bytesCompared += bytes.count
            case let .peerClosed(id, reset):
                guard !closed.contains(id) else { continue }
                closed.insert(id)
                core.handle(.linkClosed(id, reason: reset ? "connection reset by peer" : "the peer closed the connection"), now: now)
            }
            drain(now: now)
            runTimers(until: now)
            if case let .sent(id, _) = input {
                reconcile(id, now: now)
                if failedAt == nil, diverged.contains(id) { failedAt = index }
            }
        }
        for id in peers.keys.sorted() { finalCheck(id) }
        if failedAt == nil, !report.divergences.isEmpty {
            // Diverged at the end (bytes missing): blame the last send on that link.
            let link = peers.keys.sorted().first { diverged.contains($0) }
            failedAt = inputs.lastIndex { if case let .sent(l, _) = $0.input { l == link } else { false } }
        }
        return (report, failedAt)
    }

    // MARK: - Steps

    private func instant(_ time: Int64) -> Instant { Instant(nanoseconds: time - t0 + 1_000_000_000) }

    private mutating func runTimers(until now: Instant) {
        var guardCount = 0
        while let due = core.pollTimeout(), due <= now, guardCount < 10_000 {
            core.handleTimeout(now: due)
            drain(now: due)
            guardCount += 1
        }
    }

    /// Carries out the core's actions as the shell would.
    private mutating func drain(now: Instant) {
        var actions = core.pollActions()
        while !actions.isEmpty {
            for action in actions {
                switch action {
                case let .send(id, bytes):
                    if !closed.contains(id) { produced[id, default: []] += bytes }
                case let .close(id, _):
                    guard !closed.contains(id) else { continue }
                    closed.insert(id)
                    core.handle(.linkClosed(id, reason: "closed"), now: now)
                case let .event(e):
                    report.events.append(e)
                case .dial:
                    break // a dial shows in the capture as its own connection
                case let .keys(k):
                    report.keys.append(k)
                case .log, .record, .boundQueue:
                    break // the operator's log, the history, a queue's bound: nothing on the wire
                case let .think(job):
                    // The shell searches on its worker; here at once, in the same order.
                    core.handle(.botMoveReady(job.run()), now: now)
                case .engine:
                    break // never: a replay's configuration has no engine (DaemonConfig.engine)
                }
            }
            actions = core.pollActions()
        }
    }

    /// Compares what the core sent on `id` with the capture; when the capture shows a frame the
    /// core has not made, gives the core the player command that makes it.
    private mutating func reconcile(_ id: LinkID, now: Instant) {
        var tried = -1
        while !diverged.contains(id) {
            let have = produced[id] ?? [], want = expected[id] ?? []
            if let at = Self.firstDifference(have, want) {
                guard leftMidBatch(id, at: at, now: now) else { return diverge(id, at: at) }
                continue
            }
            guard have.count < want.count, tried != have.count else { return }
            tried = have.count
            // A sealed frame's type is in clear: a LEAVE (no fields) is known without opening it.
            guard let frame = Self.frame(in: want, at: have.count),
                  let message = (try? Message(frame: frame)) ?? (frame.type == Message.Kind.leave.rawValue ? .leave : nil),
                  command(for: message, on: id, now: now) else { return }
            drain(now: now)
        }
    }

    /// The shell carries out a batch of the core's actions in order; when an event in it makes
    /// the front leave (a bot's last game over, with --max-games), the link is closing and the
    /// batch's later sends are dropped (TCPConnection.send after closeAfterFlush). So where the
    /// capture shows LEAVE at a frame boundary and the core went on with other frames, the
    /// daemon left there: those frames never reached the socket.
    private mutating func leftMidBatch(_ id: LinkID, at offset: Int, now: Instant) -> Bool {
        let want = expected[id] ?? []
        let start = Self.frameIndex(in: want, containing: offset).1
        guard Self.frameIndex(in: produced[id] ?? [], containing: offset).1 == start,
              let frame = Self.frame(in: want, at: start), frame.type == Message.Kind.leave.rawValue,
              !report.commands.contains("leave") else { return false }
        produced[id]?.removeSubrange(start...)
        report.commands.append("leave")
        core.leaveAll()
        drain(now: now)
        return true
    }

    /// The command behind a frame our player caused; false when none does (the core must).
    private mutating func command(for message: Message, on id: LinkID, now: Instant) -> Bool {
        let command: PlayerCommand
        switch message {
        case .leave:
            report.commands.append("leave")
            core.leaveAll()
            return true
        case _ where isBot:
            return false
        case let .move(cell): command = .move(Int(cell))
        case .resign: command = .resign
        case .accept: command = .accept
        case .decline: command = .decline
        case .reset: command = .new
        case .rollCommit: command = .new // a quick roll's game opens with it, no RESET (Protocol.md §8)
        case .invite:
            guard let peer = peerIDs[id] else { return false }
            command = .invite(peer.description)
        case .cancel: command = core.currentGame != nil ? .leaveMatch : .cancel
        default: return false
        }
        report.commands.append("\(command)")
        do { try core.perform(command, now: now) } catch { return false }
        return true
    }

    private mutating func finalCheck(_ id: LinkID) {
        guard !diverged.contains(id) else { return }
        let have = produced[id] ?? [], want = expected[id] ?? []
        if let at = Self.firstDifference(have, want) ?? (have.count != want.count ? min(have.count, want.count) : nil) {
            diverge(id, at: at)
        }
    }

    private mutating func diverge(_ id: LinkID, at offset: Int) {
        diverged.insert(id)
        let have = produced[id] ?? [], want = expected[id] ?? []
        let (index, start) = Self.frameIndex(in: want, containing: offset)
        report.divergences.append(Divergence(peer: peers[id] ?? Endpoint(ip: "?", port: 0), offset: offset, frameIndex: index,
                                             expected: Self.describe(want, from: start, at: offset),
                                             replayed: Self.describe(have, from: start, at: offset)))
    }

    // MARK: - Helpers

    /// Which side of `conn` is ours (true: the client), by the instance id in its first HELLO.
    private func ourSide(of conn: CapturedConnection) -> Bool? {
        for fromClient in [true, false] {
            if let hello = Self.firstHello(conn.bytes(fromClient: fromClient)), hello.instanceID == ourID { return fromClient }
        }
        return nil
    }

    static func firstHello(_ bytes: [UInt8]) -> Hello? {
        guard let frame = frame(in: bytes, at: 0), case let .hello(h)? = try? Message(frame: frame) else { return nil }
        return h
    }

    /// The complete frame starting at `offset`, if there is one.
    static func frame(in bytes: [UInt8], at offset: Int) -> Frame? {
        guard offset <= bytes.count else { return nil }
        var decoder = FrameDecoder()
        decoder.feed(bytes[offset...])
        return try? decoder.next()
    }

    static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
        for i in 0..<min(a.count, b.count) where a[i] != b[i] { return i }
        return nil
    }

    /// The index and start offset of the frame of `bytes` holding `offset`.
    static func frameIndex(in bytes: [UInt8], containing offset: Int) -> (Int, Int) {
        var at = 0, index = 0
        while at + Frame.headerLength <= bytes.count {
            let length = Int(bytes[at + 8]) << 24 | Int(bytes[at + 9]) << 16 | Int(bytes[at + 10]) << 8 | Int(bytes[at + 11])
            let next = at + Frame.headerLength + length
            if offset < next { break }
            at = next
            index += 1
        }
        return (index, at)
    }

    /// "MOVE (byte 14 of it is 05)", or "nothing more".
    static func describe(_ bytes: [UInt8], from start: Int, at offset: Int) -> String {
        guard offset < bytes.count else { return "nothing more (\(bytes.count) bytes in all)" }
        let name: String
        if start + 6 <= bytes.count, let kind = Message.Kind(rawValue: bytes[start + 5]) {
            name = "\(kind)".uppercased()
        } else {
            name = "a frame"
        }
        let hex = String(bytes[offset], radix: 16)
        return "\(name) with byte \(offset - start) = 0x\(hex.count == 1 ? "0" + hex : hex)"
    }
}
