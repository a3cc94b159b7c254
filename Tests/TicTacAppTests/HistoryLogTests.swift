#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TicTacApp
import TicTacDaemonCore
import TicTacEngine
import TicTacStore
import TicTacWire

/// The history's log: each turn appended before its frames leave, folded into the store off the
/// reactor; what a killed daemon left unfolded reaches the store at the next start, and
/// `tictac history` meanwhile.
@Suite struct HistoryLogTests {
    let ann = ID128(high: 1, low: 1), ben = ID128(high: 2, low: 2), key = ID128(high: 7, low: 7)

    func tempDir() -> String { temporaryDirectory("tictac-log-test") }

    func fact(_ f: GameFact) -> GameFactRecord {
        GameFactRecord(peer: ben, peerName: "ben", match: ID128(high: 9, low: 9), size: .classic, number: 1, key: key, fact: f)
    }

    func moved(_ n: Int, _ cell: Int) -> GameFactRecord { fact(.moved(number: n, cell: cell, byUs: n % 2 == 1)) }

    /// `body` runs while another writer holds the store, so nothing `state` logs meanwhile is
    /// folded (as a daemon killed before its folding caught up leaves it).
    func unfolded(_ state: DaemonState, dir: String, _ body: () -> Void) throws {
        let other = try GameStore(path: dir + "/history.sqlite")
        try other.batch { () throws(StoreError) in
            body()
            state.close()
        }
    }

    func append(_ bytes: [UInt8], to path: String) {
        let fd = open(path, O_WRONLY | O_APPEND)
        _ = write(fd, bytes, bytes.count)
        close(fd)
    }

    @Test func aTurnReadsBackAsItWasWrittenAndAnythingElseIsRefused() throws {
        let facts: [GameFact] = [.started(number: 2), .committed(secret: [1, 2, 3], theirCommitment: Array(repeating: 9, count: 32), moveTime: 30),
                                 .decided(weMoveFirst: false, key: key, moveTime: 30), .moved(number: 7, cell: 399, byUs: true),
                                 .ended(.draw, how: .crossed), .interrupted, .adjourned, .void, .forgotten]
        var records = facts.map(fact)
        records.append(GameFactRecord(peer: ben, peerName: "bén", match: key, size: try BoardSize(rows: 20, cols: 15, k: 5), number: 3, fact: .void))
        let turn = LoggedTurn(us: ann, at: 1_790_000_000_123, facts: records)
        let bytes = turn.encoded()
        #expect(try LoggedTurn(decoding: bytes) == turn)
        #expect(throws: LoggedTurn.Unreadable.self) { try LoggedTurn(decoding: Array(bytes.dropLast())) }
        #expect(throws: LoggedTurn.Unreadable.self) { try LoggedTurn(decoding: bytes + [0]) }
        #expect(throws: LoggedTurn.Unreadable.self) { try LoggedTurn(decoding: [2] + bytes.dropFirst()) }
    }

    @Test func whatAKilledDaemonLeftUnfoldedIsInTheHistoryAndTheNextStartFoldsItOnce() throws {
        let dir = tempDir()
        var lines: [String] = []
        do {
            let state = DaemonState(path: dir)
            state.record(fact(.decided(weMoveFirst: true, key: key, moveTime: 0)), us: ann)
            state.close()
            try unfolded(state, dir: dir) {
                state.record([moved(1, 4), moved(2, 0)], us: ann)
                state.record(moved(3, 8), us: ann)
            }
            // `tictac history` meanwhile: the log's turns as if folded, and the store untouched.
            var config = HistoryConfiguration()
            config.stateDirectory = dir
            try HistoryApp.run(config, write: { lines.append($0) })
            #expect(try GameStore(path: dir + "/history.sqlite").history().first?.moves.isEmpty == true)
        }
        #expect(lines.count == 2 && lines[0].hasSuffix("moves: b2 a1 c3"), "\(lines)")
        append([0, 0, 0, 40, 1, 2], to: dir + "/history.log") // a record cut short by a full disk
        do {
            let again = DaemonState(path: dir)
            #expect(again.notices == ["history: the last 6 bytes of \(dir)/history.log were not a whole record (a write cut short): left out"])
            #expect(try again.store?.history().first?.moves.map(\.cell) == [4, 0, 8])
            again.record(moved(4, 2), us: ann)
            again.close()
        }
        let third = DaemonState(path: dir) // the same turns are not folded twice
        #expect(third.notices.isEmpty, "\(third.notices)")
        #expect(try third.store?.history().first?.moves.map(\.cell) == [4, 0, 8, 2])
    }

    @Test func aLogThatIsNotOneIsLeftAsItIsAndPlayGoesOnWithoutHistory() throws {
        let dir = tempDir(), path = dir + "/history.log"
        let junk = Array("someone's notes, not a log\n".utf8)
        let fd = open(path, O_WRONLY | O_CREAT, 0o600)
        #expect(write(fd, junk, junk.count) == junk.count)
        close(fd)
        let state = DaemonState(path: dir)
        #expect(state.store == nil && state.notices == ["history off: \(path) is not a tictac history log (left as it is); play goes on without it"],
                "\(state.notices)")
        #expect(state.record([fact(.decided(weMoveFirst: true, key: key, moveTime: 0))], us: ann)) // nothing to keep: no crash
        var buffer = [UInt8](repeating: 0, count: 100)
        let rfd = open(path, O_RDONLY)
        let n = read(rfd, &buffer, buffer.count)
        close(rfd)
        #expect(Array(buffer.prefix(max(0, n))) == junk)
    }

    @Test func aLongLogIsReplacedOnceFoldedAndNothingIsLostOrDoubled() throws {
        let dir = tempDir()
        let state = DaemonState(path: dir)
        state.rotateAt = 300 // a turn of one move is about 90 bytes
        state.record(fact(.decided(weMoveFirst: true, key: key, moveTime: 0)), us: ann)
        var generations: Set<UInt64> = []
        for n in 1...9 {
            state.record(moved(n, n - 1), us: ann)
            state.close() // folded: the next turn may replace the log
            generations.insert(try #require(try HistoryLog.read(path: dir + "/history.log")).generation)
        }
        #expect(generations.count >= 3, "the log was replaced \(generations.count - 1) times")
        var info = stat()
        #expect(stat(dir + "/history.log", &info) == 0 && info.st_size < 400)
        #expect(try state.store?.history().first?.moves.map(\.cell) == Array(0...8))
    }
}
