import Foundation
import GRDB
import TicTacEngine
import TicTacWire

/// The daemon's durable history in one SQLite file (through GRDB): peers seen, games with their
/// append-only move lists, and the per-opponent score, computed from finished games so it
/// cannot drift from them. WAL journal, `synchronous = NORMAL`: a committed write survives the
/// process being killed (it is in the WAL, in the kernel's cache); a power cut may lose the last
/// writes before the WAL's next checkpoint reaches the disk.
///
/// Every call is synchronous and small (one statement or one short transaction); every failure
/// is a `StoreError`, never a crash, and the file is never emptied or replaced.
public final class GameStore {
    public let path: String
    private let db: DatabaseQueue
    /// The open transaction of `batch`, which the writes inside it join.
    private var current: Database?

    /// Opens (or creates) the store at `path` and brings its schema up to date. Refuses a file
    /// that is not a database, one of a newer schema, or one locked by another process.
    /// `maxPages`: the file may not grow past this many pages (SQLite's `max_page_count`);
    /// past it a write fails as a full disk does.
    public init(path: String, maxPages: Int? = nil) throws(StoreError) {
        self.path = path
        do {
            db = try DatabaseQueue(path: path, configuration: Self.configuration(maxPages: maxPages))
            try Self.migrate(db, path: path)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Opens the store at `path` to read it only (tictac history): nothing is written, so a
    /// copy the user cannot write opens too. A store of an older schema is brought up to date
    /// first (that writes); one of a newer schema is refused.
    public init(readingAt path: String) throws(StoreError) {
        self.path = path
        do {
            var c = Configuration()
            c.readonly = true
            c.busyMode = .timeout(0.2)
            let reader: DatabaseQueue
            do {
                reader = try Self.readable(DatabaseQueue(path: path, configuration: c))
            } catch let error as DatabaseError where [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode.primaryResultCode) {
                // A WAL store whose -shm is gone and cannot be made (a read-only copy): no writer
                // can be there, so it is read as immutable. Any other failure (busy) is told.
                reader = try DatabaseQueue(path: "file:" + Self.uriEscaped(path) + "?immutable=1", configuration: c)
            }
            let migrator = Schema.migrator
            let (unknown, current) = try reader.read { db in
                (try migrator.appliedIdentifiers(db).subtracting(migrator.migrations), try migrator.hasCompletedMigrations(db))
            }
            if !unknown.isEmpty { throw StoreError.newerSchema(path, unknown: Array(unknown)) }
            if current {
                db = reader
            } else {
                db = try DatabaseQueue(path: path, configuration: Self.configuration(maxPages: nil))
                try Self.migrate(db, path: path)
            }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// A path as the path of an SQLite URI (`%`, `?` and `#` escaped).
    private static func uriEscaped(_ path: String) -> String {
        path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3f")
            .replacingOccurrences(of: "#", with: "%23")
    }

    /// `queue`, once a first read through it has worked.
    private static func readable(_ queue: DatabaseQueue) throws -> DatabaseQueue {
        _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        return queue
    }

    /// A store in memory, gone with the process (tests, `--ephemeral`). `maxPages` as for a
    /// file; `template`: starts as a copy of that store (migrated once, copied for many).
    public init(maxPages: Int? = nil, copying template: GameStore? = nil) throws(StoreError) {
        path = ":memory:"
        do {
            db = try DatabaseQueue(configuration: Self.configuration(maxPages: maxPages))
            if let template {
                try template.db.backup(to: db) // a store of ours, migrated when it was made
            } else {
                try Self.migrate(db, path: path)
            }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    private static func configuration(maxPages: Int?) -> Configuration {
        var c = Configuration()
        c.journalMode = .wal
        c.busyMode = .timeout(0.2) // another process's write: wait briefly, then say it is locked
        c.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            if let maxPages { _ = try Int.fetchOne(db, sql: "PRAGMA max_page_count = \(max(1, maxPages))") }
        }
        return c
    }

    private static func migrate(_ queue: DatabaseQueue, path: String) throws {
        let migrator = Schema.migrator
        let unknown = try queue.read { db in
            try migrator.appliedIdentifiers(db).subtracting(migrator.migrations)
        }
        if !unknown.isEmpty { throw StoreError.newerSchema(path, unknown: Array(unknown)) }
        try migrator.migrate(queue)
    }

    // MARK: - Writing

    /// Records that a peer was seen (a game or a handshake), under the name it gave.
    public func peerSeen(_ id: ID128, name: String, at ms: Int64) throws(StoreError) {
        try write { db in
            try db.cachedStatement(sql: """
                INSERT INTO peers (id, name, firstSeen, lastSeen) VALUES (?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, lastSeen = excluded.lastSeen
                """).execute(arguments: [id.description, name, ms, ms])
        }
    }

    /// Records a game (or finds it, when a game with `key` is stored already): returns the
    /// store's id for it. A game is known by its key, which both sides drew (a match id is the
    /// inviter's alone, and a peer may repeat one); one without a key (it ended before its roll
    /// decided) is always a new row.
    @discardableResult
    public func gameStarted(match: ID128, number: Int, peer: ID128, peerName: String, us: ID128,
                            size: BoardSize, key: ID128? = nil, at ms: Int64) throws(StoreError) -> Int64 {
        try write { db in
            let seen = try FastStatement(db, sql: """
                INSERT INTO peers (id, name, firstSeen, lastSeen) VALUES (?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, lastSeen = excluded.lastSeen
                """)
            try seen.bind(.text(peer.description), .text(peerName), .int(ms), .int(ms))
            try seen.run()
            if let key {
                let find = try FastStatement(db, sql: "SELECT id FROM games WHERE key = ?")
                try find.bind(.text(key.description))
                if let id = try find.run() { return id }
            }
            let insert = try FastStatement(db, sql: """
                INSERT INTO games (matchID, number, key, peerID, ourID, rows, cols, k, startedAt, state)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'playing')
                """)
            try insert.bind(.text(match.description), .number(number), key.map { .text($0.description) }, .text(peer.description),
                            .text(us.description), .number(size.rows), .number(size.cols), .number(size.k), .int(ms))
            try insert.run()
            return db.lastInsertedRowID
        }
    }

    /// Records who moves first and the game's key (`GameKey`), once the roll has decided.
    public func firstMoveDecided(game: Int64, weMoveFirst: Bool, key: ID128? = nil, moveTime: Int = 0) throws(StoreError) {
        try write { db in
            let update = try FastStatement(db, sql: "UPDATE games SET weMovedFirst = ?, key = ?, moveTime = ? WHERE id = ?")
            try update.bind(.flag(weMoveFirst), key.map { .text($0.description) }, .number(moveTime), .int(game))
            try update.run()
        }
    }

    /// Records a roll's key, our secret and the peer's commitment as our ROLL goes out, so the
    /// roll can be decided after a lost link or a restart (Protocol.md §13).
    public func rollCommitted(game: Int64, secret: [UInt8], theirCommitment: [UInt8], moveTime: Int) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE games SET secret = ?, theirCommitment = ?, moveTime = ? WHERE id = ?",
                           arguments: [Data(secret), Data(theirCommitment), moveTime, game])
        }
    }

    /// Records the peer's secret as our ROLL_ACK goes out (Protocol.md §13): the peer decides on
    /// that ACK, so a restart decides from both secrets too.
    public func rollAcknowledged(game: Int64, theirSecret: [UInt8]) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE games SET theirSecret = ? WHERE id = ?", arguments: [Data(theirSecret), game])
        }
    }

