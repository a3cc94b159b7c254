import Foundation
import Testing
@testable import TicTacApp
import TicTacEngine
import TicTacStore
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// Two resuming cores, each with its history store, play game after game while a seeded schedule
/// cuts their link (the frames in flight lost, or one direction delivered first), flaps it (one
/// side sees the loss and redials while the other still plays on the old link), moves the clock,
/// resigns, and kills a daemon and starts it again from its store. Then the network heals and
/// every game is played out. What both stores hold must agree (Protocol.md §13): every keyed
/// game on both sides, with the same moves and mirrored results, none void, none left waiting.
/// In a third of the schedules a third daemon, cal (a bot), is there for ann to play between
/// her games with ben: ann is then busy, so ben's claims can be accepted, and the games of
/// ann and cal must agree too.
/// A failing seed replays alone:
/// `TICTAC_RESULT_SEED=1234 tools/test --filter ResultSimulationTests`.
struct ResultSimulation {
    var n: CoreNet
    var rng: SplitMix64
    let seed: UInt64
    private let configs: [DaemonConfig]
    private let adjournLimit: Duration
    /// Each side's history (in memory: it outlives a restart of its core), and its writer.
    let stores: [GameStore]
    private var states: [DaemonState]
    /// How many of each side's records are stored.
    private var stored: [Int]
    /// cal (core 2) is there, linked to ann only, that link never cut.
    let third: Bool
    /// What the schedule did, for the report of a failing seed.
    private(set) var trace: [String] = []

    /// `limits`: each side's adjourn limit (else one from the seed for both).
    /// `quick`: both sides roll without RESET and ROLL_ACK (else in half the schedules, by seed).
    init(seed: UInt64, limits: [Duration]? = nil, quick: Bool? = nil) throws {
        self.seed = seed
        rng = SplitMix64(seed: seed)
        // In half the schedules ben is a bot: it accepts, moves and starts the next game at once.
        let bot: BotLevel? = seed % 2 == 0 ? [.random, .easy, .good, .perfect][Int(seed / 2 % 4)] : nil
        // Short, so partitions and absences past it (claims, crossing claims) happen in a schedule.
        let adjournLimit = Duration.seconds(Int64(4 + seed % 16))
        self.adjournLimit = adjournLimit
        func side(_ name: String, _ s: UInt64, bot: BotLevel? = nil, limit: Duration) -> DaemonConfig {
            var c = config(name, seed: s, bot: bot)
            c.capabilities.formUnion([.resume, .rollResume, .claims])
            if quick ?? (seed / 8 % 2 == 1) { c.capabilities.insert(.quickRoll) }
            c.adjournLimit = limit
            c.keepsHistory = true
            c.versions = 1...1 // CoreNet reads frames in clear
            return c
        }
        third = limits == nil && seed % 3 == 0
        configs = [side("ann", seed &* 2 &+ 1, limit: limits?[0] ?? adjournLimit),
                   side("ben", seed &* 2 &+ 2, bot: bot, limit: limits?[1] ?? adjournLimit)]
            + (third ? [side("cal", seed &* 2 &+ 3, bot: .random, limit: adjournLimit)] : [])
        stores = try configs.map { _ in try GameStore(copying: Self.emptyStore) }
        stored = configs.map { _ in 0 }
        states = stores.map { DaemonState(store: $0) }
        n = CoreNet(configs, sealed: false)
        if third { linkCal() }
        _ = n.connect(dialler: 0)
        n.settle()
        try n.command(0, .invite("ben"))
        n.settle()
        if bot == nil { try n.command(1, .accept) }
        n.settle()
    }

    /// A store migrated once; each side's starts as a copy.
    nonisolated(unsafe) private static let emptyStore = try? GameStore()

    private mutating func roll(_ below: UInt64) -> Int { Int(rng.next() % below) }

