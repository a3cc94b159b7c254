// tictac-bench: the Swift side of tools/bench/run. Compiled by `run` with plain swiftc against the
// release build's modules and objects (no Package.swift change), with ../Common.swift (what it
// shares with tictac-hostility, `moves` included) and Load.swift (`load`). Subcommands:
//
//   echo PORT
//     Round-trip benchmark, network layer only: one Reactor, a TCPListener and the accepted
//     TCPConnection; every frame its FrameInbound decoder delivers is handed to its owner (onMessage), which
//     sends `frame.bytes` back. The client is tools/bench/pingpong.c (same client as the C
//     reference), so the difference to the C echo server is Reactor + TCPConnection + FrameDecoder.
//     Exits when the client disconnects.
//
//   moves PORT SIZE K COUNT WARMUP [RAWFILE [BATON_IN BATON_OUT BLOCK]]
//     Move round trip through two daemons: a human-seat Daemon in this process (one Reactor)
//     dials the `tictac bot --level random` daemon at 127.0.0.1:PORT, invites it to a SIZE x SIZE
//     board with K in a row (3 3: the real game, where a game's own costs (RESET, the
//     commitment, randomness) come every few moves; 20 20: long games of cheap moves) and plays
//     the first empty cell whenever it is its turn. Each sample is the time from the local move
//     command (our GameSession, encode, send) to the opponent-moved event (the bot daemon's
//     decode, DaemonCore, GameSession, bot, encode, send; our decode, DaemonCore, GameSession).
//     Rematches start at once. After WARMUP moves, COUNT moves are timed; RAWFILE gets every
//     sample in ns, one a line (tools/bench/run pools several runs' samples). With a baton (two
//     fifos and a block size), it takes turns with pingpong.c's client (`--baton`): before each
//     block of BLOCK timed moves it writes a byte to BATON_OUT and waits for one on BATON_IN,
//     so the C pairs are timed in the same stretches of the machine's load as the daemons; the
//     first answer after each wait is not a sample (both sides leave out their first round trip
//     after a turn of the other).
//
//   decide ROUNDS
//     Bot decision time on 3 x 3: every reachable position where the game is still on (O moves
//     first; 4,520 positions), each with the side to move, timed over ROUNDS rounds after one
//     warm-up round (which also builds the perfect bot's lazy table). Prints the mean ns per
//     `Bot(level: .perfect).chooseMove` and, as the same-run reference, per
//     `Bot(level: .random).chooseMove` (a uniform pick among the empty cells: the cheapest legal
//     decision through the same entry point, including its preconditions).
//
//   auth PORT VERSION HANDSHAKES MOVES WARMUP
//     The cost of the authenticated stream (tools/bench/run, TICTAC_BENCH_ONLY=auth): against
//     `serve PORT 64 VERSION`, HANDSHAKES handshakes one after the other, each by a fresh client
//     daemon offering only VERSION (1: plain frames; 2: PROOF with the key schedule and sealed
//     frames, Protocol.md §4), each timed from connect to the peer-found event (TCP connect,
//     HELLO and PROOF both ways, both daemons' work); then MOVES timed 3 x 3 move round trips
//     after WARMUP, as `moves`. Prints handshakes_per_s (the inverse of the mean), hs_p50_us,
//     and the moves' p50_us/p99_us line.
//
//   serve PORT MAX_CONNECTIONS [VERSION]
//     The load test's server beyond 4,096 connections: a bot daemon (perfect level) as `tictac
//     bot` makes it, minus the front (which prints a line per finished game), with its
//     connection cap (`Daemon.maxConnections`, by default at most 4,096) and its per-address
//     limit raised to MAX_CONNECTIONS. Prints "ready" once listening; on SIGTERM (or after 230 s) prints what it saw (handshakes, links
//     refused, lost links by reason) and stops.
//
//   load PORT CONNECTIONS SECONDS SERVER_PID [GENERATOR [THINK_MS]]
//     Load generator for "10,000 concurrent games on one daemon". CONNECTIONS client daemons
//     (real `Daemon`s: bot, perfect level, cheap seeded RNG so the client side stays light) share
//     one Reactor in this process; each dials the server daemon at 127.0.0.1:PORT and, being a
//     bot that dialled, invites it; both bots play and rematch at once, for as long as it runs.
//     With THINK_MS > 0 the clients are players' seats instead: each invites once its link is
//     up and makes each move (the first empty cell) THINK_MS after its turn came (a player's
//     seat rematches after 3 s, the server's bot at once). The ramp is paced by the server: at
//     most 100 handshakes under way, each one that ends starting the next (bounded: 30 s, or
//     20 ms a connection). Then it prints
//     "up handshaken=N"; with a GENERATOR (1, 2, ...: generators running together need different
//     identities, the server keeps one link per instance id, Protocol.md §4) it waits for SIGUSR1
//     (at most 60 s), sent by `run` once every generator is up, so that all windows have every
//     game on. Finished games are then counted for SECONDS (each game once, on the client side).
//     The server's memory comes from /proc/SERVER_PID/status: VmRSS before the first connection
//     (baseline) and VmHWM (peak) at the end. That is the daemon's own memory; the kernel's
//     socket buffers are not in RSS. Every handshake that failed and every link lost after its
//     handshake is counted by reason.

