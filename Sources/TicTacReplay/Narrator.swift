import TicTacEngine
import TicTacJSON
import TicTacWire

/// One thing `tictac replay` tells: a line for a person, and the same as a JSON object.
public struct Story: Sendable {
    /// Seconds since the first packet.
    public var at: Double
    public var event: String
    public var fields: [(String, JSON)]
    public var text: String
    /// Something a person debugging their LAN should look at.
    public var abnormal: Bool

    /// `{"event":..,"t":..,...}`, in the style of plain mode's `--json`.
    public var json: String {
        JSON.object([("event", .string(event)), ("t", .string(String(format3(at))))] + fields).serialized
    }

    public var line: String { "\(format3(at))s  \(abnormal ? "!! " : "")\(text)" }
}

private func format3(_ x: Double) -> String {
    let ms = Int((x * 1000).rounded())
    let frac = String(ms % 1000)
    return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
}

/// Tells what a capture shows, without any seed: the peers seen, each connection with its
/// handshake, invitations and games move by move, and anything abnormal.
public enum Narrator {
    public static func tell(_ capture: Capture) -> [Story] {
        var stories: [(packet: Int, order: Int, story: Story)] = []
        let t0 = min(capture.connections.map(\.established).min() ?? .max, capture.datagrams.map(\.time).min() ?? .max)
        func at(_ t: Int64) -> Double { Double(t - (t0 == .max ? t : t0)) / 1e9 }
        func add(_ packet: Int, _ t: Int64, _ event: String, _ fields: [(String, JSON)], _ text: String, abnormal: Bool = false) {
            stories.append((packet, stories.count, Story(at: at(t), event: event, fields: fields, text: text, abnormal: abnormal)))
        }
        for (packet, why) in capture.skipped {
            add(packet, t0 == .max ? 0 : t0, "skipped", [("packet", .int(packet + 1)), ("reason", .string(why))],
                "packet \(packet + 1) skipped: \(why)", abnormal: true)
        }
        for d in capture.datagrams { datagram(d, add) }
        for c in capture.connections { connection(c, add) }
        return stories.sorted { ($0.packet, $0.order) < ($1.packet, $1.order) }.map(\.story)
    }

    typealias Add = (Int, Int64, String, [(String, JSON)], String, Bool) -> Void

    private static func datagram(_ d: Capture.Datagram,
                                 _ add: (Int, Int64, String, [(String, JSON)], String, Bool) -> Void) {
        let from = d.source.description
        let message: Message
        do {
            message = try Message(frame: try Frame.decodeDatagram(d.payload))
        } catch {
            return add(d.packet, d.time, "bad-datagram", [("from", .string(from)), ("reason", .string("\(error)"))],
                       "datagram from \(from) does not decode: \(error)", true)
        }
        switch message {
        case let .announce(a):
            add(d.packet, d.time, "announce", [("from", .string(from)), ("id", .string(a.instanceID.description)),
                                                ("name", .string(a.name.value)), ("port", .int(Int(a.tcpPort))),
                                                ("state", .int(Int(a.state)))],
                "ANNOUNCE from \(from): \(a.name.value) (\(a.instanceID.description.prefix(8))) listens on TCP \(a.tcpPort)", false)
        case let .query(id):
            add(d.packet, d.time, "query", [("from", .string(from)), ("id", .string(id.description))],
                "QUERY from \(from) (\(id.description.prefix(8)))", false)
        case let .goodbye(id):
            add(d.packet, d.time, "goodbye", [("from", .string(from)), ("id", .string(id.description))],
                "GOODBYE from \(from) (\(id.description.prefix(8)))", false)
        default:
            add(d.packet, d.time, "datagram", [("from", .string(from)), ("type", .string("\(message.kind)"))],
                "\(message.kind) datagram from \(from)", false)
        }
    }

