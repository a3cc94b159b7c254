import Testing
import TicTacAPI
import TicTacEngine
import TicTacNet
import TicTacTestSupport
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

/// Seeded generators for a daemon: one fresh SplitMix64 per call, from a counter.
final class SeededRandoms {
    private var next: UInt64
    init(_ seed: UInt64) { next = seed &* 0x9E37_79B9_7F4A_7C15 }
    func make() -> any RandomNumberGenerator {
        next &+= 1
        return SplitMix64(seed: next)
    }
}

func config(_ name: String, seed: UInt64, bot: BotLevel? = nil) -> DaemonConfig {
    let randoms = SeededRandoms(seed)
    var rng = SplitMix64(seed: seed)
    var c = DaemonConfig(identity: Identity(using: &rng), name: try! DisplayName(name),
                         makeRandom: { randoms.make() })
    c.player = bot.map { .bot(Bot(level: $0)) } ?? .human
    return c
}

/// `config` for a daemon that keeps its games across a lost link (`window`) and a history.
func resuming(_ name: String, seed: UInt64, bot: BotLevel? = nil, window: Duration = .seconds(600)) -> DaemonConfig {
    var c = config(name, seed: seed, bot: bot)
    c.capabilities.insert(.resume)
    c.keepsHistory = true
    c.resumeWindow = window
    return c
}

/// Collects one daemon's events.
final class Log {
    var events: [DaemonEvent] = []
    var results: [GameResult] {
        events.compactMap { if case let .game(.gameOver(r, _, _), _) = $0 { r } else { nil } }
    }
    func has(_ match: (DaemonEvent) -> Bool) -> Bool { events.contains(where: match) }
}

