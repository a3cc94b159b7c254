// tictac-hostility: the Swift side of tools/bench/hostility (issue 7 §7, the cost of
// hostility). Compiled by that script with plain swiftc against the release build's modules,
// with ../Common.swift (shared with tictac-bench: `moves` is the same code).
//
//   moves PORT COUNT WARMUP [PACE_MS]
//     A legitimate 3 x 3 game's move latency: a human-seat Daemon dials the `tictac bot` at
//     127.0.0.1:PORT, invites it and plays the first empty cell PACE_MS (0 unless given) after
//     its turn comes. Each sample runs from the local move command to the opponent-moved event.
//     Rematches at once. Paced, the samples spread over the daemon's life (flat out, 1,000 of
//     them took about 50 ms: whether a burst of the attack fell in that window decided the p99).
//
//   attack PORT IDLE NOREAD GAMES SECONDS
//     Holds the hostility up for SECONDS against the same daemon: IDLE handshaken links that do
//     nothing (client Daemons, which answer PINGs), NOREAD links that finish the handshake, then
//     never read again and keep sending PINGs (each dropped one is replaced at once), and GAMES
//     20 x 20 (k = 5) games by random bots that answer at once (each a Daemon that dials and
//     invites). Prints `ready` once every link is up (or after 20 s), then a status line each second.
//
// Output: key=value lines.

#if canImport(Glibc)
import Glibc
#endif
import TicTacDaemon
import TicTacDaemonCore
import TicTacEngine
import TicTacNet
import TicTacTime
import TicTacWire

func say(_ line: String) {
    print(line)
    fflush(nil)
}

/// Keys for the client daemons: a different stream per process (two processes with one seed
/// would make the same instance ids, and the target would take them for one peer).
nonisolated(unsafe) var idRandom = SplitMix64(seed: 0x686f_7374 &+ UInt64(getpid())) // single-threaded tool

func clientConfig(_ name: String, seeds: Seeds) throws -> DaemonConfig {
    DaemonConfig(identity: Identity(using: &idRandom), name: try DisplayName(name), makeRandom: seeds.make)
}

// MARK: - moves

func moves(port: UInt16, count: Int, warmup: Int, pace: Duration) throws {
    try moves(port: port, config: try clientConfig("legit", seeds: Seeds(7)), count: count, warmup: warmup, pace: pace)
}

// MARK: - attack

/// A link that shakes hands, then never reads and keeps sending PINGs (raw socket, polled).
final class NonReader {
    let fd: Int32
    private let identity = Identity(using: &idRandom)
    private var nonce = ID128(high: 0, low: 0)
    private var decoder = FrameDecoder()
    private(set) var flooding = false
    private(set) var dead = false
    private static let burst = [UInt8]((0..<100).flatMap { _ in Message.ping(nonce: 9).encoded() })
    private var offset = 0

    init?(port: UInt16) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0, let address = SocketAddress(ip: "127.0.0.1", port: port) else { return nil }
        var size: Int32 = 4096 // a small window from the start: the daemon's answers back up
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        guard address.withSockAddr({ connect(fd, $0, $1) }) == 0 else { close(fd); return nil }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        nonce = ID128(high: UInt64(fd), low: 0x6e72)
        guard let name = try? DisplayName("noread") else { return nil }
        send(Message.hello(Hello(instanceID: identity.instanceID, name: name, capabilities: [.tictactoe],
                                 publicKey: identity.publicKey, nonce: nonce)).encoded(version: 1))
    }

    deinit { close(fd) }

    private func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// One step: until the daemon's HELLO is in, read; then PROOF, and only write from then on.
    func step() {
        guard !dead else { return }
        if !flooding {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &buffer, buffer.count)
            if n == 0 || (n < 0 && errno != EAGAIN) { dead = true; return }
            guard n > 0 else { return }
            decoder.feed(buffer[0..<n])
            while let frame = try? decoder.next() {
                guard case let .hello(peer)? = try? Message(frame: frame) else { continue }
                let signature = identity.proof(version: 1, ourNonce: nonce, peer: peer.instanceID, peerNonce: peer.nonce) ?? []
                send(Message.proof(signature: signature).encoded(version: 1))
                flooding = true
                return
            }
            return
        }
        let n = Self.burst.withUnsafeBytes {
            Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
        }
        if n > 0 { offset = (offset + n) % Self.burst.count }
        if n < 0, errno != EAGAIN, errno != EINTR { dead = true } // dropped by the daemon
    }
}