    /// The schedule and what each side did, for a failing seed.
    var report: String {
        var lines = trace
        for i in n.cores.indices {
            lines.append("side \(i) records:")
            lines += n.records[i].map { "  \($0.key?.description.prefix(8) ?? "-") \($0.fact)" }
            lines.append("side \(i) log:")
            lines += n.logs[i].map { "  " + $0 }
            lines.append("side \(i) sent:")
            lines += n.sent(i).compactMap { if case let .resume(r) = $0 { "  \(r)" } else { nil } }
            lines.append("side \(i) events:")
            lines += n.events[i].map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }

    /// Links neither end has seen close.
    private var openLinks: [LinkID] { links(between: 0, 1) }

    private func links(between a: Int, _ b: Int) -> [LinkID] {
        n.wires.filter { !n.closed.contains($0.key) && Set([$0.value.0, $0.value.1]) == Set([a, b]) }.keys.sorted()
    }

    /// ann and cal get a link when they have none (a restart of ann closed it).
    private mutating func linkCal() {
        guard third, links(between: 0, 2).isEmpty else { return }
        _ = n.connect(dialler: 0, to: 2) // ann dials: a bot invites only peers it dialled
        n.settle()
    }

    /// The link ann's seat is at, when it is one to cal.
    private var annAtCal: Bool {
        guard let at = n.cores[0].links.seat.link, let ends = n.wires[at] else { return false }
        return Set([ends.0, ends.1]) == Set([0, 2])
    }

    /// ann goes to play cal (adjourning a game that waits for ben), or leaves cal once a game
    /// with cal is over.
    private mutating func calStep() {
        guard third else { return n.settle() }
        if annAtCal {
            guard n.game(0)?.state == .done, roll(3) == 0 else { return n.settle() } // a few games with cal
            trace.append("ann leaves cal")
            try? n.command(0, .leaveMatch)
        } else if n.cores[0].links.seat == .idle || n.cores[0].links.seat == .suspended(configs[1].instanceID) {
            trace.append("ann plays cal")
            if n.cores[0].links.seat != .idle { try? n.command(0, .leaveMatch) }
            linkCal()
            try? n.command(0, .invite("cal"))
        }
        n.settle()
    }

    /// The side whose game waits for its move, and the game.
    private func mover() -> (Int, GameSession)? {
        for i in n.cores.indices { if let g = n.game(i), g.state == .myTurn { return (i, g) } }
        return nil
    }

    private mutating func move() {
        guard let (side, game) = mover() else { return }
        let cells = game.board.emptyCells
        guard !cells.isEmpty else { return }
        let cell = cells[roll(UInt64(cells.count))]
        trace.append("\(side) moves \(cell)")
        try? n.command(side, .move(cell))
    }

    /// A daemon that lost its link dials again when its game waits (Suspensions' redial): one
    /// link at a time here, as the real dial does once one is ready.
    private mutating func redial() {
        for i in n.cores.indices where !n.dials[i].isEmpty {
            n.dials[i] = []
            if i < 2, openLinks.isEmpty {
                trace.append("\(i) redials")
                _ = n.connect(dialler: i)
            }
        }
        linkCal()
    }

    /// One step of the fault schedule.
    private mutating func step() {
        switch roll(100) {
        case 0..<40: move()
        case 40..<50: n.settle()
        case 50..<55: calStep()
        case 55..<62:
            let side = roll(2)
            trace.append("deliver to \(side)")
            n.deliver(to: side)
        case 62..<70:
            guard let link = openLinks.last else { break }
            trace.append("cut \(link)")
            n.close(link)
        case 70..<76:
            guard let link = openLinks.last else { break }
            let side = roll(2)
            trace.append("flap \(link): \(side) sees it, redials")
            n.closeOneSide(link, seenBy: side)
            _ = n.connect(dialler: side)
        case 76..<88:
            let d = Duration.milliseconds(Int64(100 + roll(4_000)))
            trace.append("advance \(d)")
            n.advance(by: d)
        case 88..<90:
            // A partition past the adjourn limit: nothing is delivered while time runs.
            let seconds = Int(adjournLimit.components.seconds) + 1 + roll(10)
            trace.append("partition for \(seconds) s")
            for _ in 0..<seconds { n.advance(by: .seconds(1)) }
        case 90..<93:
            let side = roll(2)
            trace.append("\(side) resigns")
            try? n.command(side, .resign)
        case 93..<96:
            let side = roll(2)
            trace.append("\(side) is killed and starts again")
            restart(side)
        default:
            if openLinks.isEmpty {
                let side = roll(2)
                trace.append("\(side) reconnects")
                _ = n.connect(dialler: side)
            }
        }
        redial()
        store()
    }

    /// The shell stores each turn's facts before its frames leave: here, after every step.
    private mutating func store() {
        for i in n.cores.indices where stored[i] < n.records[i].count {
            states[i].record(Array(n.records[i][stored[i]...]), us: configs[i].instanceID)
            stored[i] = n.records[i].count
        }
    }

    /// Kills side `i` and starts it again from its store, as DaemonSetup does.
    mutating func restart(_ i: Int) {
        store()
        states[i] = DaemonState(store: stores[i]) // a new process: no cache
        var c = configs[i]
        (c.restored, c.restoredEnds) = states[i].resumable(limit: 2 * c.maxKeptGames, rematchDelay: c.rematchDelay,
                                                           makeRandom: c.makeRandom)
        n.restart(i, as: DaemonCore(config: c))
    }

    /// Plays the first game to its end with no fault.
    mutating func playOneGameToItsEnd() throws {
        for _ in 0..<20 where mover() != nil {
            move()
            n.settle()
        }
        try #require(n.game(0)?.state == .done && n.game(1)?.state == .done)
    }

    /// Time passes a second at a time with nothing delivered (a partition).
    mutating func partition(seconds: Int) {
        for _ in 0..<seconds { n.advance(by: .seconds(1)) }
        store()
    }

    /// Every link is lost, with what is in flight on it.
    mutating func cutEveryLink() {
        for link in openLinks { n.close(link) }
    }

    /// Runs `steps` faulty steps, then heals and plays every game out. Nil, or what is wrong.
    mutating func run(steps: Int) -> String? {
        for _ in 0..<steps { step() }
        trace.append("heal")
        // A link one end still holds dies there too (its liveness would see it).
        for link in n.unaware.keys.sorted() { n.close(link) }
        for _ in 0..<400 {
            if openLinks.isEmpty { _ = n.connect(dialler: roll(2)) }
            linkCal()
            if annAtCal, n.game(0)?.state == .done { try? n.command(0, .leaveMatch) } // back for ben
            n.settle()
            redial()
            if mover() == nil {
                if settled { break }
                n.advance(by: .seconds(1))
            } else {
                move()
            }
        }
        store()
        guard settled else { return "not settled after healing: \(unsettledWhy)" }
        do {
            let histories = try stores.map { try $0.history(limit: 10_000) }
            func with(_ i: Int, _ peer: Int) -> Ledger { Ledger(histories[i].filter { $0.peerID == configs[peer].instanceID }) }
            if let problem = with(0, 1).disagreement(with: with(1, 0)) { return problem }
            return third ? with(0, 2).disagreement(with: with(2, 0)).map { "ann and cal: \($0)" } : nil
        } catch {
            return "the history cannot be read: \(error)"
        }
    }

    /// Healed: no game of either side waits for a move or a link, nothing in flight.
    private var settled: Bool { unsettledWhy.isEmpty }

    private var unsettledWhy: String {
        var why: [String] = []
        for i in n.cores.indices {
            if let g = n.game(i), g.state == .myTurn || g.state == .opponentTurn { why.append("\(i) in play") }
            if n.cores[i].waitingGames > 0 { why.append("\(i) holds \(n.cores[i].waitingGames) waiting") }
        }
        return why.joined(separator: ", ")
    }
}

@Suite struct ResultSimulationTests {
    static let environment = ProcessInfo.processInfo.environment
    /// How many schedules a run tries, in chunks the test runner runs side by side: 400 in a
    /// plain `swift test` (a few seconds), 10,000 in tools/test's whole run, which sets
    /// TICTAC_RESULT_SCHEDULES.
    static let schedules = Int(environment["TICTAC_RESULT_SCHEDULES"] ?? "") ?? 400
    static let chunks = 8

