#if canImport(Glibc)
import Glibc
#endif
import TicTacDaemonCore
import TicTacNet
import TicTacPbrain
import TicTacTime

/// The external engine's processes (`tictac bot --engine`): one per match, started at its
/// first engine turn, reused with RESTART for the match's next games while it behaves, killed
/// and reaped when the match ends, its link closes, or it fails. Every pipe is read by the
/// daemon's reactor; nothing here blocks. A process per match rather than one shared: a crash
/// or a hang loses one game only, and games never wait for each other's engine.
///
/// A failure (crash, garbage, an illegal cell, a flood, no answer within the move clock) loses
/// the game it was answering (`EngineAnswer.failed`); the next turn starts a new process, while
/// `restarts` (at most N failures within 10 minutes) allows. Past it the answer says until when
/// no process is started, and turns asked before then fail at once.
final class EngineHost {
    private final class Game {
        let process: EngineProcess
        var session: PbrainSession
        /// The turn asked and not answered, when it was asked, and its deadline's timer.
        var asked: (ticket: UInt64, at: Instant, turnMillis: Int)?
        var timer: Reactor.TimerID?

        init(process: EngineProcess, session: PbrainSession) {
            self.process = process
            self.session = session
        }
    }

    private let command: String
    private let limits: EngineLimits
    private let reactor: Reactor
    private let answer: (EngineAnswer) -> Void
    private let log: (String) -> Void
    /// The engine's own MESSAGE/DEBUG/ERROR lines: many per move for a real engine (Rapfi writes
    /// two), so not at the log's level of starts, failures and restarts.
    private let note: (String) -> Void
    /// Failures so far, within their window: past its limit no process is started for a while.
    private var restarts: EngineRestartRate
    /// Until when no process is started (nil: one may be).
    private var pausedUntil: Instant? { restarts.pausedUntil(reactor.now) }
    private var games: [LinkID: Game] = [:]
    /// Engines told END, given a second to exit by themselves (by pid).
    private var ending: [Int32: EngineProcess] = [:]
    /// Links whose last process failed: their next process is a restart.
    private var failed: Set<LinkID> = []
    /// Grace past the move clock before a silent engine is killed (the game is lost on time
    /// by then: the game's own clock resigns for the bot).
    static let grace: Duration = .seconds(1)

    /// Processes running now, for tests and the log.
    var running: Int { games.count }

    init(command: String, limits: EngineLimits, maxRestarts: Int, reactor: Reactor,
         answer: @escaping (EngineAnswer) -> Void, log: @escaping (String) -> Void, note: @escaping (String) -> Void = { _ in }) {
        self.command = command
        self.limits = limits
        restarts = EngineRestartRate(limit: maxRestarts)
        self.reactor = reactor
        self.answer = answer
        self.log = log
        self.note = note
    }

    func handle(_ request: EngineRequest) {
        switch request {
        case let .turn(turn): ask(turn)
        case let .stop(link): stop(link)
        case let .cancel(link): cancel(link)
        }
    }

    /// Kills every process (the bot leaves: no time to wait for any).
    func stopAll() {
        for (link, game) in games { remove(link, game) }
        for process in ending.values { process.kill() }
        ending = [:]
    }

    private func ask(_ turn: EngineTurn) {
        let game: Game
        if let existing = games[turn.link] {
            game = existing
        } else {
            if let until = pausedUntil {
                let why = "no restart left for \((until - reactor.now).wholeSecondsRoundedUp) s "
                    + "(more than \(restarts.limit) failures within \(restarts.windowText))"
                return answer(EngineAnswer(link: turn.link, ticket: turn.ticket, outcome: .failed(why, pausedUntil: until)))
            }
            if failed.remove(turn.link) != nil {
                log("engine for link \(turn.link): restart after failure \(restarts.total) "
                    + "(at most \(restarts.limit) within \(restarts.windowText))")
            }
            guard let started = start(turn) else { return }
            game = started
        }
        let millis = PbrainSession.turnMillis(moveTime: turn.moveTime)
        game.asked = (turn.ticket, reactor.now, millis)
        game.process.resetBudget()
        if let timer = game.timer { reactor.cancel(timer) }
        // The game's move clock (or 30 s without one) and a little grace: then it is silent.
        let clock: Duration = turn.moveTime > 0 ? .seconds(turn.moveTime) : .milliseconds(millis)
        game.timer = reactor.schedule(after: clock + Self.grace) { [weak self, weak game] in
            guard let self, let game, games[turn.link] === game, game.asked?.ticket == turn.ticket else { return }
            let clock = turn.moveTime > 0 ? "the \(turn.moveTime) s move clock" : "\(millis / 1000) s (the game has no move clock)"
            fault(turn.link, game, ticket: turn.ticket, "no answer within \(clock)")
        }
        game.session.ask(turn)
        pump(turn.link, game)
    }

