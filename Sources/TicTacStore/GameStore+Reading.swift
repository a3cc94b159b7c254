import Foundation
import GRDB
import TicTacEngine
import TicTacWire

// What the history answers: scores, peers, games with their moves, the games a restart takes up.
extension GameStore {
    /// Our score against `peer` over every finished game.
    public func score(against peer: ID128) throws(StoreError) -> Score {
        try read { db in
            var score = Score()
            let rows = try Row.fetchAll(db, sql: """
                SELECT result, count(*) AS n FROM games WHERE peerID = ? AND state = 'finished' GROUP BY result
                """, arguments: [peer.description])
            for row in rows {
                let n = try row.decode(Int.self, forColumn: "n")
                switch try row.decode(String?.self, forColumn: "result") {
                case "won": score.won = n
                case "lost": score.lost = n
                case "draw": score.drawn = n
                default: break
                }
            }
            return score
        }
    }

    /// Our score against every opponent with a finished game.
    public func scores() throws(StoreError) -> [ID128: Score] {
        try read { db in
            var scores: [ID128: Score] = [:]
            let rows = try Row.fetchAll(db, sql: """
                SELECT peerID, result, count(*) AS n FROM games WHERE state = 'finished' GROUP BY peerID, result
                """)
            for row in rows {
                guard let peer = ID128(hex: try row.decode(String.self, forColumn: "peerID")) else { continue }
                let n = try row.decode(Int.self, forColumn: "n")
                switch try row.decode(String?.self, forColumn: "result") {
                case "won": scores[peer, default: Score()].won = n
                case "lost": scores[peer, default: Score()].lost = n
                case "draw": scores[peer, default: Score()].drawn = n
                default: break
                }
            }
            return scores
        }
    }

    /// Peers whose id starts with `prefix` (hex digits, either case).
    public func peers(idPrefix prefix: String) throws(StoreError) -> [ID128] {
        guard !prefix.isEmpty, prefix.allSatisfy(\.isHexDigit) else { return [] }
        return try read { db in
            try String.fetchAll(db, sql: "SELECT id FROM peers WHERE id LIKE ? ORDER BY lastSeen DESC",
                                arguments: [prefix.lowercased() + "%"]).compactMap { ID128(hex: $0) }
        }
    }

    /// Peers whose last known name is `name` (case-insensitive).
    public func peers(named name: String) throws(StoreError) -> [ID128] {
        try read { db in
            try String.fetchAll(db, sql: "SELECT id FROM peers WHERE lower(name) = lower(?) ORDER BY lastSeen DESC",
                                arguments: [name]).compactMap { ID128(hex: $0) }
        }
    }

    /// Games, most recent first, each with its moves; against `peer` only when given.
    public func history(peer: ID128? = nil, limit: Int = 100) throws(StoreError) -> [GameRecord] {
        try read { db in
            var sql = "SELECT games.*, peers.name AS peerName FROM games JOIN peers ON peers.id = games.peerID"
            var arguments: StatementArguments = []
            if let peer {
                sql += " WHERE games.peerID = ?"
                arguments += [peer.description]
            }
            sql += " ORDER BY games.startedAt DESC, games.id DESC LIMIT ?"
            arguments += [max(0, limit)]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in try Self.record(row, db) }
        }
    }

    /// The ids we played the history's games as, with their games and unfinished ones.
    public func ourIDs() throws(StoreError) -> [(id: ID128, games: Int, unfinished: Int)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT ourID, count(*) AS n, sum(state IN ('playing', 'interrupted', 'adjourned')) AS u "
                             + "FROM games GROUP BY ourID ORDER BY max(id) DESC").compactMap { row in
                ID128(hex: row["ourID"]).map { ($0, row["n"], row["u"]) }
            }
        }
    }

    /// What a restarted daemon takes up again, in one query, most recent first: with each peer,
    /// its latest unfinished game (playing, interrupted, adjourned) and its latest game when
    /// that one finished (the peer may not have read its end). Only games with a key: decided,
    /// or a roll kept to decide; the latest end is the latest decided game's.
    public func resumable(limit: Int) throws(StoreError) -> [GameRecord] {
        try read { db in
            let sql = """
                SELECT games.*, peers.name AS peerName FROM games JOIN peers ON peers.id = games.peerID
                WHERE games.key IS NOT NULL AND (
                  games.id = (SELECT max(h.id) FROM games h WHERE h.peerID = games.peerID AND h.key IS NOT NULL
                              AND (h.state = 'playing' OR h.state = 'interrupted' OR h.state = 'adjourned'))
                  OR (games.state = 'finished' AND games.weMovedFirst IS NOT NULL
                      AND games.id = (SELECT max(h.id) FROM games h WHERE h.peerID = games.peerID AND h.key IS NOT NULL
                                      AND h.weMovedFirst IS NOT NULL)))
                ORDER BY games.id DESC LIMIT ?
                """
            return try Row.fetchAll(db, sql: sql, arguments: [max(0, limit)]).map { row in try Self.record(row, db) }
        }
    }

    /// One game by the store's number for it; nil when there is none.
    public func game(_ id: Int64) throws(StoreError) -> GameRecord? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT games.*, peers.name AS peerName FROM games JOIN peers ON peers.id = games.peerID WHERE games.id = ?",
                             arguments: [id]).map { try Self.record($0, db) }
        }
    }

    /// A game's row and its moves; a value the schema forbids is an error, never a trap.
    private static func record(_ row: Row, _ db: Database) throws -> GameRecord {
        func hexID(_ column: String) throws -> ID128 {
            let text = try row.decode(String.self, forColumn: column)
            guard let id = ID128(hex: text) else { throw DatabaseError(message: "games.\(column) is not an id: \(text.prefix(40))") }
            return id
        }
        let id = try row.decode(Int64.self, forColumn: "id")
        let moves = try Row.fetchAll(db.cachedStatement(sql: "SELECT number, cell, byUs FROM moves WHERE game = ? ORDER BY number"),
                                     arguments: [id]).map {
            GameRecord.Move(number: try $0.decode(forColumn: "number"), cell: try $0.decode(forColumn: "cell"),
                            byUs: try $0.decode(forColumn: "byUs"))
        }
        let state = try row.decode(String.self, forColumn: "state")
        let result = try row.decode(String?.self, forColumn: "result")
        return GameRecord(
            id: id, matchID: try hexID("matchID"), number: try row.decode(forColumn: "number"),
            key: try row.decode(String?.self, forColumn: "key").flatMap { ID128(hex: $0) },
            moveTime: try row.decode(forColumn: "moveTime"),
            peerID: try hexID("peerID"), peerName: try row.decode(forColumn: "peerName"),
            rows: try row.decode(forColumn: "rows"), cols: try row.decode(forColumn: "cols"), k: try row.decode(forColumn: "k"),
            weMovedFirst: try row.decode(forColumn: "weMovedFirst"),
            startedAt: try row.decode(forColumn: "startedAt"), endedAt: try row.decode(forColumn: "endedAt"),
            state: GameRecord.State(rawValue: state) ?? .void,
            result: result.flatMap(GameResult.init(rawValue:)), ending: try row.decode(forColumn: "ending"),
            moves: moves, secret: try row.decode(Data?.self, forColumn: "secret").map { [UInt8]($0) },
            theirCommitment: try row.decode(Data?.self, forColumn: "theirCommitment").map { [UInt8]($0) },
            theirSecret: try row.decode(Data?.self, forColumn: "theirSecret").map { [UInt8]($0) })
    }
}
