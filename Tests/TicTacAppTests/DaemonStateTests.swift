#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TicTacApp
import TicTacDaemonCore
import TicTacEngine
import TicTacStore
import TicTacWire

/// What a daemon keeps between runs: the state directory, its lock, and the history the core's
/// facts are written to.
@Suite struct DaemonStateTests {
    let ann = ID128(high: 1, low: 1), ben = ID128(high: 2, low: 2), match = ID128(high: 9, low: 9)

    func tempDir() -> String { temporaryDirectory("tictac-state-test") }

    /// A fact of the game with `key` (facts before the roll decided have none).
    func fact(_ f: GameFact, number: Int = 1, key: ID128? = ID128(high: 7, low: 7)) -> GameFactRecord {
        GameFactRecord(peer: ben, peerName: "ben", match: match, size: .classic, number: number, key: key, fact: f)
    }

    @Test func factsBecomeAGameWithItsMovesAndTheScore() throws {
        let dir = tempDir()
        let state = DaemonState(path: dir)
        #expect(state.notices.isEmpty && state.store != nil)
        let key = ID128(high: 7, low: 7)
        for f: GameFact in [.started(number: 1), .decided(weMoveFirst: true, key: key, moveTime: 0), .moved(number: 1, cell: 4, byUs: true),
                            .moved(number: 2, cell: 0, byUs: false), .ended(.lost, how: .resigned)] {
            state.record(fact(f), us: ann)
        }
        let games = try #require(try state.store?.history())
        #expect(games.count == 1)
        let g = try #require(games.first)
        #expect(g.key == key && g.weMovedFirst == true && g.state == .finished && g.result == .lost && g.ending == "resigned")
        #expect(g.moves.map(\.cell) == [4, 0] && g.moves.map(\.byUs) == [true, false])
        #expect(state.scores()[ben] == Score(lost: 1))
        // Owner-only: the key and the history are nobody else's business.
        var info = stat()
        #expect(stat(dir + "/history.sqlite", &info) == 0 && info.st_mode & 0o077 == 0)
    }

    @Test func aGameStoppedBeforeItsRollLeavesNoRowAndOneCutMidwayIsInterrupted() throws {
        let state = DaemonState(path: tempDir())
        state.record(fact(.started(number: 1), key: nil), us: ann) // the core sends no `interrupted` before the roll decides
        #expect(try state.store?.history().isEmpty == true)
        state.record(fact(.started(number: 2), number: 2), us: ann)
        state.record(fact(.decided(weMoveFirst: false, key: ID128(high: 7, low: 7), moveTime: 0), number: 2), us: ann)
        state.record(fact(.interrupted, number: 2), us: ann)
        #expect(try state.store?.history().map(\.state) == [.interrupted])
    }

    /// A game restored after a restart keeps the clock both sides agreed on; the match's next
    /// games ask what `--move-time` says now (issue 30: a new --move-time was ignored).
    @Test func aRestoredGameKeepsItsClockAndTheMatchAsksTheNewOne() throws {
        let state = DaemonState(path: tempDir())
        for f: GameFact in [.started(number: 1), .decided(weMoveFirst: true, key: ID128(high: 7, low: 7), moveTime: 120),
                            .moved(number: 1, cell: 4, byUs: true), .interrupted] {
            state.record(fact(f), us: ann)
        }
        let (restored, _) = state.resumable(limit: 10, rematchDelay: .seconds(3), moveTime: .seconds(30),
                                            makeRandom: { SystemRandomNumberGenerator() })
        let game = try #require(restored.first?.game)
        #expect(game.agreedMoveTime == 120 && game.moveTime == 30)
    }

