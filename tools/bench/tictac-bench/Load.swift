// tictac-bench's `load` (see main.swift): many concurrent games against one daemon.
import Glibc
import TicTacAPI
import TicTacDaemon
import TicTacDaemonCore
import TicTacEngine
import TicTacNet
import TicTacWire

// MARK: - load

/// Tallies of lost links by kind and reason (the ERROR code, or the text with its numbers
/// dropped), so a run says where its connections went.
final class Losses: CustomStringConvertible {
    private var tally: [String: Int] = [:]
    var isEmpty: Bool { tally.isEmpty }

    func count(_ event: DaemonEvent) {
        let key: String
        switch event {
        case let .protocolError(_, code, _, sent): key = (sent ? "sent-" : "got-") + code.description
        case let .peerLost(_, reason): key = "peer-lost:" + reason
        case let .disconnected(_, reason): key = "disconnected:" + reason
        case let .connectFailed(_, reason): key = "connect-failed:" + reason
        default: return
        }
        // In bytes: Character's `isNumber` weighed on the server under test (docs/performance.md).
        let bytes = key.utf8.filter { !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        tally[String(decoding: bytes.map { $0 == UInt8(ascii: " ") ? UInt8(ascii: "_") : $0 }, as: UTF8.self), default: 0] += 1
    }

    var description: String {
        tally.sorted { $0.value > $1.value }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }
}

/// This process's CPU time so far, user and system, in seconds.
func processCPU() -> (user: Double, system: Double) {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return (seconds(usage.ru_utime), seconds(usage.ru_stime))
}

/// A kB field ("VmRSS", "VmHWM") of /proc/PID/status.
func procStatusKB(_ pid: Int32, _ field: String) -> Int {
    guard let f = fopen("/proc/\(pid)/status", "r") else { fail("cannot read /proc/\(pid)/status") }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), f) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix(field + ":") {
            return Int(text.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
        }
    }
    fail("no \(field) in /proc/\(pid)/status")
}

