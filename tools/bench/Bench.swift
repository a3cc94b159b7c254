// tictac-bench: the Swift side of tools/bench/run. Compiled by `run` with plain swiftc against the
// release build's modules and objects (no Package.swift change). Subcommands:
//
//   echo PORT
//     Round-trip benchmark, network layer only: one Reactor, a TCPListener and the accepted
//     TCPConnection; every frame its FrameDecoder delivers is handed to its owner (onFrame), which
//     sends `frame.bytes` back. The client is tools/bench/pingpong.c (same client as the C
//     reference), so the difference to the C echo server is Reactor + TCPConnection + FrameDecoder.
//     Exits when the client disconnects.
//
//   moves PORT SIZE K COUNT WARMUP [RAWFILE]
//     Move round trip through two daemons: a human-seat Daemon in this process (one Reactor)
//     dials the `tictac bot --level random` daemon at 127.0.0.1:PORT, invites it to a SIZE x SIZE
//     board with K in a row (3 3: the real game, where a game's own costs (RESET, the
//     commitment, randomness) come every few moves; 20 20: long games of cheap moves) and plays
//     the first empty cell whenever it is its turn. Each sample is the time from the local move
//     command (our GameSession, encode, send) to the opponent-moved event (the bot daemon's
//     decode, DaemonCore, GameSession, bot, encode, send; our decode, DaemonCore, GameSession).
//     Rematches start at once. After WARMUP moves, COUNT moves are timed; RAWFILE gets every
//     sample in ns, one a line (tools/bench/run pools several runs' samples).
//
//   decide ROUNDS
//     Bot decision time on 3 x 3: every reachable position where the game is still on (O moves
//     first; 4,520 positions), each with the side to move, timed over ROUNDS rounds after one
//     warm-up round (which also builds the perfect bot's lazy table). Prints the mean ns per
//     `Bot(level: .perfect).chooseMove` and, as the same-run reference, per
//     `Bot(level: .random).chooseMove` (a uniform pick among the empty cells: the cheapest legal
//     decision through the same entry point, including its preconditions).
//
//   serve PORT MAX_CONNECTIONS
//     The load test's server beyond 4,096 connections: a bot daemon (perfect level) as `tictac
//     bot` makes it, minus the front (which prints a line per finished game), with its
//     connection cap (`Daemon.maxConnections`, by default at most 4,096) and its per-address
//     limit raised to MAX_CONNECTIONS. Prints "ready" once listening; stops after 170 s.
//
//   load PORT CONNECTIONS SECONDS SERVER_PID [GENERATOR]
//     Load generator for "1,000 concurrent games on one daemon". CONNECTIONS client daemons
//     (real `Daemon`s: bot, perfect level, cheap seeded RNG so the client side stays light) share
//     one Reactor in this process; each dials the server daemon at 127.0.0.1:PORT and, being a
//     bot that dialled, invites it; both bots play and rematch at once, for as long as it runs.
//     Connections are opened in batches of 50 per 10 ms. Once every client has shaken hands
//     (or after 15 s), finished games are counted for SECONDS (each game once, on the client
//     side). The server's memory comes from /proc/SERVER_PID/status: VmRSS before the first
//     connection (baseline) and VmHWM (peak) at the end; per connection = (peak - baseline) / n.
//     That is the daemon's own memory; the kernel's socket buffers are not in RSS. GENERATOR
//     (default 0) picks the clients' identities: generators running together need different
//     ones (the server keeps one link per instance id, Protocol.md §4).
//
// Output: key=value lines that `run` folds into its summary.

#if canImport(Glibc)
import Glibc
#endif
import TicTacDaemon
import TicTacEngine
import TicTacNet
import TicTacWire

