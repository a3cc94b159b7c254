import Foundation
import Testing
import TicTacEngine
import TicTacStore
import TicTacWire

/// The history store: what goes in comes back, moves are an idempotent append-only log, the
/// score is computed from finished games, and it survives reopening.
@Suite struct GameStoreTests {
    let ann = ID128(high: 1, low: 1), ben = ID128(high: 2, low: 2), cat = ID128(high: 3, low: 3)
    let match = ID128(high: 9, low: 9)

    static func scratchPath() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tictac-store-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("history.sqlite").path
    }

    /// Plays a finished game: ann (us) against `peer`, the given result.
    func finished(_ store: GameStore, peer: ID128, name: String, number: Int, result: GameResult, at t: Int64) throws {
        let game = try store.gameStarted(match: match, number: number, peer: peer, peerName: name, us: ann, size: .classic, at: t)
        try store.firstMoveDecided(game: game, weMoveFirst: true)
        try store.move(game: game, number: 1, cell: 4, byUs: true, at: t + 1)
        try store.move(game: game, number: 2, cell: 0, byUs: false, at: t + 2)
        try store.gameEnded(game: game, state: .finished, result: result, ending: "resigned", at: t + 3)
    }

    @Test func aGameAndItsMovesComeBackMostRecentFirst() throws {
        let store = try GameStore()
        try finished(store, peer: ben, name: "ben", number: 1, result: .won, at: 1_000)
        try finished(store, peer: cat, name: "cat", number: 2, result: .lost, at: 2_000)
        let all = try store.history()
        #expect(all.map(\.peerName) == ["cat", "ben"])
        let first = try #require(all.last)
        #expect(first.moves == [GameRecord.Move(number: 1, cell: 4, byUs: true), GameRecord.Move(number: 2, cell: 0, byUs: false)])
        #expect(first.state == .finished && first.result == .won && first.ending == "resigned" && first.weMovedFirst == true)
        #expect(first.rows == 3 && first.cols == 3 && first.k == 3 && first.startedAt == 1_000 && first.endedAt == 1_003)
        #expect(try store.history(peer: ben).map(\.peerName) == ["ben"])
    }

    @Test func theScoreCountsFinishedGamesOnly() throws {
        let store = try GameStore()
        try finished(store, peer: ben, name: "ben", number: 1, result: .won, at: 1)
        try finished(store, peer: ben, name: "ben", number: 2, result: .won, at: 2)
        try finished(store, peer: ben, name: "ben", number: 3, result: .draw, at: 3)
        let open = try store.gameStarted(match: match, number: 4, peer: ben, peerName: "ben", us: ann, size: .classic, at: 4)
        try store.gameEnded(game: open, state: .interrupted, result: nil, ending: nil, at: 5)
        #expect(try store.score(against: ben) == Score(won: 2, lost: 0, drawn: 1))
        #expect(try store.score(against: cat) == Score())
    }

    @Test func aMoveStoredTwiceIsStoredOnceAndAnotherUnderItsNumberIsRefused() throws {
        let store = try GameStore()
        let game = try store.gameStarted(match: match, number: 1, peer: ben, peerName: "ben", us: ann, size: .classic, at: 0)
        try store.move(game: game, number: 1, cell: 4, byUs: true, at: 1)
        try store.move(game: game, number: 1, cell: 4, byUs: true, at: 2) // a replay after a restart
        #expect(throws: StoreError.self) { try store.move(game: game, number: 1, cell: 5, byUs: true, at: 3) }
        #expect(throws: StoreError.self) { try store.move(game: game, number: 3, cell: 5, byUs: false, at: 3) } // a gap
        #expect(try store.history().first?.moves.count == 1)
    }

    @Test func startingTheSameGameTwiceFindsItByItsKey() throws {
        let store = try GameStore()
        let key = ID128(high: 5, low: 5)
        let a = try store.gameStarted(match: match, number: 1, peer: ben, peerName: "ben", us: ann, size: .classic, key: key, at: 0)
        let b = try store.gameStarted(match: match, number: 1, peer: ben, peerName: "ben", us: ann, size: .classic, key: key, at: 9)
        #expect(try a == b && store.history().count == 1)
        // The same match id and number with another key (a peer repeating its match id) is another game.
        let c = try store.gameStarted(match: match, number: 1, peer: ben, peerName: "ben", us: ann, size: .classic,
                                      key: ID128(high: 6, low: 6), at: 10)
        #expect(try c != a && store.history().count == 2)
    }

    @Test func aPeerIsFoundByItsLastName() throws {
        let store = try GameStore()
        try store.peerSeen(ben, name: "ben", at: 1)
        try store.peerSeen(ben, name: "Benjamin", at: 2)
        #expect(try store.peers(named: "benjamin") == [ben])
        #expect(try store.peers(named: "ben").isEmpty)
    }

    @Test func theHistorySurvivesReopeningTheFile() throws {
        let path = Self.scratchPath()
        do {
            let store = try GameStore(path: path)
            try finished(store, peer: ben, name: "ben", number: 1, result: .draw, at: 7)
        }
        let again = try GameStore(path: path)
        #expect(try again.score(against: ben) == Score(won: 0, lost: 0, drawn: 1))
        #expect(try again.history().first?.moves.count == 2)
    }
}