// Output: key=value lines that `run` folds into its summary.

#if canImport(Glibc)
import Glibc
#endif
import TicTacAPI
import TicTacDaemon
import TicTacDaemonCore
import TicTacEngine
import TicTacNet
import TicTacWire

// MARK: - echo

func echo(port: UInt16) throws {
    let reactor = try Reactor()
    var connection: FrameConnection?
    let listener = try TCPListener(reactor: reactor, port: port) { fd, remote in
        guard connection == nil, let c = try? FrameConnection(reactor: reactor, accepted: fd, remote: remote, decoder: FrameInbound()) else {
            close(fd)
            return
        }
        c.onMessage = { [unowned c] frame in c.send(frame.bytes) }
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

// MARK: - serve

func serve(port: UInt16, maxConnections: Int, version: UInt8? = nil) throws {
    let reactor = try Reactor()
    let random = RandomSource()
    var config = DaemonConfig(name: try DisplayName("load-server"), capabilities: [.tictactoe, .bot],
                              makeRandom: random.makeGenerator)
    config.player = .bot(Bot(level: .perfect))
    if let version { config.versions = version...version }
    // Section 3 of tools/bench/run uses PING as an echo, flat out: the flood limit (8 a second,
    // Protocol.md §6) is lifted. Section 5's clients PING only when silent, as the spec says.
    config.maxPingsPerSecond = 0
    config.maxPingsPerAddressPerSecond = 0
    config.maxGamesPerPeerPerMinute = 0 // `auth` and section 5 play flat out with one peer each
    config.maxHandshakesPerAddressPerSecond = 0 // `auth` times handshakes back to back from one address
    config.maxHandshakesPerPrefixPerSecond = 0
    let daemon = try Daemon(reactor: reactor, config: config, port: port)
    daemon.maxConnections = maxConnections
    daemon.maxLinksPerAddress = maxConnections
    // What the server saw, printed when it is stopped (SIGTERM from `run`) or after 230 s.
    var found = 0
    let losses = Losses()
    daemon.onEvent = { event in
        switch event {
        case .peerFound: found += 1
        case .peerLost, .disconnected, .protocolError: losses.count(event)
        default: break
        }
    }
    let signals = try SignalSource(reactor: reactor, signals: [SIGTERM, SIGINT]) { _ in reactor.stop() }
    print("ready port=\(daemon.port)")
    fflush(nil)
    reactor.schedule(after: .seconds(230)) { reactor.stop() }
    try reactor.run()
    print("server_handshaken=\(found) server_refused=\(daemon.refusedCount) server_links_end=\(daemon.connectionCount)")
    if !losses.isEmpty { print("server_lost_reasons=\(losses)") }
    fflush(nil)
    _ = signals
}

// MARK: - moves

func moves(port: UInt16, size: Int, k: Int, count: Int, warmup: Int, raw: String?, baton: Baton?) throws {
    var idRandom = SplitMix64(seed: 0x6d6f_7665)
    var config = DaemonConfig(identity: Identity(using: &idRandom), name: try DisplayName("rt-player"),
                              makeRandom: Seeds(7).make)
    config.size = try BoardSize(rows: size, cols: size, k: k)
    config.capabilities.insert(.quickRoll) // as `tictac play` sets it
    try moves(port: port, config: config, count: count, warmup: warmup, raw: raw, baton: baton)
}

// MARK: - auth

func auth(port: UInt16, version: UInt8, handshakes: Int, count: Int, warmup: Int) throws {
    guard let server = SocketAddress(ip: "127.0.0.1", port: port) else { fail("bad port") }
    let reactor = try Reactor()
    var idRandom = SplitMix64(seed: 0x6175_7468)
    var times: [Int64] = []
    times.reserveCapacity(handshakes)
    var failure: String?
    let name = try DisplayName("hs")
    // One fresh client daemon (its own identity, made before the clock starts) per handshake.
    // Once its peer is found it is dropped, which closes its link as the C reference closes its
    // socket: a LEAVE and both sides' orderly close would fall in the next handshake's time,
    // which the reference does not pay (docs/performance.md, "Handshakes").
    var current: Daemon?
    func next() {
        current = nil // the last handshake's daemon goes, its link and listener closed
        guard times.count < handshakes else { return reactor.stop() }
        var config = DaemonConfig(identity: Identity(using: &idRandom), name: name, makeRandom: Seeds(3).make)
        config.versions = version...version
        let client: Daemon
        do { client = try Daemon(reactor: reactor, config: config) } catch { failure = "\(error)"; return reactor.stop() }
        current = client
        var start: Int64 = 0
        client.onEvent = { event in
            switch event {
            case .peerFound:
                times.append(monotonicNanoseconds() - start)
                reactor.schedule(after: .zero) { next() }
            case let .peerLost(_, reason), let .disconnected(_, reason), let .connectFailed(_, reason):
                if start != 0, times.count < handshakes, failure == nil, case .connectFailed = event { failure = reason; reactor.stop() }
            case let .protocolError(_, _, message, _):
                failure = message
                reactor.stop()
            default: break
            }
        }
        start = monotonicNanoseconds()
        client.connect(to: server)
    }
    next()
    reactor.schedule(after: .seconds(120)) { reactor.stop() }
    try reactor.run()
    if let failure { fail("auth: \(failure)") }
    guard times.count == handshakes else { fail("auth: only \(times.count) of \(handshakes) handshakes in 120 s") }
    let mean = Double(times.reduce(0, +)) / Double(handshakes)
    times.sort()
    print("version=\(version) handshakes=\(handshakes) handshakes_per_s=\(format2(1e9 / mean)) hs_p50_us=\(format2(Double(times[handshakes / 2]) / 1e3)) hs_p99_us=\(format2(Double(times[handshakes * 99 / 100]) / 1e3))")
    var config = DaemonConfig(identity: Identity(using: &idRandom), name: try DisplayName("rt-player"), makeRandom: Seeds(7).make)
    config.versions = version...version
    try moves(port: port, config: config, count: count, warmup: warmup)
}

// MARK: - main

switch (args.count > 1 ? args[1] : "", args.count) {
case ("echo", 3):
    try echo(port: number(2))
case ("moves", 7), ("moves", 8), ("moves", 11):
    try moves(port: number(2), size: number(3), k: number(4), count: number(5), warmup: number(6),
              raw: args.count >= 8 ? args[7] : nil,
              baton: args.count == 11 ? Baton(input: args[8], output: args[9], block: number(10)) : nil)
case ("decide", 3):
    decide(rounds: number(2))
case ("serve", 4), ("serve", 5):
    try serve(port: number(2), maxConnections: number(3), version: args.count == 5 ? number(4) as UInt8 : nil)
case ("auth", 7):
    try auth(port: number(2), version: number(3), handshakes: number(4), count: number(5), warmup: number(6))
case ("load", 6), ("load", 7), ("load", 8):
    try load(port: number(2), connections: number(3), seconds: number(4), serverPID: number(5),
             generator: args.count >= 7 ? number(6) : 0, think: .milliseconds(args.count == 8 ? number(7) as Int64 : 0))
default:
    fail("usage: tictac-bench echo PORT | moves PORT SIZE K COUNT WARMUP [RAWFILE [BATON_IN BATON_OUT BLOCK]] | decide ROUNDS | auth PORT VERSION HANDSHAKES MOVES WARMUP | serve PORT MAX_CONNECTIONS [VERSION] | load PORT CONNECTIONS SECONDS SERVER_PID [GENERATOR [THINK_MS]]")
}
