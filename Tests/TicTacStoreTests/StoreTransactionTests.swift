import GRDB
import Testing
import TicTacEngine
import TicTacStore
import TicTacWire

/// A reactor turn's facts go in one transaction: all stored, and visible to another connection
/// (another process) as soon as `batch` returns, or none; a failure leaves the store usable.
@Suite struct StoreTransactionTests {
    let ann = ID128(high: 1, low: 1), ben = ID128(high: 2, low: 2)
    let key = ID128(high: 5, low: 5)

    @Test func aBatchIsInTheFileForAnotherConnectionWhenItReturns() throws {
        let path = GameStoreTests.scratchPath()
        let store = try GameStore(path: path)
        try store.batch { () throws(StoreError) in
            let game = try store.gameStarted(match: key, number: 1, peer: ben, peerName: "ben", us: ann, size: .classic,
                                             key: key, at: 1)
            try store.firstMoveDecided(game: game, weMoveFirst: true, key: key)
            try store.move(game: game, number: 1, cell: 4, byUs: true, at: 2)
        }
        let other = try DatabaseQueue(path: path) // what a killed daemon's successor reads
        #expect(try other.read { db in try Int.fetchOne(db, sql: "SELECT cell FROM moves") } == 4)
        #expect(try other.read { db in try Bool.fetchOne(db, sql: "SELECT weMovedFirst FROM games") } == true)
    }

    @Test func aBatchThatFailsStoresNoneOfItsWritesAndTheNextOneGoesIn() throws {
        let store = try GameStore(path: GameStoreTests.scratchPath())
        #expect(throws: StoreError.self) {
            try store.batch { () throws(StoreError) in
                let game = try store.gameStarted(match: key, number: 1, peer: ben, peerName: "ben", us: ann,
                                                 size: .classic, key: key, at: 1)
                try store.move(game: game, number: 1, cell: 4, byUs: true, at: 2)
                try store.move(game: game, number: 3, cell: 0, byUs: false, at: 3) // a gap: refused
            }
        }
        #expect(try store.history().isEmpty)
        #expect(try store.peers(named: "ben").isEmpty)
        try store.batch { () throws(StoreError) in
            let game = try store.gameStarted(match: key, number: 1, peer: ben, peerName: "ben", us: ann, size: .classic,
                                             key: key, at: 4)
            try store.move(game: game, number: 1, cell: 8, byUs: true, at: 5)
        }
        #expect(try store.history().map { $0.moves.map(\.cell) } == [[8]])
    }

    @Test func aRefusedWriteOutsideABatchLeavesTheStoreUsable() throws {
        let store = try GameStore(path: GameStoreTests.scratchPath())
        let game = try store.gameStarted(match: key, number: 1, peer: ben, peerName: "ben", us: ann, size: .classic, at: 1)
        try store.move(game: game, number: 1, cell: 4, byUs: true, at: 2)
        #expect(throws: StoreError.self) { try store.move(game: game, number: 1, cell: 5, byUs: true, at: 3) }
        try store.move(game: game, number: 2, cell: 0, byUs: false, at: 4)
        #expect(try store.history().first?.moves.map(\.cell) == [4, 0])
    }

    @Test func aGameWrittenThroughTheFastPathReadsBackWithItsNulls() throws {
        let store = try GameStore(path: GameStoreTests.scratchPath())
        let game = try store.gameStarted(match: key, number: 2, peer: ben, peerName: "bén", us: ann,
                                         size: try BoardSize(rows: 5, cols: 6, k: 4), at: 1)
        try store.firstMoveDecided(game: game, weMoveFirst: false, key: nil, moveTime: 30)
        try store.move(game: game, number: 1, cell: 29, byUs: false, at: 2)
        try store.gameEnded(game: game, state: .interrupted, result: nil, ending: nil, at: 3)
        let g = try #require(try store.history().first)
        #expect(g.key == nil && g.result == nil && g.ending == nil && g.endedAt == 3)
        #expect(g.peerName == "bén" && g.number == 2 && g.moveTime == 30 && g.weMovedFirst == false)
        #expect([g.rows, g.cols, g.k] == [5, 6, 4] && g.state == .interrupted)
        #expect(g.moves.map(\.cell) == [29] && g.moves.map(\.byUs) == [false])
    }

    @Test func aTextIsStoredWholeEvenWithANULInside() throws {
        let path = GameStoreTests.scratchPath()
        let store = try GameStore(path: path)
        try store.gameStarted(match: key, number: 1, peer: ben, peerName: "bén\u{0}x", us: ann, size: .classic, at: 1)
        let raw = try DatabaseQueue(path: path) // GRDB reads text up to a NUL: count the bytes
        #expect(try raw.read { db in try Int.fetchOne(db, sql: "SELECT length(CAST(name AS BLOB)) FROM peers") } == 6)
    }

    @Test func aDiskThatFillsDuringAGameIsSaidToBeFull() throws {
        let path = GameStoreTests.scratchPath()
        let store = try GameStore(path: path, maxPages: 12) // the schema takes about 8
        let name = String(repeating: "x", count: 2000)
        var failure: StoreError?
        for i in 0..<100 where failure == nil {
            do throws(StoreError) {
                let game = try store.gameStarted(match: key, number: i + 1, peer: ID128(high: 7, low: UInt64(i)),
                                                 peerName: name, us: ann, size: .classic, at: Int64(i))
                try store.move(game: game, number: 1, cell: 4, byUs: true, at: Int64(i))
            } catch {
                failure = error
            }
        }
        #expect(failure == .full(path))
        #expect(try store.history().allSatisfy { $0.moves.count == 1 }, "what was stored before stays")
    }
}