    @Test(arguments: 0..<chunks)
    func everyScheduleEndsEachGameTheSameOnBothSides(chunk: Int) throws {
        let seeds: [UInt64] = if let one = Self.environment["TICTAC_RESULT_SEED"].flatMap(UInt64.init) {
            chunk == 0 ? [one] : []
        } else {
            Array(stride(from: UInt64(chunk + 1), through: UInt64(Self.schedules), by: Self.chunks))
        }
        var failures: [String] = []
        var claimed = 0, withdrawn = 0, accepted = 0
        for seed in seeds {
            var sim = try ResultSimulation(seed: seed)
            let problem = sim.run(steps: 60)
            claimed += sim.n.events.joined().count { if case .gameClaimed = $0 { true } else { false } }
            withdrawn += sim.n.events.joined().count { if case .claimWithdrawn = $0 { true } else { false } }
            accepted += sim.n.events.joined().count { if case .gameClaimed(_, false, _) = $0 { true } else { false } }
            guard let problem else { continue }
            failures.append("seed \(seed): \(problem)")
            if seeds.count == 1 || Self.environment["TICTAC_RESULT_TRACE"] != nil { print(sim.report) }
            if failures.count >= 5 { break }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        // The partitions past the limit do reach claims, and withdrawn ones, in a chunk of 1,000 or more
        // (tools/test's 1,250; in a chunk of 100 no accepted claim came up, seen at 800 schedules).
        if seeds.count >= 1000 {
            #expect(claimed > 0 && withdrawn > 0 && accepted > 0, "claims \(claimed), withdrawn \(withdrawn), accepted \(accepted)")
        }
        print("result simulation chunk \(chunk): \(seeds.count) schedules, \(claimed) claims, \(withdrawn) withdrawn, \(accepted) accepted")
    }
}
