import GRDB
import Testing
import TicTacEngine
@testable import TicTacStore
import TicTacWire

/// A history written by a v1 tictac opens in this one with every game, move and score as it
/// was, and the v2 checks refuse what v1's refused.
@Suite struct SchemaMigrationTests {
    let ann = ID128(high: 1, low: 1), ben = ID128(high: 2, low: 2)
    let key = ID128(high: 5, low: 5)

    /// A v1 file: the schema as v1 made it, a finished game and one in play.
    func v1File() throws -> String {
        let path = GameStoreTests.scratchPath()
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v1")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO peers (id, name, firstSeen, lastSeen) VALUES (?, 'ben', 1, 2);
                INSERT INTO games (id, matchID, key, number, peerID, ourID, rows, cols, k, weMovedFirst, moveTime,
                                   startedAt, endedAt, state, result, ending)
                    VALUES (1, ?, NULL, 1, ?, ?, 3, 3, 3, 1, 0, 10, 20, 'finished', 'won', 'line'),
                           (2, ?, ?, 2, ?, ?, 5, 6, 4, 0, 30, 30, NULL, 'interrupted', NULL, NULL);
                INSERT INTO moves (game, number, cell, byUs, at) VALUES (1, 1, 4, 1, 11), (1, 2, 0, 0, 12), (2, 1, 7, 0, 31);
                """, arguments: [ben.description, ben.description, ben.description, ann.description,
                                 ben.description, key.description, ben.description, ann.description])
        }
        try queue.close()
        return path
    }

    @Test func aV1HistoryComesBackWhole() throws {
        let store = try GameStore(path: try v1File())
        let games = try store.history()
        #expect(games.map(\.id) == [2, 1])
        #expect(games.map(\.state) == [.interrupted, .finished] && games.map(\.result) == [nil, .won])
        #expect(games.map { $0.moves.map(\.cell) } == [[7], [4, 0]])
        #expect(games[0].key == key && games[0].moveTime == 30 && [games[0].rows, games[0].cols, games[0].k] == [5, 6, 4])
        #expect(try store.score(against: ben) == Score(won: 1, lost: 0, drawn: 0))
        try store.move(game: 2, number: 2, cell: 8, byUs: true, at: 32) // the game in play goes on
        #expect(try store.gameStarted(match: key, number: 2, peer: ben, peerName: "ben", us: ann, size: .classic,
                                      key: key, at: 40) == 2, "still found by its key")
    }

    @Test func theChecksAreWrittenWithoutAnInListAndStillRefuse() throws {
        let path = try v1File()
        _ = try GameStore(path: path)
        let queue = try DatabaseQueue(path: path)
        let sql = try queue.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'games'") }
        #expect(sql?.contains(" IN (") == false)
        #expect(throws: DatabaseError.self) { try queue.write { db in try db.execute(sql: "UPDATE games SET state = 'won'") } }
        #expect(throws: DatabaseError.self) { try queue.write { db in try db.execute(sql: "UPDATE games SET result = 'finished'") } }
        #expect(throws: DatabaseError.self) {
            try queue.write { db in try db.execute(sql: "INSERT INTO moves (game, number, cell, byUs, at) VALUES (9, 1, 0, 0, 0)") }
        }
        let indexes = try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'games'") }
        #expect(indexes.contains("games_by_peer") && indexes.count == 2) // and the key's UNIQUE
        #expect(try queue.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }.isEmpty)
    }
}
