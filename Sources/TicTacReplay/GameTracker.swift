import TicTacEngine
import TicTacJSON
import TicTacWire

/// Follows one connection's games from its frames (Protocol.md §6, §8): the rolls decide who
/// moves first and plays O (else the first MOVE of a game is the first mover's). Sides are 0
/// (the client) and 1 (the server).
struct GameTracker {
    /// How each side is named in the story.
    var names: [String]
    var size = BoardSize.classic
    var board: Board?
    var firstMoverIsClient: Bool?
    var finished = false
    var sawError = false
    /// A game began (RESET, a roll or a move) and its end was not seen yet.
    var started = false
    /// Part of a stream is missing: the board is no longer known, no result is told.
    var blind = false
    private var commitments: [[UInt8]?] = [nil, nil]
    private var openings: [(roll: UInt32, nonce: ID128)?] = [nil, nil]
    /// Each side's HELLO capabilities: both with bit 7, the rolls are quick (BLAKE2b, Protocol.md §8).
    private var capabilities: [Capabilities] = [[], []]
    private var quick: Bool { capabilities.allSatisfy { $0.contains(.quickRoll) } }

    init(names: [String]) { self.names = names }

    typealias Told = (String, [(String, JSON)], String, Bool)

    mutating func tell(_ message: Message, side: Int) -> [Told] {
        let who = names[side], fromClient = side == 0
        switch message {
        case let .hello(h):
            capabilities[side] = h.capabilities
            return [("hello", [("name", .string(h.name.value)), ("id", .string(h.instanceID.description)),
                               ("versions", .string("\(h.minVersion)-\(h.maxVersion)"))],
                     "\(who): HELLO, id \(h.instanceID.description.prefix(8)), versions \(h.minVersion)-\(h.maxVersion)", false)]
        case .proof: return [("proof", [], "\(who): PROOF", false)]
        case let .error(code, text):
            sawError = true
            let name = ErrorCode(rawValue: code).map { "\($0)" } ?? "code \(code)"
            return [("error", [("code", .string(name)), ("message", .string(text))], "\(who): ERROR \(name): \(text)", true)]
        case .leave: return [("leave", [], "\(who): LEAVE", false)]
        case let .invite(i):
            size = (try? BoardSize(rows: Int(i.rows), cols: Int(i.cols), k: Int(i.k))) ?? .classic
            return [("invite", [("game", .string(i.gameID.description)), ("rows", .int(Int(i.rows))), ("cols", .int(Int(i.cols))), ("k", .int(Int(i.k)))],
                     "\(who): INVITE to a \(i.rows) x \(i.cols) game, \(i.k) in a row", false)]
        case .accept: return [("accept", [], "\(who): ACCEPT", false)]
        case let .decline(_, reason): return [("decline", [("reason", .string("\(reason)"))], "\(who): DECLINE (\(reason))", false)]
        case .cancel: return [("cancel", [], "\(who): CANCEL", false)]
        case .reset:
            if board == nil || finished { newGame() }
            return []
        case let .rollCommit(commitment, _):
            if board == nil || finished { newGame() }
            commitments[side] = commitment
            return []
        case let .roll(value, nonce):
            if board == nil || finished { newGame() }
            openings[side] = (value, nonce)
            return decide()
        case .rollAck, .ping, .pong: return []
        case let .move(cell):
            if board == nil || finished { newGame() }
            if firstMoverIsClient == nil { firstMoverIsClient = fromClient }
            guard !blind else {
                return [("move", [("cell", .int(Int(cell) + 1))], "\(who): MOVE \(Int(cell) + 1) (the board is not known after the gap)", false)]
            }
            let piece: Piece = fromClient == firstMoverIsClient ? .o : .x
            guard var b = board, (try? b.place(piece, at: Int(cell))) != nil else {
                return [("bad-move", [("cell", .int(Int(cell) + 1))], "\(who): MOVE \(Int(cell) + 1) is not legal here", true)]
            }
            board = b
            let cells = String(b.cells.map(Self.symbol))
            let name = CellName.name(Int(cell), on: b.size)
            // A small board fits on the move's line, row by row; a large one is drawn once, at the end.
            let shown = b.size.cols <= Self.inlineColumns ? "  board \(Self.rows(of: b).joined(separator: "/"))" : ""
            var told: [Told] = [("move", [("cell", .int(Int(cell) + 1)), ("name", .string(name)),
                                          ("piece", .string(String(piece.symbol))), ("cells", .string(cells))],
                                 "\(who): MOVE \(Int(cell) + 1) (\(piece.symbol), \(name))\(shown)", false)]
            let grid = b.size.cols <= Self.inlineColumns ? "" : "\n" + Self.rows(of: b).map { "        " + $0 }.joined(separator: "\n")
            switch b.outcome(after: Int(cell)) {
            case .inProgress: break
            case let .won(line):
                finished = true
                told.append(("game-over", [("result", .string("won")), ("winner", .string(String(piece.symbol))), ("by", .string(who)),
                                           ("line", .array(line.cells.map { .int($0 + 1) }))],
                             "game over: \(piece.symbol) (\(who)) wins along \(line.cells.map { $0 + 1 }) "
                             + "(\(line.cells.map { CellName.name($0, on: b.size) }.joined(separator: " ")))\(grid)", false))
            case .draw:
                finished = true
                told.append(("game-over", [("result", .string("draw"))], "game over: a draw (Cat Wins!)\(grid)", false))
            }
            return told
        case .resign, .timeUp:
            let why = message.kind == .resign ? "resigned" : "ran out of time (TIME_UP)"
            guard !finished, board != nil, !blind else { return [(message.kind == .resign ? "resign" : "time-up", [], "\(who) \(why)", false)] }
            finished = true
            return [("game-over", [("result", .string(message.kind == .resign ? "resigned" : "time-up")), ("by", .string(who))],
                     "game over: \(who) \(why)", false)]
        case let .resume(r):
            return [("resume", [("game", .string(r.key.description)), ("moves", .int(Int(r.moves))), ("status", .string("\(r.status)"))],
                     "\(who): RESUME game \(r.key.description.prefix(8)) with \(r.moves) moves (\(r.status))", false)]
        case .watch, .watching, .watchMove, .watchEnd, .watchStop, .games:
            // A watcher's messages (Protocol.md §14) travel sealed; told by their kind if seen.
            return [("spectator", [("type", .string("\(message.kind)"))], "\(who): \(message.kind) (spectators)", false)]
        case let .spectators(on, watchers?):
            // How many watch the game through the sender's daemon (Protocol.md §14).
            return [("spectators", [("allowed", .bool(on)), ("watchers", .int(Int(watchers)))],
                     "\(who): SPECTATORS \(on ? "on" : "off"), \(watchers) watching through it", false)]
        case let .spectators(on, nil):
            // A player's change of mind (Protocol.md §14): its games may be watched, or no longer.
            return [("spectators", [("allowed", .bool(on))],
                     "\(who): SPECTATORS \(on ? "on: its games may be watched again" : "off: its games may not be watched")", false)]
        case .announce, .query, .goodbye, .sphere, .fieldLeave:
            return [("misplaced", [("type", .string("\(message.kind)"))], "\(who): \(message.kind) belongs in a datagram", true)]
        }
    }