    /// Forgets a game whose roll never decided on either side: no row is left (it has no move).
    public func forget(game: Int64) throws(StoreError) {
        try write { db in
            try db.execute(sql: "DELETE FROM games WHERE id = ? AND weMovedFirst IS NULL AND NOT EXISTS (SELECT 1 FROM moves WHERE game = ?)",
                           arguments: [game, game])
        }
    }

    /// Appends move `number` (from 1). Idempotent: the same move again changes nothing; a
    /// different cell under a number already stored is a conflict and changes nothing.
    public func move(game: Int64, number: Int, cell: Int, byUs: Bool, at ms: Int64) throws(StoreError) {
        try write { db in
            // One look at the last stored number; the stored move itself only for a repeat.
            let counting = try FastStatement(db, sql: "SELECT count(*) FROM moves WHERE game = ?")
            try counting.bind(.int(game))
            let count = try counting.run() ?? 0
            if number <= count {
                let stored = try Row.fetchOne(db.cachedStatement(sql: "SELECT cell, byUs FROM moves WHERE game = ? AND number = ?"),
                                              arguments: [game, number])
                let same = try stored.map { try $0.decode(Int.self, forColumn: "cell") == cell && $0.decode(Bool.self, forColumn: "byUs") == byUs }
                if same == true { return }
                throw StoreError.refused(path, message: "move \(number) of game \(game) is stored as another move")
            }
            guard number == count + 1 else {
                throw StoreError.refused(path, message: "move \(number) of game \(game) after \(count) stored")
            }
            let insert = try FastStatement(db, sql: "INSERT INTO moves (game, number, cell, byUs, at) VALUES (?, ?, ?, ?, ?)")
            try insert.bind(.int(game), .number(number), .number(cell), .flag(byUs), .int(ms))
            try insert.run()
        }
    }