    /// Per connection: the frames of both directions in capture order, with a game tracker.
    private static func connection(_ c: CapturedConnection,
                                   _ add: (Int, Int64, String, [(String, JSON)], String, Bool) -> Void) {
        let link = "\(c.client) -> \(c.server)"
        add(c.establishedPacket, c.established, "connection", [("client", .string(c.client.description)), ("server", .string(c.server.description)),
                                                                 ("syn", .bool(c.sawSYN))],
            "connection \(link)\(c.sawSYN ? "" : " (already open when the capture started)")", false)
        var readers = [FrameReader(), FrameReader()]
        var offsets = [0, 0], failed = [false, false], names = [c.client.description, c.server.description]
        var left = [false, false]
        var game = GameTracker()
        for e in c.events {
            let side = e.fromClient ? 0 : 1
            let who = names[side]
            switch e.kind {
            case let .data(bytes):
                guard !failed[side] else { continue }
                var frames: [Frame] = []
                let error = readers[side].receive(bytes) { frames.append($0); return true }
                for frame in frames {
                    let start = offsets[side]
                    offsets[side] += Frame.headerLength + frame.payload.count
                    let message: Message
                    do {
                        message = try Message(frame: frame)
                    } catch {
                        add(e.packet, e.time, "undecodable", [("from", .string(who)), ("offset", .int(start)), ("reason", .string("\(error)"))],
                            "\(who): frame at byte \(start) does not decode: \(error)", true)
                        continue
                    }
                    if case let .hello(h) = message { names[side] = "\(h.name.value)@\(side == 0 ? c.client : c.server)" }
                    if case .leave = message { left[side] = true }
                    for (event, fields, text, abnormal) in game.tell(message, fromClient: e.fromClient, who: names[side]) {
                        add(e.packet, e.time, event, [("from", .string(names[side]))] + fields, text, abnormal)
                    }
                }
                if let error {
                    failed[side] = true
                    let at = offsets[side] + readers[side].bufferedCount - bytes.count
                    add(e.packet, e.time, "undecodable", [("from", .string(who)), ("offset", .int(max(offsets[side], at))), ("reason", .string("\(error)"))],
                        "\(who): bytes from offset \(offsets[side]) do not decode: \(error)", true)
                }
            case .fin, .reset:
                let how = e.kind == .fin ? "closed (FIN)" : "reset the connection (RST)"
                let clean = left[side] || left[1 - side] || game.sawError
                add(e.packet, e.time, "closed", [("by", .string(who)), ("how", .string(e.kind == .fin ? "fin" : "rst")),
                                                  ("after-leave", .bool(left[side]))],
                    "\(who) \(how)" + (clean ? "" : " without LEAVE"), !clean)
            }
        }
        for (side, count) in [(0, c.retransmissions.client), (1, c.retransmissions.server)] where count > 0 {
            add(c.events.last?.packet ?? c.establishedPacket, c.events.last?.time ?? c.established, "retransmissions",
                [("from", .string(names[side])), ("count", .int(count))], "\(names[side]): \(count) retransmitted segment(s)", true)
        }
        for (side, count) in [(0, c.missing.client), (1, c.missing.server)] where count > 0 {
            add(c.events.last?.packet ?? c.establishedPacket, c.events.last?.time ?? c.established, "missing-bytes",
                [("from", .string(names[side])), ("count", .int(count))], "\(names[side]): \(count) bytes never captured (a gap)", true)
        }
        for side in 0..<2 where readers[side].bufferedCount > 0 && !failed[side] {
            add(c.events.last?.packet ?? c.establishedPacket, c.events.last?.time ?? c.established, "cut-frame",
                [("from", .string(names[side])), ("bytes", .int(readers[side].bufferedCount))],
                "\(names[side]): the stream ends inside a frame (\(readers[side].bufferedCount) bytes)", true)
        }
    }
}

/// Follows one connection's games from its frames (Protocol.md §6, §8): the first MOVE of a
/// game is the first mover's, who plays O.
struct GameTracker {
    var size = BoardSize.classic
    var board: Board?
    var firstMoverIsClient: Bool?
    var finished = false
    var sawError = false

    typealias Told = (String, [(String, JSON)], String, Bool)

    mutating func tell(_ message: Message, fromClient: Bool, who: String) -> [Told] {
        switch message {
        case let .hello(h):
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
            if board == nil || finished { board = Board(size: size); firstMoverIsClient = nil; finished = false }
            return []
        case .rollCommit, .roll, .rollAck, .ping, .pong: return []
        case let .move(cell):
            if board == nil || finished { board = Board(size: size); firstMoverIsClient = nil; finished = false }
            if firstMoverIsClient == nil { firstMoverIsClient = fromClient }
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
            guard !finished, board != nil else { return [(message.kind == .resign ? "resign" : "time-up", [], "\(who) \(why)", false)] }
            finished = true
            return [("game-over", [("result", .string(message.kind == .resign ? "resigned" : "time-up")), ("by", .string(who))],
                     "game over: \(who) \(why)", false)]
        case let .resume(r):
            return [("resume", [("game", .string(r.key.description)), ("moves", .int(Int(r.moves))), ("status", .string("\(r.status)"))],
                     "\(who): RESUME game \(r.key.description.prefix(8)) with \(r.moves) moves (\(r.status))", false)]
        case .announce, .query, .goodbye, .sphere, .fieldLeave:
            return [("misplaced", [("type", .string("\(message.kind)"))], "\(who): \(message.kind) belongs in a datagram", true)]
        }
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
