import Foundation
import Testing
import TicTacEngine
import TicTacWire
import TicTacTime

/// Two game sessions played by bots over a simulated link with virtual time: each direction
/// delivers in order (as TCP does) after a random delay, in random chunks through the real
/// stream decoder. After every game both sides must agree on the moves, the board, the outcome
/// and the score. Everything comes from the seed, so a failing seed reproduces exactly:
/// `TICTAC_SIM_SEED=1234 swift test --filter SimulationTests` (add TICTAC_SIM_TRACE=1 to print every step).
struct Simulation {
    struct Side {
        var session: GameSession
        var bot: Bot
        var rng: SplitMix64
        var decoder = FrameDecoder()
        var moveAt: Instant?
        /// Chaos mode: when this side next resigns or starts a new game at a random moment.
        var chaosAt: Instant?
    }

    struct Flight {
        var at: Instant
        var bytes: [UInt8]
    }

    static let levels: [BotLevel] = [.random, .easy, .good, .perfect]

    var sides: [Side]
    var wire: [[Flight]] = [[], []] // wire[i] carries frames to side i
    var net: SplitMix64
    var now = Instant.zero
    /// Games side 0 moved first in (the first-move decision is a fair coin).
    var firstMoves = 0
    /// Chaos mode: one turn in `stallOneIn` the bot thinks past the move clock.
    var stallOneIn: UInt64 = 0
    /// Peer messages that arrived after the receiver had ended the game or started the next one,
    /// by "KIND in STATE": the crossings the chaos run must cover.
    private(set) var crossings: [String: Int] = [:]
    let seed: UInt64

    /// `moveTime`: both sides' move clock ask (zero: none).
    init(seed: UInt64, moveTime: Duration = .zero) {
        self.seed = seed
        var setup = SplitMix64(seed: seed)
        sides = (0..<2).map { i in
            let rng = SplitMix64(seed: setup.next())
            let level = Self.levels[Int(setup.next() % 4)]
            return Side(session: GameSession(rng: rng, moveTime: moveTime), bot: Bot(level: level),
                        rng: SplitMix64(seed: setup.next()))
        }
        net = SplitMix64(seed: setup.next())
    }

    /// Plays `games` games; returns nil on success or what went wrong.
    mutating func run(games: Int) -> String? {
        for i in 0..<2 { sides[i].session.handle(.start, now: now) }
        var checked = 0
        var steps = 0
        while checked < games {
            steps += 1
            if steps > 100_000 { return "stalled after \(checked) games at \(now)" }
            if let failure = drain() { return failure }
            // Both sides finished game `checked + 1`: compare.
            if sides.allSatisfy({ $0.session.gamesPlayed > checked && $0.session.state == .done }) {
                if let problem = compare() { return "game \(checked + 1): \(problem)" }
                checked += 1
                continue
            }
            guard let next = nextEventTime() else { return "deadlock after \(checked) games" }
            now = next
            step()
        }
        return drain()
    }

    /// Plays while each side resigns or starts a new game at random moments, so RESIGN, MOVE and
    /// RESET cross on the wire in every order. Whenever the link is quiet with both sides in Done
    /// after the same number of games, they must agree on the last result and the score. Returns
    /// nil on success, with `quietChecks` counting those checks.
    mutating func runChaos(games: Int) -> String? {
        for i in 0..<2 {
            sides[i].session.handle(.start, now: now)
            sides[i].chaosAt = now + .milliseconds(Int64(sides[i].rng.next() % 1500))
        }
        var steps = 0
        while sides.contains(where: { $0.session.gamesPlayed < games }) {
            steps += 1
            if steps > 100_000 { return "stalled at \(now)" }
            if let failure = drain() { return failure }
            let a = sides[0].session, b = sides[1].session
            if wire.allSatisfy(\.isEmpty), a.state == .done, b.state == .done, a.gamesPlayed == b.gamesPlayed {
                let mirrored: [GameResult: GameResult] = [.won: .lost, .lost: .won, .draw: .draw]
                if a.lastResult.flatMap({ mirrored[$0] }) != b.lastResult {
                    return "game \(a.gamesPlayed): outcomes disagree: \(String(describing: a.lastResult)) vs \(String(describing: b.lastResult))"
                }
                if a.score != Score(won: b.score.lost, lost: b.score.won, drawn: b.score.drawn) {
                    return "game \(a.gamesPlayed): scores disagree: \(a.score) vs \(b.score)"
                }
                quietChecks += 1
            }
            guard let next = nextEventTime() else { return "deadlock" }
            now = next
            step()
        }
        return drain()
    }

