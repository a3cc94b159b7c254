import TicTacAPI
import TicTacDiscoveryCore
import TicTacEngine
import TicTacJSON
import TicTacWire

/// Plain mode's JSON events read back into the events they were made from, for the full screen
/// attached to `tictac daemon` (docs/control.md). What `json(_:)` folds into a notice or an
/// error comes back as that notice or error, in the same words; plain mode's own announcements
/// (`rematch`, `clock`) and anything unknown are nil: the screen keeps its own clocks. The game's
/// lines do not all name the opponent or the board's k: the reader keeps them from the lines
/// that do.
public struct JSONEventReader {
    /// Who the game's lines are about: the last peer invited, inviting, resumed or started with.
    private var opponent = PeerInfo(id: ID128(high: 0, low: 0), name: "")
    private var size = BoardSize.classic

    public init() {}

    /// The event of one line, or nil.
    public mutating func event(from line: String) -> DaemonEvent? {
        JSON.parse(line).flatMap { event(from: $0) }
    }

    /// The event of one line already parsed.
    public mutating func event(from json: JSON) -> DaemonEvent? {
        guard let event = Self.event(from: json, opponent: opponent, size: size) else { return nil }
        switch event {
        case let .invited(p, s), let .inviteHeld(p, s, _): (opponent, size) = (p, s)
        case let .inviteSent(p), let .gameResumed(p, _, _), let .gameInterrupted(p, _, _): opponent = p
        case let .game(.gameStarted(_, _, s), p): (opponent, size) = (p, s)
        case let .game(.rolls, p): opponent = p
        default: break
        }
        return event
    }

    static func event(from json: JSON, opponent: PeerInfo, size current: BoardSize) -> DaemonEvent? {
        guard let name = json["event"]?.string else { return nil }
        let p = { (key: String) in json[key].flatMap(who) }
        let reason = json["reason"]?.string ?? ""
        switch name {
        case "ready":
            guard let n = json["name"]?.string, let id = json["id"]?.string.flatMap(ID128.init(hex:)),
                  let port = json["port"]?.int.flatMap(UInt16.init(exactly:)) else { return nil }
            return .ready(name: n, id: id, port: port)
        case "peers": return json["peers"]?.array.map { .peers($0.compactMap(peer)) }
        case "peer-found": return peer(json).map { .peerFound($0) }
        case "peer-updated": return peer(json).map { .peerUpdated($0) }
        case "peer-lost": return peer(json).map { .peerLost($0, reason: reason) }
        case "invited": return p("from").flatMap { who in size(json).map { .invited(by: who, size: $0) } }
        case "invite-sent": return p("to").map { .inviteSent(to: $0) }
        case "invite-cancelled": return p("by").map { .inviteCancelled(by: $0) }
        case "invite-expired": return p("by").map { .inviteExpired(by: $0) }
        case "invite-held":
            guard let who = p("from"), let s = size(json) else { return nil }
            return .inviteHeld(by: who, size: s, ahead: json["ahead"]?.int ?? 0)
        case "held-invite-declined": return p("by").map { .heldInviteDeclined(by: $0) }
        case "declined":
            let why: [String: DeclineReason] = ["declined": .declined, "busy": .busy, "no-answer": .noAnswer, "unsupported": .unsupported]
            return p("by").map { .declined(by: $0, reason: why[reason] ?? .declined) }
        case "disconnected":
            guard let who = p("peer") else { return nil } // without a peer: the game's own (below)
            return .disconnected(who, reason: reason)
        case "game-interrupted":
            return p("opponent").map { .gameInterrupted($0, window: .seconds(json["seconds"]?.int ?? 0), reason: reason) }
        case "game-resumed": return p("opponent").map { .gameResumed($0, resigned: json["resigned"]?.bool ?? false) }
        case "game-adjourned": return p("opponent").map { .gameAdjourned($0) }
        case "game-void": return p("opponent").map { .gameVoid($0, reason: reason) }
        case "game-abandoned": return p("opponent").map { .gameAbandoned($0, reason: reason) }
        case "game-claimed": return p("opponent").map { .gameClaimed($0, won: json["result"]?.string == "won", reason: reason) }
        case "claim-withdrawn": return p("opponent").map { .claimWithdrawn($0, reason: reason) }
        case "match-ended": return p("opponent").map { .matchEnded($0, byUs: json["by"]?.string == "you") }
        case "error": return .error(code: json["code"]?.string ?? "", message: json["message"]?.string ?? "")
        case "help": return .help(json["message"]?.string ?? "")
        case "notice":
            if let n = json["watchers"]?.int { return .watchers(n) }
            return .notice(json["message"]?.string ?? "")
        default: return game(name, json, opponent: opponent, size: current)
        }
    }

