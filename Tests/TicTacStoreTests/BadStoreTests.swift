import Foundation
import GRDB
import Testing
import TicTacEngine
import TicTacStore
import TicTacWire

/// A store that cannot be used is one clear error, never a crash, and never an emptied file.
@Suite struct BadStoreTests {
    let ben = ID128(high: 2, low: 2)

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAsItIs() throws {
        let path = GameStoreTests.scratchPath()
        let junk = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try junk.write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.notADatabase(path)) { try GameStore(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == junk, "the file is not touched")
    }

    /// A real store whose schema page is damaged (its header still SQLite's): refused, and not
    /// one byte of it rewritten (no journal mode or schema version set on the way).
    @Test func aMalformedDatabaseIsRefusedAndLeftByteForByte() throws {
        let path = GameStoreTests.scratchPath()
        do {
            let store = try GameStore(path: path)
            try store.peerSeen(ben, name: "ben", at: 1)
        }
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for i in 108..<140 { bytes[i] = 0xff } // sqlite_schema's first cells, on page 1
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.self) { try GameStore(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "the file is not touched")
    }

    @Test func aStoreOfANewerSchemaIsRefusedAndLeftAsItIs() throws {
        let path = GameStoreTests.scratchPath()
        do {
            let store = try GameStore(path: path)
            try store.peerSeen(ben, name: "ben", at: 1)
        }
        // A later tictac's migration, as GRDB's migrator records it.
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-from-the-future')") }
        try queue.close()
        #expect(throws: StoreError.newerSchema(path, unknown: ["v9-from-the-future"])) { try GameStore(path: path) }
        let check = try DatabaseQueue(path: path)
        #expect(try check.read { db in try String.fetchOne(db, sql: "SELECT name FROM peers") } == "ben")
    }

    @Test func aStoreLockedByAnotherWriterIsSaidToBeLocked() throws {
        let path = GameStoreTests.scratchPath()
        let store = try GameStore(path: path)
        let other = try DatabaseQueue(path: path)
        // Another connection's open write transaction holds the WAL's write lock meanwhile.
        try other.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            #expect(throws: StoreError.locked(path)) { try store.peerSeen(ben, name: "ben", at: 1) }
            try db.execute(sql: "ROLLBACK")
        }
        try store.peerSeen(ben, name: "ben", at: 2) // free again
    }

    @Test func aFullDiskIsSaidToBeFullAndWhatWasStoredStays() throws {
        let path = GameStoreTests.scratchPath()
        let store = try GameStore(path: path, maxPages: 12) // the schema takes about 8
        try store.peerSeen(ben, name: "ben", at: 1)
        let name = String(repeating: "x", count: 2000)
        var failure: StoreError?
        for i in 0..<100 where failure == nil {
            do throws(StoreError) {
                try store.peerSeen(ID128(high: 7, low: UInt64(i)), name: name, at: 2)
            } catch {
                failure = error
            }
        }
        #expect(failure == .full(path))
        #expect(try store.peers(named: "ben") == [ben], "what was stored before stays")
    }

    @Test func movesCannotBeRewrittenOrRemovedEvenThroughSQL() throws {
        let path = GameStoreTests.scratchPath()
        do {
            let store = try GameStore(path: path)
            let game = try store.gameStarted(match: ben, number: 1, peer: ben, peerName: "ben", us: ID128(high: 1, low: 1),
                                             size: .classic, at: 0)
            try store.move(game: game, number: 1, cell: 4, byUs: true, at: 1)
        }
        let raw = try DatabaseQueue(path: path)
        #expect(throws: DatabaseError.self) { try raw.write { db in try db.execute(sql: "UPDATE moves SET cell = 5") } }
        #expect(throws: DatabaseError.self) { try raw.write { db in try db.execute(sql: "DELETE FROM moves") } }
        #expect(try raw.read { db in try Int.fetchOne(db, sql: "SELECT cell FROM moves") } == 4)
    }
}
