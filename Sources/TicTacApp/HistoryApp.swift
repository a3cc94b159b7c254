#if canImport(Glibc)
import Glibc
#endif
import TicTacDaemon
import TicTacEngine
import TicTacJSON
import TicTacStore
import TicTacWire

/// `tictac history`.
public struct HistoryConfiguration: Sendable {
    /// `--state-dir`; nil: the default.
    public var stateDirectory: String?
    /// `--peer NAME|ID`: only games against this opponent.
    public var peer: String?
    public var json = false
    public var limit = 50

    public init() {}
}

/// `tictac history`: the games this user's daemon recorded, most recent first, each with its
/// moves by cell name. It only reads the history, so it works while a daemon plays.
public enum HistoryApp {
    public static func run(_ config: HistoryConfiguration, write: (String) -> Void) throws(AppFailure) {
        var env: [String: String] = [:]
        for name in ["XDG_STATE_HOME", "HOME"] { env[name] = getenv(name).map { String(cString: $0) } }
        guard let dir = config.stateDirectory ?? StateDirectory.defaultPath(environment: env) else {
            throw AppFailure(.usage, "no state directory: give --state-dir (neither XDG_STATE_HOME nor HOME is set)")
        }
        let base = dir.hasSuffix("/") ? String(dir.dropLast()) : dir
        let path = base + "/history.sqlite"
        var info = stat()
        if stat(dir, &info) == 0, info.st_mode & S_IFMT != S_IFDIR {
            throw AppFailure(.noInput, "\(dir) is not a directory: --state-dir names the directory that holds history.sqlite")
        }
        guard access(path, F_OK) == 0 else {
            return write(config.json ? "[]" : "No games recorded yet (\(path) does not exist).")
        }
        let stored = try AppFailure.attempt(.noInput, nil) { try GameStore(readingAt: path) }
        let store = DaemonState.readable(stored, logPath: base + "/history.log")
        let peer = try config.peer.map { text throws(AppFailure) in try resolve(text, in: store) }
        let games = try AppFailure.attempt(.noInput, nil) { try store.history(peer: peer, limit: config.limit) }
        if config.json { return write(JSON.array(games.map(json)).serialized) }
        if games.isEmpty { return write("No games recorded\(config.peer.map { " against \($0)" } ?? "").") }
        for game in games { write(text(game)) }
        let scores = try AppFailure.attempt(.noInput, nil) { try store.scores() }
        write(totals(peer.map { [scores[$0] ?? Score()] } ?? Array(scores.values), against: config.peer))
    }

    /// The score over every finished game (those listed or not), against one peer or all.
    static func totals(_ scores: [Score], against peer: String?) -> String {
        let won = scores.reduce(0) { $0 + $1.won }, lost = scores.reduce(0) { $0 + $1.lost }
        let drawn = scores.reduce(0) { $0 + $1.drawn }
        return "Score\(peer.map { " against \($0)" } ?? ""): won \(won), lost \(lost), drawn \(drawn)"
            + " (\(won + lost + drawn) finished game\(won + lost + drawn == 1 ? "" : "s"))"
    }

    /// The one peer `text` names: an id or a prefix of 4 or more hex digits, else a name.
    static func resolve(_ text: String, in store: GameStore) throws(AppFailure) -> ID128 {
        do {
            var found = try store.peers(named: text)
            if found.isEmpty, text.count >= 4 { found = try store.peers(idPrefix: text) }
            guard let first = found.first else { throw AppFailure(.noInput, "no games against '\(text.prefix(64))'") }
            guard found.count == 1 else {
                throw AppFailure(.noInput, "'\(text.prefix(64))' could be \(found.map { String($0.description.prefix(8)) }.joined(separator: " or ")): use the id")
            }
            return first
        } catch let error as StoreError {
            throw AppFailure(.noInput, error.description)
        } catch let error as AppFailure {
            throw error
        } catch {
            throw AppFailure(.noInput, "\(error)")
        }
    }

    /// Two lines: when, against whom, the board and how it went; then the moves.
    static func text(_ g: GameRecord) -> String {
        let size = try? BoardSize(rows: g.rows, cols: g.cols, k: g.k) // nil: a row the schema let through
        let board = g.rows == 3 && g.cols == 3 && g.k == 3 ? "3x3" : "\(g.rows)x\(g.cols), \(g.k) in a row"
        let us = g.weMovedFirst.map { $0 ? "you O, first" : "you X, second" } ?? "roll undecided"
        let moves = size.map { s in g.moves.map { CellName.name($0.cell, on: s) }.joined(separator: " ") } ?? ""
        return "\(timestamp(g.startedAt))  \(g.peerName) (\(g.peerID.description.prefix(8)))  \(board)  \(outcome(g))  (\(us))\n"
            + "  moves: \(moves.isEmpty ? "none" : moves)"
    }

    static func outcome(_ g: GameRecord) -> String {
        switch g.state {
        case .finished:
            let result = switch g.result { case .won: "won"; case .lost: "lost"; case .draw: "draw"; case nil: "over" }
            return g.ending.map { "\(result) (\($0))" } ?? result
        case .playing: return "being played"
        case .interrupted: return "interrupted"
        case .adjourned: return "adjourned"
        case .void: return "void"
        }
    }

    static func json(_ g: GameRecord) -> JSON {
        let size = try? BoardSize(rows: g.rows, cols: g.cols, k: g.k) // nil: a row the schema let through
        return .object([
            ("id", g.key.map { .string($0.description) } ?? .null),
            ("peer", .object([("id", .string(g.peerID.description)), ("name", .string(g.peerName))])),
            ("rows", .int(g.rows)), ("cols", .int(g.cols)), ("k", .int(g.k)),
            ("started", .string(timestamp(g.startedAt, iso: true))),
            // An interrupted or adjourned game has not ended, whatever time its row keeps.
            ("ended", g.state == .finished || g.state == .void ? g.endedAt.map { .string(timestamp($0, iso: true)) } ?? .null : .null),
            ("state", .string(g.state.rawValue)),
            ("result", g.result.map { .string($0.rawValue) } ?? .null),
            ("ending", g.ending.map { .string($0) } ?? .null),
            ("youMovedFirst", g.weMovedFirst.map { .bool($0) } ?? .null),
            ("moves", .array(g.moves.map { m in
                .object([("cell", .string(size.map { CellName.name(m.cell, on: $0) } ?? String(m.cell + 1))),
                         ("by", .string(m.byUs ? "you" : "peer"))])
            })),
        ])
    }

    /// Local time as `2026-11-25 10:06`, or UTC ISO 8601 (`iso`).
    static func timestamp(_ ms: Int64, iso: Bool = false) -> String {
        var t = time_t(ms / 1000)
        var parts = tm()
        if iso { gmtime_r(&t, &parts) } else { localtime_r(&t, &parts) }
        var buffer = [CChar](repeating: 0, count: 32)
        let n = strftime(&buffer, buffer.count, iso ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%d %H:%M", &parts)
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