    /// A roll whose peer's ROLL we acknowledged, then killed before our ACK's answer: the peer
    /// may have decided on that ACK and moved, so the restart decides too, from both secrets,
    /// and stores the decision (found by tools/lan/test-kills: the roll was forgotten instead).
    @Test func anAcknowledgedRollIsDecidedAtTheRestart() throws {
        let dir = tempDir()
        let ours = Commitment.secret(roll: 111, nonce: ID128(high: 1, low: 2)), theirs = Commitment.secret(roll: 222, nonce: ID128(high: 3, low: 4))
        let theirCommitment = Commitment.make(roll: 222, nonce: ID128(high: 3, low: 4))
        let key = GameKey.make(Commitment.make(roll: 111, nonce: ID128(high: 1, low: 2)), theirCommitment)
        let expected = try #require(FirstMove.decide(ourSecret: ours, theirCommitment: theirCommitment, theirSecret: theirs))
        do {
            let state = DaemonState(path: dir)
            state.record([fact(.started(number: 1), key: key), fact(.committed(secret: ours, theirCommitment: theirCommitment, moveTime: 30), key: key)], us: ann)
            state.record(fact(.acknowledged(theirSecret: theirs), key: key), us: ann) // then killed: nothing more
        }
        let again = DaemonState(path: dir)
        let (restored, _) = again.resumable(limit: 10, rematchDelay: .seconds(3), makeRandom: { SystemRandomNumberGenerator() })
        let game = try #require(restored.first?.game)
        #expect(game.key == key && game.piece == (expected.weMoveFirst ? .o : .x))
        #expect(try again.store?.history().first?.weMovedFirst == expected.weMoveFirst)
        // Without the peer's secret the roll stays undecided, as before.
        let other = tempDir()
        do {
            let state = DaemonState(path: other)
            state.record(fact(.committed(secret: ours, theirCommitment: theirCommitment, moveTime: 30), key: key), us: ann)
        }
        let undecided = DaemonState(path: other)
        #expect(undecided.resumable(limit: 10, rematchDelay: .seconds(3), makeRandom: { SystemRandomNumberGenerator() }).unfinished.first?.game.key == nil)
        #expect(try undecided.store?.history().first?.weMovedFirst == nil)
    }

    /// A lost key file would give a new id: refused while the history keeps an unfinished game
    /// of the old one (only its key takes it up), said when it keeps only finished games.
    @Test func aMissingKeyFileIsRefusedWhileItsGamesWaitAndToldOtherwise() throws {
        let state = DaemonState(path: tempDir())
        try state.identityMissing("/nowhere/identity") // no history: nothing to say
        #expect(state.notices.isEmpty)
        let key = ID128(high: 7, low: 7)
        for f: GameFact in [.started(number: 1), .decided(weMoveFirst: true, key: key, moveTime: 0), .moved(number: 1, cell: 4, byUs: true),
                            .interrupted] {
            state.record(fact(f), us: ann)
        }
        #expect(throws: AppFailure.self) { try state.identityMissing("/nowhere/identity") }
        do {
            try state.identityMissing("/nowhere/identity")
        } catch {
            #expect(error.description.contains("1 unfinished game(s) played as \(ann.description.prefix(8))"), "\(error)")
        }
        state.record(fact(.ended(.won, how: .resigned)), us: ann)
        try state.identityMissing("/nowhere/identity")
        #expect(state.notices.count == 1 && state.notices[0].contains("a new id"), "\(state.notices)")
    }

    @Test func aSecondDaemonOnTheDirectoryIsToldAndKeepsNothing() {
        let dir = tempDir()
        let first = DaemonState(path: dir)
        let second = DaemonState(path: dir)
        #expect(first.directory != nil && second.directory == nil && second.store == nil)
        #expect(second.notices.count == 1 && second.notices[0].contains("in use by another tictac daemon"))
        #expect(second.notices[0].contains("--state-dir"))
    }

    @Test func aHistoryThatIsNotADatabaseIsLeftAloneAndPlayGoesOn() throws {
        let dir = tempDir()
        let junk = Array("not a database, but someone's file\n".utf8)
        let fd = open(dir + "/history.sqlite", O_WRONLY | O_CREAT, 0o600)
        #expect(write(fd, junk, junk.count) == junk.count)
        close(fd)
        let state = DaemonState(path: dir)
        #expect(state.store == nil && state.directory != nil) // the key is still kept
        #expect(state.notices.count == 1 && state.notices[0].hasPrefix("history off:"))
        state.record(fact(.started(number: 1)), us: ann) // nothing to write to: no crash
        var buffer = [UInt8](repeating: 0, count: 100)
        let rfd = open(dir + "/history.sqlite", O_RDONLY)
        let n = read(rfd, &buffer, buffer.count)
        close(rfd)
        #expect(Array(buffer.prefix(max(0, n))) == junk)
    }

