import TicTacEngine

// Theory of operation
//
// One PbrainSession per engine process, for the games of one match. Pure: the engine host
// feeds it turns (`ask`) and the engine's lines (`received`), and writes out what `poll` gives.
//
// unstarted --START/RECTSTART--> starting --OK--> ready --BEGIN/TURN/BOARD--> thinking --x,y--> ready
//                                                 ready --RESTART--> restarting --OK--> ready
// Any fault (garbage where an answer was due, a move off the board or on a taken cell, too many
// lines) --> failed, for good: the host kills the process and starts another. ERROR and UNKNOWN
// lines are the engine's messages, as Piskvork reads them (logged, counted with MESSAGE), except
// in answer to START or RECTSTART, where ERROR refuses the board.
//
// How a position reaches the engine, with the fewest commands: the session remembers the moves
// the engine knows (`known`, in order). The engine opening an empty board gets BEGIN; a position
// one opponent move past `known` gets TURN x,y; any other (a new game, a resumed one, a position
// the engine missed) gets RESTART when the engine knows moves, then BOARD with every stone.
// INFO lines go before the first question of each game, and time_left (unlimited: the match has
// no clock, only each move has) before every one.

/// The manager's side of the Gomocup protocol for one engine process.
public struct PbrainSession {
    /// What the session asks the host to do.
    public enum Output: Sendable, Equatable {
        /// Write these bytes to the engine's standard input.
        case send(String)
        /// The engine answered `ticket` with this cell (checked: on the board and empty).
        case move(ticket: UInt64, cell: Int)
        /// The engine is broken (`ticket`: the turn it was answering, if any).
        case fault(ticket: UInt64?, String)
        /// A line for the operator's log (the engine's MESSAGE and DEBUG lines).
        case log(String)
    }

    enum Phase: Equatable {
        case unstarted, starting, ready, restarting, thinking
        case failed(String)
    }

    /// Memory the engine may use, in bytes (INFO max_memory; the host enforces it with a limit).
    public let maxMemory: Int
    /// What the engine is told it has per move (INFO timeout_turn), within the move clock: a time
    /// a player sits through, not the whole clock (which only bounds a slow engine).
    public let thinkMillis: Int
    /// MESSAGE and DEBUG lines logged per turn at most; more is a flood.
    public static let maxNotesPerTurn = 64
    /// Of those, the ones logged (the log is not the engine's to fill).
    public static let loggedNotesPerTurn = 8
    private(set) var phase: Phase = .unstarted
    private var size: BoardSize?
    /// The moves the engine knows of, in order, and the game they belong to.
    private var known: [Int] = []
    private var knownRound: Int?
    /// The turn waiting for the engine to be ready, and the one it is thinking about.
    private var pending: EngineTurn?
    private var thinking: EngineTurn?
    private var notes = 0
    private var outputs: [Output] = []

    public init(maxMemory: Int, thinkMillis: Int = 5000) {
        self.maxMemory = maxMemory
        self.thinkMillis = thinkMillis
    }

    /// Whether the session failed (the process is of no more use).
    public var failed: Bool { if case .failed = phase { true } else { false } }
    /// The turn the engine is thinking about, if any.
    public var thinkingTicket: UInt64? { thinking?.ticket }

    /// Asks for a move in `turn`'s position; a turn asked before replaces it.
    public mutating func ask(_ turn: EngineTurn) {
        guard !failed else { return outputs.append(.fault(ticket: turn.ticket, "the engine failed earlier")) }
        pending = turn
        pump()
    }

    /// One line from the engine's standard output (its end of line taken off).
    public mutating func received(_ line: String) {
        guard !failed, !line.allSatisfy({ $0 == " " || $0 == "\t" }) else { return } // empty lines are ignored
        let reply = PbrainReply.parse(line)
        switch reply {
        case let .message(text), let .debug(text), let .suggest(text):
            return note(reply.keyword, text)
        case let .error(text) where phase != .starting, let .unknown(text) where phase != .starting:
            return note(reply.keyword, text)
        default:
            break
        }
        switch (phase, reply) {
        case (.starting, .ok):
            phase = .ready
            pump()
        case (.starting, .error(let text)), (.starting, .unknown(let text)):
            fail("refused the \(size.map(\.description) ?? "") board: \(Self.shown(text))")
        case (.restarting, .ok):
            known = []
            knownRound = nil
            phase = .ready
            pump()
        case (.thinking, let .move(x, y)):
            guard let turn = thinking else { return fail("a move nobody asked for") }
            guard let cell = PbrainGrid.cell(x: x, y: y, on: turn.size) else {
                return fail("played \(x),\(y), off the \(turn.size.cols)x\(turn.size.rows) board")
            }
            guard !turn.moves.contains(cell) else {
                return fail("played \(x),\(y) (\(CellName.name(cell, on: turn.size))), a cell already taken")
            }
            known = turn.moves + [cell]
            knownRound = turn.round
            thinking = nil
            phase = .ready
            outputs.append(.move(ticket: turn.ticket, cell: cell))
            pump()
        case (.ready, .ok), (.unstarted, .ok):
            break // a stray OK asks nothing
        default:
            fail("wrote \"\(Self.shown(line))\" where \(phase == .thinking ? "a move" : "nothing") was due")
        }
    }

