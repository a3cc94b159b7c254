#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TicTacApp
import TicTacDaemonCore
import TicTacEngine
import TicTacWire

/// `tictac history` on a state directory that is not one.
@Suite struct HistoryAppTests {
    /// A file given as --state-dir is an error (exit 66), not "No games recorded yet" and 0.
    @Test func aFileGivenAsTheStateDirectoryIsAnError() throws {
        let file = (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") + "/tictac-history-\(getpid())"
        #expect(creat(file, 0o600) >= 0)
        defer { unlink(file) }
        var config = HistoryConfiguration()
        config.stateDirectory = file
        var out: [String] = []
        #expect(throws: AppFailure.self) { try HistoryApp.run(config, write: { out.append($0) }) }
        do {
            try HistoryApp.run(config, write: { out.append($0) })
        } catch {
            #expect(error.kind == .noInput && error.description.contains("is not a directory"))
        }
        #expect(out.isEmpty)
        config.stateDirectory = file + "-absent"
        try HistoryApp.run(config, write: { out.append($0) })
        #expect(out.count == 1 && out[0].hasPrefix("No games recorded yet"), "a directory not made yet has no games")
    }

    /// The text ends with the score over every finished game; an adjourned game has not ended
    /// (JSON `ended` null), whatever time its row keeps.
    @Test func theScoreFollowsTheGamesAndAnAdjournedGameHasNotEnded() throws {
        let dir = temporaryDirectory("tictac-history-test")
        let state = DaemonState(path: dir)
        let us = ID128(high: 1, low: 1), ben = ID128(high: 2, low: 2)
        func fact(_ f: GameFact, _ number: Int, _ key: UInt64) -> GameFactRecord {
            GameFactRecord(peer: ben, peerName: "ben", match: ID128(high: 9, low: 9), size: .classic, number: number,
                           key: ID128(high: 7, low: key), fact: f)
        }
        for f: GameFact in [.started(number: 1), .decided(weMoveFirst: true, key: ID128(high: 7, low: 1), moveTime: 0),
                            .moved(number: 1, cell: 4, byUs: true), .ended(.won, how: .resigned)] {
            state.record(fact(f, 1, 1), us: us)
        }
        for f: GameFact in [.started(number: 2), .decided(weMoveFirst: false, key: ID128(high: 7, low: 2), moveTime: 0),
                            .interrupted, .adjourned] {
            state.record(fact(f, 2, 2), us: us)
        }
        state.close() // the turns folded into the store: from here on nothing writes to it
        var config = HistoryConfiguration()
        config.stateDirectory = dir
        var lines: [String] = []
        // It only reads: the database and its log are as they were (it wrote its schema on each run).
        func files() -> [String] {
            ["", "-wal", "-shm"].map { suffix in
                var info = stat()
                guard stat(dir + "/history.sqlite" + suffix, &info) == 0 else { return "none" }
                return "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
            }
        }
        let before = files()
        try HistoryApp.run(config, write: { lines.append($0) })
        #expect(files() == before, "tictac history wrote to the store")
        #expect(lines.count == 3 && lines.last == "Score: won 1, lost 0, drawn 0 (1 finished game)", "\(lines)")
        #expect(lines.first?.contains("adjourned") == true)
        config.json = true
        lines = []
        try HistoryApp.run(config, write: { lines.append($0) })
        let json = lines.joined()
        #expect(json.hasPrefix(#"[{"id""#) && json.contains(#""ended":null,"state":"adjourned""#), "\(json)")
        #expect(json.contains(#""state":"finished""#) && !json.contains(#""ended":null,"state":"finished""#))
    }
}