    /// Records how a game stands now: finished with a result, or interrupted, adjourned, void.
    public func gameEnded(game: Int64, state: GameRecord.State, result: GameResult?, ending: String?,
                          at ms: Int64) throws(StoreError) {
        try write { db in
            let update = try FastStatement(db, sql: "UPDATE games SET state = ?, result = ?, ending = ?, endedAt = ? WHERE id = ?")
            try update.bind(.text(state.rawValue), result.map { .text($0.rawValue) }, ending.map { .text($0) }, .int(ms), .int(game))
            try update.run()
        }
    }

    // MARK: - Private

    /// Runs `body`'s writes in one transaction (one commit for a reactor turn's facts): all of
    /// them are stored when it returns, or none when it throws.
    public func batch(_ body: () throws(StoreError) -> Void) throws(StoreError) {
        if current != nil { return try body() }
        do {
            try transaction { database in
                current = database
                defer { current = nil }
                try body()
            }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        if let current {
            do { return try body(current) } catch { throw StoreError.from(error, path: path) }
        }
        do {
            return try transaction(body)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// `body` in one write transaction, begun and committed by statements prepared once (GRDB's
    /// `write` parses its BEGIN and COMMIT again for every transaction); rolled back when it throws.
    private func transaction<T>(_ body: (Database) throws -> T) throws -> T {
        try db.writeWithoutTransaction { database in
            try database.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
            do {
                let value = try body(database)
                try database.cachedStatement(sql: "COMMIT").execute()
                return value
            } catch {
                // A failed COMMIT may leave the transaction open: end it, keep the first error.
                if database.isInsideTransaction { try? database.cachedStatement(sql: "ROLLBACK").execute() }
                throw error
            }
        }
    }

    /// `body` in one read transaction (one snapshot of the store), begun and ended by statements
    /// prepared once (GRDB's `read` prepares its BEGIN, its COMMIT and two PRAGMAs for every read).
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try db.writeWithoutTransaction { database in
                try database.cachedStatement(sql: "BEGIN DEFERRED").execute()
                defer { if database.isInsideTransaction { try? database.cachedStatement(sql: "COMMIT").execute() } }
                return try body(database)
            }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }
}