    /// A line that is the engine's message, not an answer: a few per turn are logged; too many
    /// are a flood.
    private mutating func note(_ keyword: String, _ text: String) {
        notes += 1
        if notes > Self.maxNotesPerTurn {
            return fail("flooded its output (more than \(Self.maxNotesPerTurn) MESSAGE/DEBUG lines in one turn)")
        }
        if notes <= Self.loggedNotesPerTurn { outputs.append(.log("engine \(keyword): \(Self.shown(text))")) }
    }

    /// The engine is gone (its output closed, or it exited): a fault unless it had failed already.
    public mutating func exited(_ why: String) {
        if !failed { fail(why) }
    }

    /// Takes what the host should do, in order.
    public mutating func poll() -> [Output] {
        defer { outputs.removeAll() }
        return outputs
    }

    // MARK: - Moving on

    private mutating func pump() {
        guard let turn = pending else { return }
        switch phase {
        case .unstarted:
            size = turn.size
            phase = .starting
            send(.start(turn.size))
        case .ready:
            if size != turn.size {
                size = turn.size
                phase = .starting
                known = []
                knownRound = nil
                return send(.start(turn.size))
            }
            let newGame = knownRound != turn.round
            let follows = !newGame && turn.moves.count == known.count + 1 && Array(turn.moves.dropLast()) == known
                && !turn.isEngines(known.count)
            if !known.isEmpty, !follows {
                phase = .restarting
                return send(.restart)
            }
            pending = nil
            thinking = turn
            notes = 0
            phase = .thinking
            if known.isEmpty { sendInfo(turn) }
            send(.info(key: "time_left", value: String(Self.unlimited)))
            if turn.moves.isEmpty {
                send(.begin)
            } else if follows {
                let last = PbrainGrid.coordinates(of: turn.moves[turn.moves.count - 1], on: turn.size)
                send(.turn(x: last.x, y: last.y))
            } else {
                let stones = turn.moves.indices.map { i in
                    let c = PbrainGrid.coordinates(of: turn.moves[i], on: turn.size)
                    return PbrainStone(x: c.x, y: c.y, who: turn.isEngines(i) ? 1 : 2)
                }
                send(.board(stones))
            }
            knownRound = turn.round
        case .starting, .restarting, .thinking, .failed:
            break // waits for the answer due; a thinking engine answers the older turn first
        }
    }

    /// The limits and the rule, before a game's first question.
    private mutating func sendInfo(_ turn: EngineTurn) {
        let perTurn = toldMillis(turn)
        send(.info(key: "timeout_turn", value: String(perTurn)))
        send(.info(key: "timeout_match", value: "0")) // no match clock here: 0 is "no limit" (Gomocup)
        send(.info(key: "max_memory", value: String(maxMemory)))
        send(.info(key: "game_type", value: turn.opponentIsBot ? "1" : "0"))
        // Our rule is "five or more" (a longer line holds five in a row; TicTacEngine's windows
        // of k cells): bit 0 (exactly five) clear, no renju, no continuous game.
        send(.info(key: "rule", value: "0"))
    }

    /// What the engine is told per move: its think time, or less when the clock is shorter.
    private func toldMillis(_ turn: EngineTurn) -> Int { min(thinkMillis, Self.turnMillis(moveTime: turn.moveTime)) }

    /// The most an engine's move may take before it loses on time: the move clock less a margin
    /// for the pipes and the network (a fifth, at most 2 s); 30 s when the game has no clock.
    public static func turnMillis(moveTime: Int) -> Int {
        guard moveTime > 0 else { return 30_000 }
        let clock = moveTime * 1000
        return clock - min(2000, clock / 5)
    }

    /// INFO time_left with no match clock: the protocol's "unlimited" (2^31 - 1). Only the move
    /// clock bounds an engine here, and it is told as timeout_turn.
    static let unlimited = 2_147_483_647

    private mutating func send(_ command: PbrainCommand) { outputs.append(.send(command.text)) }

    private mutating func fail(_ why: String) {
        phase = .failed(why)
        outputs.append(.fault(ticket: thinking?.ticket ?? pending?.ticket, why))
        thinking = nil
        pending = nil
    }

    /// An engine's text as the log shows it: printable characters, at most 200.
    static func shown(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.lazy.filter { $0.value >= 0x20 && $0.value != 0x7f }.prefix(200)))
    }
}

extension PbrainReply {
    /// The reply's first word, for the log.
    var keyword: String {
        switch self {
        case .ok: "OK"
        case .error: "ERROR"
        case .unknown: "UNKNOWN"
        case .move: "move"
        case .message: "MESSAGE"
        case .debug: "DEBUG"
        case .suggest: "SUGGEST"
        case .other: "line"
        }
    }
}