    /// A fact that contradicts the stored ones (a writer's fault, not the file's) is told and
    /// left out; the history stays on and keeps the rest.
    @Test func aFactTheStoreRefusesIsToldAndLeftOutAndTheRestKept() throws {
        let state = DaemonState(path: tempDir())
        var said: [String] = []
        state.notify = { said.append($0) }
        state.record(fact(.decided(weMoveFirst: true, key: ID128(high: 7, low: 7), moveTime: 0)), us: ann)
        // Move 3 without moves 1 and 2: the store refuses it.
        state.record(fact(.moved(number: 3, cell: 1, byUs: true)), us: ann)
        state.record(fact(.moved(number: 1, cell: 2, byUs: true)), us: ann)
        state.close()
        #expect(said.count == 1 && said[0].contains("move 3 of game 1 after 0 stored") && said[0].hasSuffix("left out"), "\(said)")
        let games = try #require(try state.store?.history())
        #expect(games.count == 1 && games[0].moves.map(\.cell) == [2])
    }

    /// A store that cannot be written (here: another writer holds it) stops the folding; the
    /// turn after is refused (its frames stay unsent) and the history is off, said once. What
    /// the log holds reaches the store at the next start.
    @Test func turnsTheStoreCannotTakeWaitInTheLogForTheNextStart() throws {
        let dir = tempDir()
        var said: [String] = []
        do {
            let state = DaemonState(path: dir)
            state.notify = { said.append($0) }
            state.record(fact(.decided(weMoveFirst: true, key: ID128(high: 7, low: 7), moveTime: 0)), us: ann)
            state.close()
            let other = try GameStore(path: dir + "/history.sqlite")
            var kept: [Bool] = []
            try other.batch { () throws(StoreError) in // another writer's transaction, held past the busy timeout
                kept.append(state.record([fact(.moved(number: 1, cell: 4, byUs: true))], us: ann))
                state.close()
            }
            kept.append(state.record([fact(.moved(number: 2, cell: 0, byUs: false))], us: ann))
            kept.append(state.record([fact(.moved(number: 3, cell: 1, byUs: true))], us: ann))
            #expect(kept == [true, false, true], "the move logged is kept; the turn after the failure is not; then no history")
            #expect(said.count == 1 && said[0].hasPrefix("history off:") && said[0].contains("locked"), "\(said)")
            #expect(state.store == nil)
        }
        let again = DaemonState(path: dir) // the next start folds what the log kept
        #expect(again.notices.isEmpty, "\(again.notices)")
        #expect(try again.store?.history().first?.moves.map(\.cell) == [4])
    }

    @Test func historyTextNamesCellsAndJSONGivesEveryField() throws {
        let state = DaemonState(path: tempDir())
        for f: GameFact in [.decided(weMoveFirst: false, key: ID128(high: 7, low: 7), moveTime: 0), .moved(number: 1, cell: 0, byUs: false),
                            .moved(number: 2, cell: 8, byUs: true), .ended(.won, how: .time)] {
            state.record(fact(f), us: ann)
        }
        let g = try #require(try state.store?.history().first)
        let text = HistoryApp.text(g)
        #expect(text.contains("ben (00000000)") && text.contains("won (time)") && text.contains("you X, second"))
        #expect(text.hasSuffix("moves: a1 c3"))
        let json = HistoryApp.json(g).serialized
        #expect(json.contains(#""moves":[{"cell":"a1","by":"peer"},{"cell":"c3","by":"you"}]"#))
        #expect(json.contains(#""result":"won","ending":"time","youMovedFirst":false"#))
    }
}

extension DaemonStateTests {
    /// A match id is the inviter's alone: a peer that repeats one (or a seeded test peer that
    /// starts afresh) gets a new game each time, never another game's row.
    @Test func gamesAreKnownByTheirKeyNotTheInvitersMatchID() throws {
        let state = DaemonState(path: tempDir())
        for (i, key) in [ID128(high: 1, low: 9), ID128(high: 2, low: 9)].enumerated() {
            state.record(fact(.decided(weMoveFirst: true, key: key, moveTime: 0), key: key), us: ann)
            state.record(fact(.moved(number: 1, cell: i, byUs: true), key: key), us: ann)
            state.record(fact(.ended(.won, how: .resigned), key: key), us: ann)
        }
        let games = try #require(try state.store?.history())
        #expect(games.count == 2 && state.store != nil)
        #expect(games.map { $0.moves.map(\.cell) } == [[1], [0]])
    }
}