func load(port: UInt16, connections: Int, seconds: Int, serverPID: Int32, generator: UInt64, think: Duration) throws {
    guard let server = SocketAddress(ip: "127.0.0.1", port: port) else { fail("bad port") }
    let reactor = try Reactor()
    // Where each client is: not dialled yet, dialling (the handshake not done), up, or gone.
    enum Stage { case waiting, dialling, up, gone }
    var stage = [Stage](repeating: .waiting, count: connections)
    var games = 0, shaken = 0, live = 0, dialling = 0, nextDial = 0
    let failedHandshakes = Losses(), lostLinks = Losses()
    var clients: [Daemon] = []
    var idRandom = SplitMix64(seed: 0x6c6f_6164 &+ generator)
    let seeds = Seeds(1 &+ generator << 32)
    let baselineKB = procStatusKB(serverPID, "VmRSS")
    let setupStart = monotonicNanoseconds()
    // Seconds from the first dial at which each tenth of the connections had shaken hands.
    var tenths: [Double] = []
    var dialStart: Int64 = 0
    var rampDone = false

    /// Client `i`'s handshake is over, either way: its place in the ramp goes to the next one.
    func settled(_ i: Int, up: Bool) {
        guard stage[i] == .dialling else { return }
        stage[i] = up ? .up : .gone
        dialling -= 1
        if up {
            shaken += 1
            live += 1
            if shaken * 10 >= (tenths.count + 1) * connections {
                tenths.append(Double(monotonicNanoseconds() - dialStart) / 1e9)
            }
        }
        dialMore()
        if !rampDone, dialling == 0, nextDial == connections { reactor.stop() }
    }

    // The ramp is paced by the server: at most `maxDialling` handshakes are under way at once,
    // and each one that ends starts the next. A fixed rate (it was 50 dials per 10 ms) outran a
    // server whose CPU is shared: its accept queue (512) overflowed, dropped SYNs were sent again
    // only after 1 s and 3 s, and dials ran into their 5 s connect timeout, or a handshake that
    // waited behind thousands of others into its 5 s handshake timeout.
    let maxDialling = 100
    func dialMore() {
        while dialling < maxDialling, nextDial < connections {
            let i = nextDial
            nextDial += 1
            stage[i] = .dialling
            dialling += 1
            clients[i].connect(to: server)
            // A link closed before the handshake without an ERROR tells the player nothing:
            // past the connect and handshake timeouts (5 s each) the place is given back.
            reactor.schedule(after: .seconds(12)) {
                if stage[i] == .dialling { failedHandshakes.count(.connectFailed("", reason: "no handshake within 12 s")) }
                settled(i, up: false)
            }
        }
    }

    for i in 0..<connections {
        // THINK 0: a bot (it invites the daemon it dialled, moves at once, rematches at once).
        // Else a player's seat driven from here: it invites once its link is up, and makes each
        // move (the first empty cell) THINK after its turn came; it rematches after 3 s.
        let paced = think > .zero
        var config = DaemonConfig(identity: Identity(using: &idRandom), name: try DisplayName("load-\(i)"),
                                  capabilities: paced ? [.tictactoe] : [.tictactoe, .bot], makeRandom: seeds.make)
        if !paced { config.player = .bot(Bot(level: .perfect)) }
        // Each client listens (a Daemon does) on a port of its own below the kernel's ephemeral
        // range (32768 up): bind(0) searches that range, crowded by every client's dialling port
        // and the first generator's listeners, and took 20 s for the second generator's 5,000
        // clients (0.3 s for the first one's), so it dialled 20 s late.
        let listenPort = 10_000 + 5_000 * Int(generator) + i
        let client = try Daemon(reactor: reactor, config: config, port: listenPort < 32768 ? UInt16(listenPort) : 0)
        var board = Board()
        client.onEvent = { [unowned client] event in
            switch event {
            case .game(.gameOver(_, _, _), _): games += 1
            case let .game(.board(b), _): board = b
            case .game(.yourTurn, _) where paced:
                reactor.schedule(after: think) {
                    // The game may have ended meanwhile (the peer left): the move is refused then.
                    guard let cell = (0..<board.size.cellCount).first(where: { board[$0] == .empty }) else { return }
                    try? client.command(.move(cell))
                }
            case let .peerFound(peer):
                settled(i, up: true)
                if paced { try? client.command(.invite(peer.id.description)) }
            case .peerLost, .disconnected, .connectFailed, .protocolError:
                switch stage[i] {
                case .dialling:
                    failedHandshakes.count(event)
                    settled(i, up: false)
                case .up:
                    lostLinks.count(event)
                    if case .peerLost = event { stage[i] = .gone; live -= 1 }
                case .waiting, .gone:
                    break
                }
            default: break
            }
        }
        clients.append(client)
    }
    let setupSeconds = Double(monotonicNanoseconds() - setupStart) / 1e9
    dialStart = monotonicNanoseconds()
    dialMore()
    // Bounded: 30 s, or 20 ms a connection (with games on, a 2-core machine shared with builds
    // did 100 to 300 a second at 5,000 to 10,000 links).
    let rampDeadline = reactor.schedule(after: .milliseconds(max(30_000, Int64(connections) * 20))) { reactor.stop() }
    try reactor.run()
    rampDone = true
    reactor.cancel(rampDeadline)
    let rampSeconds = Double(monotonicNanoseconds() - dialStart) / 1e9
    print("up handshaken=\(shaken) of=\(connections) ramp_s=\(format2(rampSeconds))")
    fflush(nil)

    // Generators that run together (GENERATOR given) wait for SIGUSR1 from `run`, sent once all
    // of them are up, so every window has every game on (bounded: 60 s, then it goes on alone).
    let liveAtGo: Int
    if generator > 0 {
        let go = try SignalSource(reactor: reactor, signals: [SIGUSR1]) { _ in reactor.stop() }
        let wait = reactor.schedule(after: .seconds(60)) { reactor.stop() }
        try reactor.run()
        reactor.cancel(wait)
        _ = go
    }
    liveAtGo = live

    // The measured window.
    let games0 = games, start = monotonicNanoseconds(), cpu0 = processCPU()
    reactor.schedule(after: .seconds(Int64(seconds))) { reactor.stop() }
    try reactor.run()
    let elapsed = Double(monotonicNanoseconds() - start) / 1e9
    let cpu = processCPU()
    let played = games - games0
    let peakKB = procStatusKB(serverPID, "VmHWM"), endKB = procStatusKB(serverPID, "VmRSS")
    let liveAtEnd = live

    // Leave politely (LEAVE, flush), bounded to half a second.
    for client in clients { client.leave() }
    reactor.schedule(after: .milliseconds(500)) { reactor.stop() }
    try reactor.run()

    print("connections=\(connections) handshaken=\(shaken) live_at_start=\(liveAtGo) live_at_end=\(liveAtEnd) ramp_s=\(format2(rampSeconds))")
    if !failedHandshakes.isEmpty { print("failed_handshakes=\(failedHandshakes)") }
    if !lostLinks.isEmpty { print("lost_after_handshake=\(lostLinks)") }
    print("setup_s=\(format2(setupSeconds)) handshaken_tenths_s=\(tenths.map(format2).joined(separator: ","))")
    print("games=\(played) seconds=\(format2(elapsed)) games_per_s=\(format2(Double(played) / elapsed))")
    // This generator's own CPU in the window: a generator short of CPU slows the paced games
    // (one spending its time in the kernel showed a bug of ours: docs/performance.md).
    print("generator_cpu_user_s=\(format2(cpu.user - cpu0.user)) generator_cpu_system_s=\(format2(cpu.system - cpu0.system))")
    print("server_rss_before_kb=\(baselineKB) server_peak_kb=\(peakKB) server_rss_end_kb=\(endKB)")
    // Generators running together share the server: `run` divides by all their connections.
    if generator == 0 { print("per_connection_bytes=\((peakKB - baselineKB) * 1024 / max(1, shaken))") }
}