    private mutating func newGame() {
        board = Board(size: size)
        firstMoverIsClient = nil
        finished = false
        started = true
        commitments = [nil, nil]
        openings = [nil, nil]
    }

    /// The rolls as the players see them and who moves first (Protocol.md §8), once both
    /// commitments and both secrets are in and each secret opens its commitment.
    private mutating func decide() -> [Told] {
        guard let c0 = commitments[0], let c1 = commitments[1], let o0 = openings[0], let o1 = openings[1] else { return [] }
        commitments = [nil, nil]
        openings = [nil, nil]
        // A roll that does not open its commitment decides nothing (the peer answers ERROR).
        guard Commitment.verify(c0, roll: o0.roll, nonce: o0.nonce, quick: quick),
              Commitment.verify(c1, roll: o1.roll, nonce: o1.nonce, quick: quick),
              let d = FirstMove.decide(ourCommitment: c0, ourSecret: Commitment.secret(roll: o0.roll, nonce: o0.nonce),
                                       theirCommitment: c1, theirSecret: Commitment.secret(roll: o1.roll, nonce: o1.nonce), quick: quick) else {
            return [("rolls", [], "the rolls decide nothing: a roll does not open its commitment, or the commitments are equal", true)]
        }
        firstMoverIsClient = d.weMoveFirst
        let first = names[d.weMoveFirst ? 0 : 1], second = names[d.weMoveFirst ? 1 : 0]
        return [("rolls", [("rolls", .array([.int(d.ourRoll), .int(d.theirRoll)])), ("first", .string(first))],
                 "game starts: \(names[0]) rolled \(d.ourRoll), \(names[1]) rolled \(d.theirRoll): "
                 + "\(first) moves first and plays O, \(second) plays X", false)]
    }

    /// How a game that began ends in the story when no result was seen: nil when none is open.
    func unfinished(closed: Bool, left: Bool) -> (String, [(String, JSON)], String)? {
        guard started, !finished else { return nil }
        if blind { return ("unfinished", [("why", .string("gap"))], "the game's end is not known: part of a stream is missing") }
        let how = left ? "the game ends unfinished: a player left (LEAVE)"
            : closed ? "the connection closed with the game unfinished" : "the capture ends with the game unfinished"
        return ("unfinished", [("why", .string(left ? "leave" : closed ? "closed" : "capture-end"))], how)
    }

    /// Boards up to this many columns are shown on each move's line.
    static let inlineColumns = 5

    static func symbol(_ piece: Piece) -> Character { piece == .empty ? "." : piece == .o ? "O" : "X" }

    static func rows(of board: Board) -> [String] {
        stride(from: 0, to: board.cells.count, by: board.size.cols).map {
            String(board.cells[$0..<$0 + board.size.cols].map(symbol))
        }
    }
}
