// What tictac-bench (tictac-bench/main.swift) and tictac-hostility (tictac-hostility/main.swift)
// share: the scripts compile each with this file, with plain swiftc against the release build's
// modules and objects.

#if canImport(Glibc)
import Glibc
#endif
import TicTacDaemon
import TicTacAPI
import TicTacDaemonCore
import TicTacEngine
import TicTacNet
import TicTacTime
import TicTacWire

let args = CommandLine.arguments

/// Prints `message` to stderr, prefixed with the tool's name, and exits 1.
func fail(_ message: String) -> Never {
    let tool = args.first.flatMap { $0.split(separator: "/").last }.map(String.init) ?? "tictac-bench"
    let line = Array("\(tool): \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

/// Argument `i` as a number, or exit with a message.
func number<T: FixedWidthInteger>(_ i: Int) -> T {
    guard let value = T(args[i]) else { fail("not a number: \(args[i])") }
    return value
}

func monotonicNanoseconds() -> Int64 { Reactor.now().nanoseconds }

func format2(_ x: Double) -> String {
    let scaled = (x * 100).rounded() / 100
    return "\(scaled)"
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

// MARK: - moves

/// Turns taken with another process (tools/bench/run: the C pairs' client, pingpong.c
/// `--baton`), so that both are timed in the same stretches of the machine's load: before each
/// block of `block` timed moves, one byte to the fifo `output`, then wait for one from `input`.
/// The fifos are opened at the first turn, `output` first (the client opens them in the same
/// order, so neither open waits forever).
final class Baton {
    let input: String, output: String, block: Int
    private var inFD: Int32 = -1, outFD: Int32 = -1

    init(input: String, output: String, block: Int) {
        self.input = input
        self.output = output
        self.block = block
    }

    func pass() {
        if outFD < 0 {
            outFD = open(output, O_WRONLY)
            inFD = open(input, O_RDONLY)
            guard outFD >= 0, inFD >= 0 else { fail("baton: cannot open \(output) and \(input)") }
        }
        var byte: UInt8 = 1
        guard write(outFD, &byte, 1) == 1 else { fail("baton: cannot write \(output)") }
        while true {
            let n = read(inFD, &byte, 1)
            if n == 1 { return }
            if n < 0, errno == EINTR { continue }
            fail("baton: \(input) closed (the other side ended)")
        }
    }
}

/// A player's seat (`config`, its board size included) dials the bot daemon at 127.0.0.1:PORT,
/// invites it and plays the first empty cell `pace` after each turn comes. Each sample runs from
/// the local move command to the opponent-moved event; a move that ends a game has no answer and
/// is not one. Rematches at once. After `warmup` moves, `count` are timed; `raw` gets every
/// sample, one a line: ns and its kind (0: our move opened the game, so the game's start was
/// just before it; 1: a move in mid-game; 2: the answer ended the game, so the peer's end of
/// game and rematch came with it). Prints p50_us, p99_us, max_us, mean_us and n.
func moves(port: UInt16, config: DaemonConfig, count: Int, warmup: Int, pace: Duration = .zero, raw: String? = nil,
           baton: Baton? = nil) throws {
    guard let server = SocketAddress(ip: "127.0.0.1", port: port) else { fail("bad port") }
    let reactor = try Reactor()
    var config = config
    config.rematchDelay = .zero
    let run = try MovesRun(reactor: reactor, config: config, count: count, warmup: warmup, pace: pace, baton: baton)
    run.player.connect(to: server)
    reactor.schedule(after: .seconds(120)) { reactor.stop() }
    try reactor.run()
    run.report(raw: raw)
}

/// The player's side of `moves`: its state in one object, not in variables captured by the
/// closures (each such variable is a box whose every access is checked at run time, and the
/// bench's own checks were counted with the daemons': docs/performance.md, the table of what
/// moved the instructions).
final class MovesRun {
    let player: Daemon
    private let reactor: Reactor
    private let count: Int, warmup: Int, pace: Duration, baton: Baton?
    private var board: Board
    private var samples: [Int64] = [], kinds: [UInt8] = []
    private var seen = 0, sentAt: Int64 = 0, failure: String?
    private var movesThisGame = 0, opening = false, lastWasAnswer = false
    private var batonAt = -1, discard = false
    private var playLater: () -> Void = {} // one closure for every turn, not one made per turn

    init(reactor: Reactor, config: DaemonConfig, count: Int, warmup: Int, pace: Duration, baton: Baton?) throws {
        self.reactor = reactor
        self.count = count
        self.warmup = warmup
        self.pace = pace
        self.baton = baton
        player = try Daemon(reactor: reactor, config: config)
        board = Board(size: config.size)
        var s = [Int64](), k = [UInt8]() // reserved before they are stored (as `takeOut` below)
        s.reserveCapacity(count)
        k.reserveCapacity(count)
        samples = s
        kinds = k
        // Held strongly (an unowned reference is checked at each use), the cycles broken by `report`.
        player.onEvent = { event in self.handle(event) }
        playLater = { self.play() }
    }

    private func play() {
        // No move yet this game: the board is empty and the first cell is free.
        guard let cell = movesThisGame == 0 ? 0 : (0..<board.size.cellCount).first(where: { board[$0] == .empty }) else { return }
        // Before each block of timed moves the other process takes its turn (nothing of ours
        // runs). The first answer after it is not a sample: it finds the caches as the other
        // process left them (the C client likewise makes one untimed round trip first).
        if let baton, seen >= warmup, seen - warmup < count, (seen - warmup) % baton.block == 0, batonAt != seen {
            batonAt = seen
            baton.pass()
            discard = true
        }
        opening = movesThisGame == 0
        lastWasAnswer = false
        sentAt = monotonicNanoseconds()
        do { try player.command(.move(cell)) } catch { stop("move: \(error)") }
    }

    private func handle(_ event: DaemonEvent) {
        switch event {
        case let .peerFound(peer):
            do { try player.command(.invite(peer.id.description)) } catch { stop("invite: \(error)") }
        case .game(.opponentMoved, _):
            guard sentAt != 0 else { return } // the bot opened the game: nothing was timed
            let t = monotonicNanoseconds() - sentAt
            sentAt = 0
            if discard { discard = false; return }
            seen += 1
            if seen > warmup {
                // Appended while taken out: no access to the properties spans the append's calls.
                var s = takeOut(&samples), k = takeOut(&kinds)
                s.append(t)
                k.append(opening ? 0 : 1)
                samples = s
                kinds = k
                lastWasAnswer = true
            }
            if samples.count == count { reactor.stop() }
        case let .game(.board(b), _):
            board = b
            movesThisGame += 1
        case .game(.gameOver, _):
            sentAt = 0 // our move ended the game: the bot's next move opens another, not an answer
            if lastWasAnswer, !kinds.isEmpty { kinds[kinds.count - 1] = 2 } // the answer ended it
            lastWasAnswer = false
        case .game(.gameStarted, _):
            movesThisGame = 0 // `board` is the last game's until this one's first move: not read
        case .game(.yourTurn, _):
            // After the handler returns: the event arrives inside the daemon's own dispatch.
            reactor.schedule(after: pace, playLater)
        case let .peerLost(_, reason), let .disconnected(_, reason), let .connectFailed(_, reason):
            stop(reason)
        case let .protocolError(_, _, message, _):
            stop(message)
        default:
            break
        }
    }

    private func stop(_ reason: String) {
        failure = reason
        reactor.stop()
    }

    /// After the reactor stopped: fails, or writes `raw` and prints the figures.
    func report(raw: String?) {
        player.onEvent = { _ in }
        playLater = {}
        var samples = samples
        if let failure { fail("moves: \(failure)") }
        guard samples.count == count else { fail("moves: only \(samples.count) of \(count) in 120 s") }
        if let raw {
            guard let f = fopen(raw, "w") else { fail("cannot write \(raw)") }
            for i in samples.indices { fputs("\(samples[i]) \(kinds[i])\n", f) }
            guard fclose(f) == 0 else { fail("cannot write \(raw)") }
        }
        samples.sort()
        let mean = Double(samples.reduce(0, +)) / Double(count) / 1e3
        print("p50_us=\(format2(Double(samples[count / 2]) / 1e3)) p99_us=\(format2(Double(samples[count * 99 / 100]) / 1e3)) "
            + "max_us=\(format2(Double(samples[count - 1]) / 1e3)) mean_us=\(format2(mean)) n=\(count)")
        fflush(nil)
    }
}