    /// The game's events, each with the opponent that `game-started` named.
    private static func game(_ name: String, _ json: JSON, opponent known: PeerInfo, size knownSize: BoardSize) -> DaemonEvent? {
        let opponent = json["opponent"].flatMap(who) ?? known
        let yours = json["who"]?.string == "you"
        let g: GameEvent
        switch name {
        case "game-started":
            guard let s = size(json), let piece = json["piece"]?.string else { return nil }
            g = .gameStarted(piece: piece == "O" ? .o : .x, first: json["first"]?.bool ?? false, size: s)
        case "rolls":
            guard let a = json["you"]?.int, let b = json["opponent"]?.int else { return nil }
            return .game(.rolls(yours: a, theirs: b, moveTime: json["move-time"]?.int ?? 0), opponent: json["against"].flatMap(who) ?? known)
        case "time-up": g = .timeUp(yours: yours, clock: Clock(rawValue: json["clock"]?.string ?? "") ?? .move)
        case "forfeit": g = .left(yours: yours, inRoll: json["during"]?.string == "roll")
        case "your-turn": g = .yourTurn
        case "opponent-turn": g = .opponentTurn
        case "turn-clock": g = .turnClock(seconds: json["seconds"]?.int ?? 0)
        case "opponent-moved":
            guard let cell = json["cell"]?.int, cell >= 1 else { return nil }
            g = .opponentMoved(cell: cell - 1)
        case "board":
            guard let cells = json["cells"]?.string, let board = board(cells, size: knownSize) else { return nil }
            g = .board(board)
        case "game-over":
            guard let result = GameResult(rawValue: json["result"]?.string ?? "") else { return nil }
            let line = json["line"]?.array?.compactMap { $0.int.map { $0 - 1 } }
            g = .gameOver(result: result, line: line, resigned: json["resigned"]?.bool ?? false)
        case "score":
            g = .score(Score(won: json["won"]?.int ?? 0, lost: json["lost"]?.int ?? 0, drawn: json["drawn"]?.int ?? 0))
        default:
            return nil // `rematch`, `clock`, `output-dropped`, or newer than this front
        }
        return .game(g, opponent: opponent)
    }

    private static func who(_ json: JSON) -> PeerInfo? {
        guard let id = json["id"]?.string.flatMap(ID128.init(hex:)), let name = json["name"]?.string else { return nil }
        return PeerInfo(id: id, name: name)
    }

    private static func peer(_ json: JSON) -> PeerInfo? {
        guard var p = who(json) else { return nil }
        p.addresses = json["addresses"]?.array?.compactMap(\.string) ?? []
        p.port = json["port"]?.int.flatMap(UInt16.init(exactly:))
        p.state = json["state"]?.string.flatMap(PresenceState.init(name:)) ?? .idle
        let sources: [String: PeerSources] = ["broadcast": .broadcast, "dns-sd": .dnssd, "manual": .manual]
        p.via = PeerSources(json["via"]?.array?.compactMap { $0.string.flatMap { sources[$0] } } ?? [])
        p.program = json["program"]?.string
        return p
    }

    private static func size(_ json: JSON) -> BoardSize? {
        guard let rows = json["rows"]?.int, let cols = json["cols"]?.int, let k = json["k"]?.int else { return nil }
        return try? BoardSize(rows: rows, cols: cols, k: k)
    }

    private static func board(_ cells: String, size: BoardSize) -> Board? {
        let pieces = Array(cells)
        guard pieces.count == size.cellCount else { return nil }
        var board = Board(size: size)
        for (cell, piece) in pieces.enumerated() where piece != "." {
            guard (try? board.place(piece == "O" ? .o : .x, at: cell)) != nil else { return nil }
        }
        return board
    }
}
