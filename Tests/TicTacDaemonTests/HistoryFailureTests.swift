import Testing
import TicTacDaemonCore
import TicTacEngine
import TicTacNet
import TicTacTestSupport
import TicTacWire
@testable import TicTacDaemon

/// A history that fails mid-game (a full disk): the move whose facts could not be stored never
/// leaves (Protocol.md §13: a move is stored before it is sent). The game stops on that side
/// with nothing more sent, the peer keeps it interrupted, and a restart with room takes it up.
@Suite(.serialized) struct HistoryFailureTests {
    /// `atTheEnd`: the failing turn is the one that ends the game (a rematch may begin in it),
    /// so the game is no longer the link's running one when the failure is handled.
    @Test(arguments: [false, true])
    func aMoveThatCannotBeStoredIsNeverSent(atTheEnd: Bool) throws {
        let reactor = try Reactor()
        func resuming(_ name: String, _ seed: UInt64, _ bot: BotLevel) -> DaemonConfig {
            var c = TicTacDaemonTests.resuming(name, seed: seed, bot: bot)
            c.versions = 1...1 // the test reads the frames alpha sends
            return c
        }
        let a = try Daemon(reactor: reactor, config: resuming("alpha", 71, .perfect))
        let b = try Daemon(reactor: reactor, config: resuming("beta", 72, .random))
        let logA = Log(), logB = Log()
        a.onEvent = { logA.events.append($0) }
        b.onEvent = { logB.events.append($0) }
        // Alpha's store fails on the first turn that holds its own third move or later, or the
        // game's end.
        var failedMove: Int?
        a.onRecord = { facts in
            guard failedMove == nil else { return true } // history off since: nothing to store
            for f in facts {
                switch f.fact {
                case let .moved(number, _, true) where number >= 3 && !atTheEnd: failedMove = number
                case .ended where atTheEnd: failedMove = 0
                default: break
                }
            }
            return failedMove == nil
        }
        var sentMoves: [(cell: UInt16, afterFailure: Bool)] = []
        var busyAnswers = 0
        var decoder = FrameDecoder()
        a.tap = { _, _, event in
            guard case let .sent(bytes) = event else { return }
            decoder.feed(bytes)
            while let frame = try? decoder.next() {
                switch try? Message(frame: frame) {
                case let .move(cell)?: sentMoves.append((cell, failedMove != nil))
                case let .resume(r)? where r.status == .busy: busyAnswers += 1
                default: break
                }
            }
        }
        a.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: b.port)))
        #expect(try run(reactor) { failedMove != nil && a.connectionCount == 0 })
        try #require(failedMove != nil, "the failure was never reached: nothing tested")
        #expect(!sentMoves.contains { $0.afterFailure }, "a move left after its facts could not be stored")
        #expect(logA.has { if case .gameAdjourned = $0 { true } else { false } })
        #expect(!logA.has { if case .protocolError = $0 { true } else { false } })
        // A new link: beta asks for the game. Alpha holds it only in its store, so it answers
        // "busy" and beta waits (never "unknown", which beta would count as abandonment).
        a.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: b.port)))
        #expect(try run(reactor, for: .seconds(10)) { busyAnswers > 0 })
        #expect(!logB.has { if case .gameAbandoned = $0 { true } else { false } })
        a.leave()
        b.leave()
    }
}