    private(set) var quietChecks = 0
    var trace = ProcessInfo.processInfo.environment["TICTAC_SIM_TRACE"] != nil

    private func compare() -> String? {
        let a = sides[0].session, b = sides[1].session
        if a.moves != b.moves { return "moves differ: \(a.moves) vs \(b.moves)" }
        if a.board != b.board { return "boards differ: \(a.board.text) vs \(b.board.text)" }
        let mirrored: [GameResult: GameResult] = [.won: .lost, .lost: .won, .draw: .draw]
        guard let ra = a.lastResult, let rb = b.lastResult, mirrored[ra] == rb else {
            return "outcomes disagree: \(String(describing: a.lastResult)) vs \(String(describing: b.lastResult))"
        }
        if a.score != Score(won: b.score.lost, lost: b.score.won, drawn: b.score.drawn) {
            return "scores disagree: \(a.score) vs \(b.score)"
        }
        // The board must tell the same story as the outcome.
        switch a.board.outcome {
        case .inProgress: return "game over on an unfinished board \(a.board.text)"
        case .draw where ra != .draw: return "full board without a line, but \(ra)"
        case let .won(line) where (line.piece == a.piece) != (ra == .won): return "winner disagrees with the board"
        default: return nil
        }
    }

    /// Takes each side's actions: frames onto the wire, "your turn" schedules a bot move.
    private mutating func drain() -> String? {
        for i in 0..<2 {
            for action in sides[i].session.pollActions() {
                if trace, case .show(let e) = action { if case .board = e {} else { print("\(now) \(i) shows \(e)") } }
                switch action {
                case let .send(m):
                    let delay = Duration.milliseconds(Int64(net.next() % 400))
                    let at = max(now + delay, wire[1 - i].last?.at ?? now)
                    wire[1 - i].append(Flight(at: at, bytes: m.encoded()))
                case let .show(.gameStarted(_, first, _)):
                    if i == 0, first { firstMoves += 1 }
                case .show(.yourTurn):
                    let stall = stallOneIn > 0 && sides[i].rng.next() % stallOneIn == 0
                    // A stalled bot thinks 7 s: past a 5 s clock, so its daemon sends TIME_UP.
                    sides[i].moveAt = now + (stall ? .seconds(7) : .milliseconds(Int64(sides[i].rng.next() % 50)))
                    if stall, sides[1 - i].chaosAt != nil {
                        // The opponent loses patience just as the clock runs out, so its RESIGN or
                        // restart and the staller's TIME_UP cross on the wire about half the time.
                        sides[1 - i].chaosAt = now + .seconds(5) + .milliseconds(Int64(sides[i].rng.next() % 400))
                        sides[i].chaosAt = now + .seconds(6) // the staller itself just waits
                    }
                case .show, .record:
                    break
                case let .fail(code, message):
                    return "side \(i) failed: \(code) \(message)"
                }
            }
        }
        return nil
    }

    private func nextEventTime() -> Instant? {
        var times: [Instant] = []
        for i in 0..<2 {
            if let f = wire[i].first { times.append(f.at) }
            if let t = sides[i].session.pollTimeout() { times.append(t) }
            if let t = sides[i].moveAt { times.append(t) }
            if let t = sides[i].chaosAt { times.append(t) }
        }
        return times.min()
    }

    private mutating func step() {
        for i in 0..<2 {
            while let f = wire[i].first, f.at <= now {
                wire[i].removeFirst()
                deliver(f.bytes, to: i)
            }
            if let t = sides[i].moveAt, t <= now {
                sides[i].moveAt = nil
                let s = sides[i].session
                if s.state == .myTurn {
                    let cell = sides[i].bot.chooseMove(on: s.board, as: s.piece, using: &sides[i].rng)
                    if trace { print("\(now) \(i) move \(cell)") }
                    try? sides[i].session.perform(.move(cell), now: now)
                }
            }
            if let t = sides[i].chaosAt, t <= now {
                switch sides[i].rng.next() % 3 {
                case 0: if trace { print("\(now) \(i) resign [\(sides[i].session.state)]") }; try? sides[i].session.perform(.resign, now: now)
                case 1: if trace { print("\(now) \(i) new [\(sides[i].session.state)]") }; try? sides[i].session.perform(.newGame, now: now)
                default: break
                }
                sides[i].chaosAt = now + .milliseconds(Int64(sides[i].rng.next() % 1500))
            }
            if let t = sides[i].session.pollTimeout(), t <= now {
                sides[i].session.handleTimeout(now: now)
            }
        }
    }

