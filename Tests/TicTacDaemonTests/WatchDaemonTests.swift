import Testing
import TicTacEngine
import TicTacNet
import TicTacTestSupport
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore

/// Watchers over loopback sockets (Protocol.md §14): more watchers than the shell serves in one
/// turn of the loop (`LateFrames.linksPerTurn`), following two bots that play flat out. Every
/// watcher must see every move of every game it follows, numbered in order, each game's end
/// true to its board, and all of them the same games.
@Suite(.serialized) struct WatchDaemonTests {
    /// What one watcher saw: per game number, its moves and its end.
    final class Seen {
        var games: [Int: (moves: [Int], end: WatchEnd?)] = [:]
        var current: Int?
        var faults: [String] = []
        var stopped: [WatchStopReason] = []
    }

    @Test func moreWatchersThanOneTurnServesSeeEveryMoveInOrder() throws {
        let reactor = try Reactor()
        var alphaConfig = config("alpha", seed: 41, bot: .perfect), betaConfig = config("beta", seed: 42, bot: .random)
        for c in [\DaemonConfig.maxGamesPerPeerPerMinute] { alphaConfig[keyPath: c] = 0; betaConfig[keyPath: c] = 0 }
        betaConfig.capabilities.insert(.spectators)
        alphaConfig.capabilities.insert(.spectators) // both players allow it (either one's no counts, §14)
        let alpha = try Daemon(reactor: reactor, config: alphaConfig)
        let beta = try Daemon(reactor: reactor, config: betaConfig)
        let betaAddress = try #require(SocketAddress(ip: "127.0.0.1", port: beta.port))
        let count = LateFrames.linksPerTurn + 2
        var watchers: [Daemon] = []
        var seen: [Seen] = []
        for i in 0..<count {
            var c = config("w\(i)", seed: 500 + UInt64(i))
            c.capabilities = []
            let w = try Daemon(reactor: reactor, config: c)
            let s = Seen()
            func ask() { try? w.command(.watch("beta", Watch(.follow))) }
            w.onEvent = { event in
                switch event {
                case .peerFound: ask()
                case let .watched(.game(g), _):
                    s.current = Int(g.number)
                    s.games[Int(g.number)] = (g.moves.map(Int.init), nil)
                case let .watched(.move(cell, number), _):
                    guard let n = s.current, var game = s.games[n] else { return s.faults.append("a move before WATCHING") }
                    if number != game.moves.count + 1 { s.faults.append("game \(n): move \(number) after \(game.moves.count)") }
                    game.moves.append(cell)
                    s.games[n] = game
                case let .watched(.ended(e), _):
                    guard let n = s.current else { return }
                    s.games[n]?.end = e
                case let .watched(.stopped(reason), _):
                    s.stopped.append(reason)
                    reactor.schedule(after: .milliseconds(20)) { ask() } // no game yet: ask again
                default: break
                }
            }
            w.connect(to: betaAddress)
            watchers.append(w)
            seen.append(s)
        }
        alpha.connect(to: betaAddress)
        let done = try run(reactor, for: .seconds(30)) {
            seen.allSatisfy { s in s.games.values.filter { $0.end != nil }.count >= 5 }
        }
        #expect(done, "every watcher saw five games end")
        for (i, s) in seen.enumerated() {
            #expect(s.faults.isEmpty, "watcher \(i): \(s.faults)")
            #expect(!s.stopped.contains(.full) && !s.stopped.contains(.off))
            for (n, game) in s.games {
                guard let end = game.end else { continue }
                var board = Board(size: .classic)
                for (k, cell) in game.moves.enumerated() { _ = try? board.place(k % 2 == 0 ? .o : .x, at: cell) }
                #expect(board.filledCount == game.moves.count, "watcher \(i), game \(n): a move on a taken cell")
                if let line = board.winningLine {
                    #expect(end == WatchEnd(winner: line.piece.rawValue, how: .line), "watcher \(i), game \(n)")
                } else if board.isFull {
                    #expect(end == WatchEnd(winner: 0, how: .full), "watcher \(i), game \(n)")
                }
            }
        }
        // The same game seen by two watchers is the same game.
        for n in Set(seen.flatMap { $0.games.keys }) {
            let ended = seen.compactMap { s in s.games[n].flatMap { $0.end != nil ? $0.moves : nil } }
            #expect(Set(ended.map { $0.map(String.init).joined(separator: ",") }).count <= 1, "game \(n) differs between watchers")
        }
        alpha.leave()
        beta.leave()
        for w in watchers { w.leave() }
    }
}
