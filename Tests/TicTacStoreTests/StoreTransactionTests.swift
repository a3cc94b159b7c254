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
}