@Suite(.serialized) struct TwoDaemonsTests {
    @Test func twoBotsPlayManyGamesOverLoopbackAndAgree() throws {
        let reactor = try Reactor()
        let a = try Daemon(reactor: reactor, config: config("alpha", seed: 1, bot: .perfect))
        let b = try Daemon(reactor: reactor, config: config("beta", seed: 2, bot: .random))
        let logA = Log(), logB = Log()
        a.onEvent = { logA.events.append($0) }
        b.onEvent = { logB.events.append($0) }
        a.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: b.port)))
        let finished = try run(reactor) { logA.results.count >= 20 && logB.results.count >= 20 }
        #expect(finished)
        let n = min(logA.results.count, logB.results.count)
        let mirrored: [GameResult: GameResult] = [.won: .lost, .lost: .won, .draw: .draw]
        #expect(Array(logA.results.prefix(n)) == logB.results.prefix(n).map { mirrored[$0]! })
        #expect(!logA.results.contains(.lost), "the perfect bot lost a game")
        #expect(!logA.has { if case .protocolError = $0 { true } else { false } })
        a.leave()
        try #require(try run(reactor, for: .seconds(5)) { b.connectionCount == 0 })
        #expect(logB.has { if case .peerLost = $0 { true } else { false } })
    }

    @Test func aBotsGameEndingMoveAndItsNextGameLeaveInOneSendEvenWithEventsBetween() throws {
        // Alpha (a bot whose front takes every event) ends games with its own MOVE; the core
        // queues that MOVE, the game-over event, then the next game's RESET and ROLL_COMMIT.
        // The frames leave before the events are told (Daemon.apply's two passes), so the three
        // go in one send(); the game-over event between them used to split them in two.
        let reactor = try Reactor()
        let a = try Daemon(reactor: reactor, config: config("alpha", seed: 21, bot: .perfect))
        let b = try Daemon(reactor: reactor, config: config("beta", seed: 22, bot: .random))
        let logA = Log(), logB = Log()
        a.onEvent = { logA.events.append($0) }
        b.onEvent = { logB.events.append($0) }
        var sends: [[UInt8]] = [] // alpha's frame types, one array per send()
        var decoder = FrameDecoder(), undecoded = 0
        a.tap = { _, _, event in
            guard case let .sent(bytes) = event else { return }
            decoder.feed(bytes)
            var types: [UInt8] = []
            do {
                while let frame = try decoder.next() { types.append(frame.type) }
            } catch {
                undecoded += 1
            }
            sends.append(types)
        }
        a.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: b.port)))
        #expect(try run(reactor) { logA.results.count >= 10 && logB.results.count >= 10 })
        #expect(undecoded == 0)
        let wins = logA.results.filter { $0 == .won }.count
        #expect(wins > 0, "the perfect bot won no game: nothing tested")
        // A game alpha won ended on its own MOVE: that send holds the next game's start too.
        let move = Message.Kind.move.rawValue, reset = Message.Kind.reset.rawValue
        let commit = Message.Kind.rollCommit.rawValue
        let together = sends.filter { types in
            types.indices.dropLast(2).contains { types[$0] == move && types[$0 + 1] == reset && types[$0 + 2] == commit }
        }
        #expect(together.count >= wins, "\(together.count) sends held a MOVE and the next game's start, for \(wins) wins")
        a.leave()
    }

    @Test func aDaemonGivenSomeGameEventsGetsOnlyThoseAndStillPlays() throws {
        // Alpha's front takes only what a headless bot counts with (`DaemonConfig.gameEvents`):
        // it gets those kinds and no others, and the games still run to the end on both sides.
        let reactor = try Reactor()
        let wanted: [GameEventKinds] = [.gameStarted, .opponentMoved, .gameOver]
        var c = config("alpha", seed: 11, bot: .random)
        c.gameEvents = GameEventKinds(wanted)
        let a = try Daemon(reactor: reactor, config: c)
        let b = try Daemon(reactor: reactor, config: config("beta", seed: 12, bot: .random))
        let logA = Log(), logB = Log()
        a.onEvent = { logA.events.append($0) }
        b.onEvent = { logB.events.append($0) }
        a.connect(to: try #require(SocketAddress(ip: "127.0.0.1", port: b.port)))
        #expect(try run(reactor) { logA.results.count >= 10 && logB.results.count >= 10 })
        let kinds = Set(logA.events.compactMap { if case let .game(e, _) = $0 { e.kind.rawValue } else { nil } })
        #expect(kinds == Set(wanted.map(\.rawValue)), "alpha was given \(kinds)")
        let kindsB = Set(logB.events.compactMap { if case let .game(e, _) = $0 { e.kind.rawValue } else { nil } })
        #expect(kindsB.isSuperset(of: [GameEventKinds.board.rawValue, GameEventKinds.yourTurn.rawValue, GameEventKinds.score.rawValue]))
        let n = min(logA.results.count, logB.results.count)
        let mirrored: [GameResult: GameResult] = [.won: .lost, .lost: .won, .draw: .draw]
        #expect(Array(logA.results.prefix(n)) == logB.results.prefix(n).map { mirrored[$0]! })
        a.leave()
        try #require(try run(reactor, for: .seconds(5)) { b.connectionCount == 0 })
    }

    @Test func aConnectToAPeerNotYetStartedKeepsTryingUntilItAnswers() throws {
        let reactor = try Reactor()
        let human = try Daemon(reactor: reactor, config: config("dave", seed: 5))
        let log = Log()
        human.onEvent = { log.events.append($0) }
        let port: UInt16 = 52_211
        human.keepConnecting(to: [try #require(SocketAddress(ip: "127.0.0.1", port: port))])
        try turn(reactor, for: .milliseconds(1500))
        let failures = log.events.filter { if case .connectFailed = $0 { true } else { false } }
        #expect(failures.count == 1, "the first failure is told once: \(failures)")
        // The peer starts late: the next retry (after 1 s, then 2 s) reaches it.
        let bot = try Daemon(reactor: reactor, config: config("late", seed: 6, bot: .random), port: port)
        #expect(try run(reactor, for: .seconds(5)) { !human.core.peers.isEmpty })
        #expect(log.events.filter { if case .connectFailed = $0 { true } else { false } }.count == 1)
        human.leave()
        bot.leave()
    }

    @Test func aHumanInvitesByNameAndPlaysByCommands() throws {
        let reactor = try Reactor()
        let human = try Daemon(reactor: reactor, config: config("carol", seed: 3))
        let bot = try Daemon(reactor: reactor, config: config("botty", seed: 4, bot: .random))
        let log = Log()
        human.onEvent = { log.events.append($0) }
        human.connect(to: try #require(SocketAddress(ip: "::1", port: bot.port)))
        #expect(try run(reactor) { !human.core.peers.isEmpty })
        #expect(throws: CommandError.noSuchPeer("nobody")) { try human.command(.invite("nobody")) }
        try human.command(.invite("BOTTY"))
        // Play the lowest free cell whenever it is our turn, until one game is over.
        let done = try run(reactor) {
            if case .game(.yourTurn, _) = log.events.last, let game = human.core.currentGame {
                try? human.command(.move(game.board.emptyCells[0]))
            }
            return !log.results.isEmpty
        }
        #expect(done)
        #expect(log.has { if case .game(.gameStarted, _) = $0 { true } else { false } })
    }
}