    /// Feeds bytes in random chunks through the stream decoder, as reads from a socket would.
    private mutating func deliver(_ bytes: [UInt8], to i: Int) {
        var offset = 0
        while offset < bytes.count {
            let n = min(bytes.count - offset, 1 + Int(net.next() % 16))
            sides[i].decoder.feed(bytes[offset..<(offset + n)])
            offset += n
            while let frame = try? sides[i].decoder.next() {
                guard let m = try? Message(frame: frame) else { continue }
                if trace { print("\(now) ->\(i) \(m) [state \(sides[i].session.state)]") }
                let state = sides[i].session.state
                if [.move, .resign, .timeUp].contains(m.kind), state == .done || state == .rollingDice {
                    crossings["\(m.kind) in \(state)", default: 0] += 1
                }
                sides[i].session.handle(.received(m), now: now)
            }
        }
    }
}

@Suite struct SimulationTests {
    static let seedsPerChunk: UInt64 = 250
    static let gamesPerSeed = 5

    /// 8 chunks x 250 seeds x 5 games = 10,000 games.
    @Test(arguments: 0..<8)
    func tenThousandSeededGames(chunk: UInt64) {
        var seeds = (chunk * Self.seedsPerChunk)..<((chunk + 1) * Self.seedsPerChunk)
        // TICTAC_SIM_SEED=N replays that one seed.
        if let text = ProcessInfo.processInfo.environment["TICTAC_SIM_SEED"], let seed = UInt64(text) {
            seeds = chunk == 0 ? seed..<(seed + 1) : seed..<seed // replayed once, in chunk 0
        }
        var played = 0, firstMoves = 0
        for seed in seeds {
            var sim = Simulation(seed: seed)
            if let failure = sim.run(games: Self.gamesPerSeed) {
                Issue.record("seed \(seed) failed: \(failure) (reproduce: TICTAC_SIM_SEED=\(seed))")
                return
            }
            played += Self.gamesPerSeed
            firstMoves += sim.firstMoves
        }
        #expect(played == seeds.count * Self.gamesPerSeed)
        // The first move is a fair coin: 1,250 games per chunk, so 40..60 % is over 7 standard deviations.
        #expect(seeds.count == 1 || (0.4...0.6).contains(Double(firstMoves) / Double(played)))
    }

    /// 4 chunks x 250 seeds x 8 games with random resignations and restarts.
    @Test(arguments: 0..<4)
    func crossingMessagesNeverBreakAGame(chunk: UInt64) {
        var seeds = (chunk * 250)..<((chunk + 1) * 250)
        if let text = ProcessInfo.processInfo.environment["TICTAC_SIM_SEED"], let seed = UInt64(text) {
            seeds = chunk == 0 ? seed..<(seed + 1) : seed..<seed // replayed once, in chunk 0
        }
        var checks = 0, resignations = 0
        var crossings: [String: Int] = [:]
        for seed in seeds {
            // A 5 s move clock, and one bot turn in eight thinks past it: TIME_UP crosses too.
            var sim = Simulation(seed: seed, moveTime: .seconds(5))
            sim.stallOneIn = 8
            if let failure = sim.runChaos(games: 8) {
                Issue.record("chaos seed \(seed) failed: \(failure) (reproduce: TICTAC_SIM_SEED=\(seed))")
                return
            }
            checks += sim.quietChecks
            resignations += sim.sides[0].session.score.lost + sim.sides[1].session.score.lost
            crossings.merge(sim.crossings, uniquingKeysWith: +)
        }
        // The agreement check ran, and the games really were cut short by resignations.
        #expect(checks >= seeds.count)
        #expect(resignations >= seeds.count)
        // Every kind of crossing happened, and the scores agreed after each (checked above).
        guard seeds.count > 1 else { return }
        for kind in ["move in done", "resign in done", "timeUp in done", "move in rollingDice", "resign in rollingDice"] {
            #expect(crossings[kind, default: 0] > 0, "no \(kind) crossing in \(crossings)")
        }
    }

    @Test func sameSeedSameGames() {
        var a = Simulation(seed: 77), b = Simulation(seed: 77)
        #expect(a.run(games: 3) == nil)
        #expect(b.run(games: 3) == nil)
        #expect(a.sides[0].session.moves == b.sides[0].session.moves)
        #expect(a.sides[0].session.score == b.sides[0].session.score)
        #expect(a.now == b.now)
    }

    @Test func perfectAgainstPerfectAlwaysDraws() {
        for seed in UInt64(0)..<20 {
            var sim = Simulation(seed: seed)
            sim.sides[0].bot = Bot(level: .perfect)
            sim.sides[1].bot = Bot(level: .perfect)
            #expect(sim.run(games: 3) == nil)
            #expect(sim.sides[0].session.score == Score(drawn: 3))
        }
    }
}