    private func start(_ turn: EngineTurn) -> Game? {
        let process: EngineProcess
        do {
            process = try EngineProcess(command: command, limits: limits, reactor: reactor)
        } catch {
            failed.insert(turn.link)
            restarts.failed(at: reactor.now)
            log("engine for link \(turn.link): cannot start \(command): \(error)")
            answer(EngineAnswer(link: turn.link, ticket: turn.ticket, outcome: .failed("cannot start: \(error)", pausedUntil: pausedUntil)))
            return nil
        }
        // The limit is on the whole address space (program, libraries, stacks): the engine is told
        // half of it for what it allocates, so an engine that takes all it is told still starts.
        let game = Game(process: process, session: PbrainSession(maxMemory: limits.memory / 2, thinkMillis: limits.thinkMillis))
        games[turn.link] = game
        let link = turn.link
        process.onLine = { [weak self, weak game] line in
            guard let self, let game else { return }
            game.session.received(line)
            pump(link, game)
        }
        process.onEnd = { [weak self, weak game] why in
            guard let self, let game else { return }
            game.session.exited(why)
            pump(link, game)
        }
        log("engine for link \(link): started pid \(process.pid) for \(turn.size)")
        return game
    }

    /// Carries out what the session says.
    private func pump(_ link: LinkID, _ game: Game) {
        for output in game.session.poll() {
            guard games[link] === game else { return }
            switch output {
            case let .send(text):
                game.process.send(text)
            case let .move(ticket, cell):
                if game.asked?.ticket == ticket { clearAsk(game) }
                answer(EngineAnswer(link: link, ticket: ticket, outcome: .move(cell)))
            case let .fault(ticket, why):
                fault(link, game, ticket: ticket, why)
            case let .log(line):
                note("engine for link \(link): \(line)")
            }
        }
    }

    /// The engine failed: its process goes, and the turn it was answering is lost.
    private func fault(_ link: LinkID, _ game: Game, ticket: UInt64?, _ why: String) {
        let tail = game.process.stderrTail
        remove(link, game)
        failed.insert(link)
        restarts.failed(at: reactor.now)
        let stderr = tail.isEmpty ? "" : "; its last stderr lines: " + tail.joined(separator: " | ")
        log("engine for link \(link) (pid \(game.process.pid)) failed: \(why)\(stderr)")
        guard let ticket else { return }
        answer(EngineAnswer(link: link, ticket: ticket, outcome: .failed(why, pausedUntil: pausedUntil)))
    }

    /// The match ended. An engine waiting for its next question is told END and exits by itself
    /// (Gomocup); one still there after a second, or one thinking, is killed.
    private func stop(_ link: LinkID) {
        failed.remove(link)
        guard let game = games[link] else { return }
        guard game.asked == nil, !game.session.failed else { return remove(link, game) }
        games[link] = nil
        let process = game.process
        process.send(PbrainCommand.end.text)
        ending[process.pid] = process
        _ = reactor.schedule(after: .seconds(1)) { [weak self] in
            self?.ending[process.pid] = nil
            process.kill()
        }
    }

    /// The game ended while the engine thought: the process goes (a single-threaded engine
    /// cannot be interrupted, and the next game must not wait for it). Past its time per move
    /// the engine was at fault (the bot lost on time): the next process is a restart; else
    /// (the opponent resigned or left) it is not.
    private func cancel(_ link: LinkID) {
        guard let game = games[link], let asked = game.asked else { return }
        let late = reactor.now >= asked.at + .milliseconds(asked.turnMillis)
        if late {
            fault(link, game, ticket: nil, "no answer within its \(asked.turnMillis) ms per move: lost on time")
        } else {
            remove(link, game)
        }
    }

    private func clearAsk(_ game: Game) {
        game.asked = nil
        if let timer = game.timer { reactor.cancel(timer) }
        game.timer = nil
    }

    private func remove(_ link: LinkID, _ game: Game) {
        clearAsk(game)
        if games[link] === game { games[link] = nil }
        game.process.kill()
    }
}