func attack(port: UInt16, idle: Int, noread: Int, games: Int, seconds: Int) throws {
    guard let server = SocketAddress(ip: "127.0.0.1", port: port) else { fail("bad port") }
    let reactor = try Reactor()
    let seeds = Seeds(100)
    var idleUp = 0, gamesOver = 0, lost = 0, targetMoves = 0
    var clients: [Daemon] = []
    for i in 0..<idle {
        let d = try Daemon(reactor: reactor, config: try clientConfig("idle-\(i)", seeds: seeds))
        d.onEvent = { event in
            switch event {
            case .peerFound: idleUp += 1
            case .peerLost, .connectFailed, .protocolError: lost += 1
            default: break
            }
        }
        clients.append(d)
    }
    var players: [Daemon] = []
    for i in 0..<games {
        var config = try clientConfig("large-\(i)", seeds: seeds)
        config.player = .bot(Bot(level: .random)) // answers at once
        config.size = try BoardSize(rows: 20, cols: 20, k: 5)
        let d = try Daemon(reactor: reactor, config: config)
        d.onEvent = { event in
            switch event {
            case .game(.gameOver, _): gamesOver += 1
            case .game(.opponentMoved, _): targetMoves += 1 // the target's searched moves
            default: break
            }
        }
        players.append(d)
        d.connect(to: server)
    }
    // Ramp up the idle links: 50 per 10 ms.
    func dial(from start: Int) {
        for client in clients[start..<min(start + 50, clients.count)] { client.connect(to: server) }
        if start + 50 < clients.count { reactor.schedule(after: .milliseconds(10)) { dial(from: start + 50) } }
    }
    if !clients.isEmpty { dial(from: 0) }
    var readers: [NonReader] = (0..<noread).compactMap { _ in NonReader(port: port) }
    var replaced = 0
    func tick() {
        for i in readers.indices {
            readers[i].step()
            if readers[i].dead, let fresh = NonReader(port: port) { readers[i] = fresh; replaced += 1 }
        }
        reactor.schedule(after: .milliseconds(10)) { tick() }
    }
    tick()
    let start = Reactor.now()
    var announced = false
    func check() {
        let flooding = readers.count { $0.flooding }
        if !announced, (idleUp >= idle && flooding >= noread) || Reactor.now() - start > .seconds(20) {
            announced = true
            say("ready idle_up=\(idleUp) flooding=\(flooding) after_ms=\((Reactor.now() - start).components.seconds * 1000)")
        }
        if announced, Int((Reactor.now() - start).components.seconds) > reported {
            reported = Int((Reactor.now() - start).components.seconds) // a status line a second
            say("status idle_up=\(idleUp) idle_lost=\(lost) flooding=\(readers.count { $0.flooding }) "
                + "noread_replaced=\(replaced) large_games_over=\(gamesOver) large_moves_by_target=\(targetMoves)")
        }
        reactor.schedule(after: .milliseconds(100)) { check() }
    }
    var reported = 0
    check()
    reactor.schedule(after: .seconds(Int64(seconds))) { reactor.stop() }
    try reactor.run()
    say("status idle_up=\(idleUp) idle_lost=\(lost) noread_replaced=\(replaced) large_games_over=\(gamesOver)")
}

// MARK: - main

switch (args.count > 1 ? args[1] : "", args.count) {
case ("moves", 5), ("moves", 6):
    try moves(port: number(2), count: number(3), warmup: number(4),
              pace: .milliseconds(args.count == 6 ? number(5) as Int64 : 0))
case ("attack", 7):
    try attack(port: number(2), idle: number(3), noread: number(4), games: number(5), seconds: number(6))
default:
    fail("usage: tictac-hostility moves PORT COUNT WARMUP [PACE_MS] | attack PORT IDLE NOREAD GAMES SECONDS")
}