func fail(_ message: String) -> Never {
    let line = Array("tictac-bench: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func monotonicNanoseconds() -> Int64 { Reactor.now().nanoseconds }

// MARK: - echo

func echo(port: UInt16) throws {
    let reactor = try Reactor()
    var connection: TCPConnection?
    let listener = try TCPListener(reactor: reactor, port: port) { fd, remote in
        guard connection == nil, let c = try? TCPConnection(reactor: reactor, accepted: fd, remote: remote) else {
            close(fd)
            return
        }
        c.onFrame = { [unowned c] frame in c.send(frame.bytes) }
        c.onClose = { _ in reactor.stop() }
        connection = c
    }
    // Bounded: gives up after 60 s whatever happens.
    reactor.schedule(after: .seconds(60)) { reactor.stop() }
    try reactor.run()
    listener.close()
}

// MARK: - decide

/// Every position reachable from the empty board (O first) in which the game is still on,
/// with the piece to move.
func reachablePositions() -> [(Board, Piece)] {
    var seen = Set<Board>()
    var result: [(Board, Piece)] = []
    func visit(_ board: Board, _ piece: Piece) {
        guard board.outcome == .inProgress, seen.insert(board).inserted else { return }
        result.append((board, piece))
        for cell in board.emptyCells {
            var next = board
            try! next.place(piece, at: cell)
            visit(next, piece.opponent)
        }
    }
    visit(Board(), .o)
    return result
}

/// Mean nanoseconds per decision of `bot` over `rounds` passes of `positions` (after one warm-up pass).
func timeDecisions(_ bot: Bot, _ positions: [(Board, Piece)], rounds: Int) -> Double {
    var rng = SplitMix64(seed: 42)
    var sink = 0
    for (board, piece) in positions { sink &+= bot.chooseMove(on: board, as: piece, using: &rng) }
    let start = monotonicNanoseconds()
    for _ in 0..<rounds {
        for (board, piece) in positions { sink &+= bot.chooseMove(on: board, as: piece, using: &rng) }
    }
    let elapsed = monotonicNanoseconds() - start
    if sink == -1 { print("unreachable") } // keeps the calls from being optimised away
    return Double(elapsed) / Double(rounds * positions.count)
}

func decide(rounds: Int) {
    let positions = reachablePositions()
    let perfect = timeDecisions(Bot(level: .perfect), positions, rounds: rounds)
    let random = timeDecisions(Bot(level: .random), positions, rounds: rounds)
    print("positions=\(positions.count) rounds=\(rounds)")
    print("perfect_ns=\(format2(perfect)) random_ns=\(format2(random))")
}

func format2(_ x: Double) -> String {
    let scaled = (x * 100).rounded() / 100
    return "\(scaled)"
}

// MARK: - load

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

/// Hands each game of each client daemon its own seeded generator.
final class Seeds {
    private var next: UInt64
    init(_ first: UInt64) { next = first }
    func make() -> any RandomNumberGenerator {
        next &+= 1
        return SplitMix64(seed: next)
    }
}

func load(port: UInt16, connections: Int, seconds: Int, serverPID: Int32, generator: UInt64) throws {
    guard let server = SocketAddress(ip: "127.0.0.1", port: port) else { fail("bad port") }
    let reactor = try Reactor()
    var games = 0, shaken = 0, lost = 0
    var clients: [Daemon] = []
    var idRandom = SplitMix64(seed: 0x6c6f_6164 &+ generator)
    let seeds = Seeds(1 &+ generator << 32)
    let baselineKB = procStatusKB(serverPID, "VmRSS")
    for i in 0..<connections {
        var config = DaemonConfig(identity: Identity(using: &idRandom), name: try DisplayName("load-\(i)"),
                                  capabilities: [.tictactoe, .bot], makeRandom: seeds.make)
        config.bot = Bot(level: .perfect)
        let client = try Daemon(reactor: reactor, config: config)
        client.onEvent = { event in
            switch event {
            case .game(.gameOver(_, _, _), _): games += 1
            case .peerFound:
                shaken += 1
                if shaken == connections { reactor.stop() }
            case .peerLost, .connectFailed, .protocolError: lost += 1
            default: break
            }
        }
        clients.append(client)
    }
    // Ramp up: 50 connections per 10 ms, so the listener's backlog never overflows.
    func dial(from start: Int) {
        for client in clients[start..<min(start + 50, clients.count)] { client.connect(to: server) }
        if start + 50 < clients.count {
            reactor.schedule(after: .milliseconds(10)) { dial(from: start + 50) }
        }
    }
    dial(from: 0)
    // Every connection's handshake signs and verifies on both sides: 15 s, or 4 ms a connection.
    let rampDeadline = reactor.schedule(after: .milliseconds(max(15_000, Int64(connections) * 4))) { reactor.stop() }
    let rampStart = monotonicNanoseconds()
    try reactor.run()
    reactor.cancel(rampDeadline)
    let rampSeconds = Double(monotonicNanoseconds() - rampStart) / 1e9

    // The measured window.
    let games0 = games, start = monotonicNanoseconds()
    reactor.schedule(after: .seconds(Int64(seconds))) { reactor.stop() }
    try reactor.run()
    let elapsed = Double(monotonicNanoseconds() - start) / 1e9
    let played = games - games0
    let peakKB = procStatusKB(serverPID, "VmHWM"), endKB = procStatusKB(serverPID, "VmRSS")

    // Leave politely (LEAVE, flush), bounded to half a second.
    for client in clients { client.leave() }
    reactor.schedule(after: .milliseconds(500)) { reactor.stop() }
    try reactor.run()

    print("connections=\(connections) handshaken=\(shaken) lost=\(lost) ramp_s=\(format2(rampSeconds))")
    print("games=\(played) seconds=\(format2(elapsed)) games_per_s=\(format2(Double(played) / elapsed))")
    print("server_rss_before_kb=\(baselineKB) server_peak_kb=\(peakKB) server_rss_end_kb=\(endKB)")
    print("per_connection_bytes=\((peakKB - baselineKB) * 1024 / max(1, connections))")
}

// MARK: - serve

func serve(port: UInt16, maxConnections: Int) throws {
    let reactor = try Reactor()
    let random = RandomSource()
    var config = DaemonConfig(name: try DisplayName("load-server"), capabilities: [.tictactoe, .bot],
                              makeRandom: random.makeGenerator)
    config.bot = Bot(level: .perfect)
    let daemon = try Daemon(reactor: reactor, config: config, port: port)
    daemon.maxConnections = maxConnections
    daemon.maxLinksPerAddress = maxConnections
    print("ready port=\(daemon.port)")
    fflush(nil)
    reactor.schedule(after: .seconds(170)) { reactor.stop() }
    try reactor.run()
}

// MARK: - moves

func moves(port: UInt16, size: Int, k: Int, count: Int, warmup: Int, raw: String?) throws {
    guard let server = SocketAddress(ip: "127.0.0.1", port: port) else { fail("bad port") }
    let reactor = try Reactor()
    var idRandom = SplitMix64(seed: 0x6d6f_7665)
    var config = DaemonConfig(identity: Identity(using: &idRandom), name: try DisplayName("rt-player"),
                              makeRandom: Seeds(7).make)
    config.size = try BoardSize(rows: size, cols: size, k: k)
    config.rematchDelay = .zero
    let player = try Daemon(reactor: reactor, config: config)
    var board = Board(size: config.size)
    var samples: [Int64] = []
    samples.reserveCapacity(count)
    var seen = 0, sentAt: Int64 = 0, failure: String?
    func play() {
        guard let cell = (0..<board.size.cellCount).first(where: { board[$0] == .empty }) else { return }
        sentAt = monotonicNanoseconds()
        do { try player.command(.move(cell)) } catch { failure = "move: \(error)"; reactor.stop() }
    }
    player.onEvent = { event in
        switch event {
        case let .peerFound(peer):
            do { try player.command(.invite(peer.id.description)) } catch { failure = "invite: \(error)"; reactor.stop() }
        case .game(.opponentMoved, _):
            guard sentAt != 0 else { return } // the bot opened the game: nothing was timed
            let t = monotonicNanoseconds() - sentAt
            sentAt = 0
            seen += 1
            if seen > warmup { samples.append(t) }
            if samples.count == count { reactor.stop() }
        case let .game(.board(b), _):
            board = b
        case .game(.gameOver, _):
            sentAt = 0 // our move ended the game: the bot's next move opens another, not an answer
        case .game(.gameStarted, _):
            board.removeAll() // keeps its line index (a new one per game allocates)
        case .game(.yourTurn, _):
            // After the handler returns: the event arrives inside the daemon's own dispatch.
            reactor.schedule(after: .zero) { play() }
        case let .peerLost(_, reason), let .disconnected(_, reason), let .connectFailed(_, reason):
            failure = reason
            reactor.stop()
        case let .protocolError(_, _, message, _):
            failure = message
            reactor.stop()
        default:
            break
        }
    }
    player.connect(to: server)
    reactor.schedule(after: .seconds(120)) { reactor.stop() }
    try reactor.run()
    if let failure { fail("moves: \(failure)") }
    guard samples.count == count else { fail("moves: only \(samples.count) of \(count) in 120 s") }
    if let raw {
        guard let f = fopen(raw, "w") else { fail("cannot write \(raw)") }
        for t in samples { fputs("\(t)\n", f) }
        guard fclose(f) == 0 else { fail("cannot write \(raw)") }
    }
    samples.sort()
    let mean = Double(samples.reduce(0, +)) / Double(count) / 1e3
    print("p50_us=\(format2(Double(samples[count / 2]) / 1e3)) p99_us=\(format2(Double(samples[count * 99 / 100]) / 1e3)) mean_us=\(format2(mean)) n=\(count)")
}

// MARK: - main

let args = CommandLine.arguments

/// Argument `i` as a number, or exit with a message.
func number<T: FixedWidthInteger>(_ i: Int) -> T {
    guard let value = T(args[i]) else { fail("not a number: \(args[i])") }
    return value
}

switch (args.count > 1 ? args[1] : "", args.count) {
case ("echo", 3):
    try echo(port: number(2))
case ("moves", 7), ("moves", 8):
    try moves(port: number(2), size: number(3), k: number(4), count: number(5), warmup: number(6),
              raw: args.count == 8 ? args[7] : nil)
case ("decide", 3):
    decide(rounds: number(2))
case ("serve", 4):
    try serve(port: number(2), maxConnections: number(3))
case ("load", 6), ("load", 7):
    try load(port: number(2), connections: number(3), seconds: number(4), serverPID: number(5),
             generator: args.count == 7 ? number(6) : 0)
default:
    fail("usage: tictac-bench echo PORT | moves PORT SIZE K COUNT WARMUP [RAWFILE] | decide ROUNDS | serve PORT MAX_CONNECTIONS | load PORT CONNECTIONS SECONDS SERVER_PID [GENERATOR]")
}
