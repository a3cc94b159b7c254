#if canImport(Glibc)
import Glibc
#endif
import TicTacAPI
import TicTacDaemon
import TicTacDaemonCore
import TicTacEngine
import TicTacStore
import TicTacWire

/// What a daemon keeps between runs: its state directory (held locked while it runs), the
/// identity key in it, and the game history. Every failure is a notice and a smaller daemon
/// (a throwaway id, or play without history), never the end of the start.
final class DaemonState {
    /// Held for the daemon's life: its lock keeps a second daemon out.
    let directory: StateDirectory?
    /// The history, with every turn written so far folded in (a read waits for the folding).
    var store: GameStore? {
        folder?.settle()
        return opened
    }
    private var opened: GameStore?
    /// Where each turn's facts go first (`history.log`), and what folds them into the store.
    /// Without them (a store in memory) the turns are written to the store directly.
    private var log: HistoryLog?
    private var folder: HistoryFolder?
    private var writer: HistoryWriter?
    /// Why the state directory could not be had (in use, or unusable), if so.
    private(set) var directoryError: StateDirectoryError?
    /// One line each for the player, about what could not be kept.
    private(set) var notices: [String] = []
    /// Where later notices go (a store that fails mid-run).
    var notify: (String) -> Void = { _ in }
    /// A log this long, all of it folded, is replaced by an empty one.
    var rotateAt: Int64 = 4 << 20

    /// Nothing kept: `--ephemeral`, `--seed`.
    init() {
        directory = nil
    }

    /// A history in `store` and no directory (tests: a store in memory).
    init(store: GameStore) {
        directory = nil
        opened = store
        writer = HistoryWriter(store: store)
    }

    /// Opens the state directory at `path` (`--state-dir` or the default) and its history.
    init(path: String?) {
        guard let path else {
            directory = nil
            notices.append("no state directory (neither XDG_STATE_HOME nor HOME is set): a throwaway id and no history")
            return
        }
        do {
            directory = try StateDirectory(path: path)
        } catch {
            directoryError = error
            directory = nil
            let advice = error == .inUse(path) ? "; give this one its own --state-dir to keep one" : ""
            notices.append("\(error): this daemon uses a throwaway id and keeps no history\(advice)")
            return
        }
        openStore()
    }

    private func openStore() {
        guard let directory else { return }
        // Created private before SQLite opens it (its journal files take the same mode).
        let fd = open(directory.historyPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd >= 0 { Glibc.close(fd) }
        do throws(StoreError) {
            let store = try GameStore(path: directory.historyPath)
            let started = try Self.startLog(at: directory.historyLogPath, store: store)
            (opened, log, folder) = (store, started.0, started.1)
            notices += started.notices
        } catch {
            notices.append("history off: \(error); play goes on without it")
        }
    }

    /// The key file at `path` is missing: a new one makes a new id. Refused while the history
    /// keeps unfinished games of another id (only that key can take them up with their peers);
    /// said in a notice when it keeps only finished ones.
    func identityMissing(_ path: String) throws(AppFailure) {
        guard let store, let ids = try? store.ourIDs(), let last = ids.first else { return }
        if let orphan = ids.first(where: { $0.unfinished > 0 }) {
            throw AppFailure(.config, "the identity file \(path) is missing, but the history keeps \(orphan.unfinished) unfinished "
                             + "game(s) played as \(orphan.id.description.prefix(8)), which only that key can take up with their "
                             + "peers: put the file back, or move \(directory?.historyPath ?? "the history") away to start anew")
        }
        notices.append("the identity file \(path) was missing: a new id (the history's \(ids.reduce(0) { $0 + $1.games }) "
                       + "game(s) were played as \(last.id.description.prefix(8)))")
    }

    /// What a restarted daemon takes up again, from one query: each peer's latest unfinished
    /// game, rebuilt paused (one that does not rebuild is skipped), and each peer's latest game
    /// when it finished, told to a peer that may have missed its end (Protocol.md §13).
    /// `moveTime`: what our player asks now (`--move-time`), for the resumed matches' next games.
    func resumable(limit: Int, rematchDelay: Duration, moveTime: Duration = .seconds(120),
                   makeRandom: () -> any RandomNumberGenerator) -> (unfinished: [RestoredGame], ends: [RestoredEnd]) {
        guard let store else { return ([], []) }
        let games: [GameRecord]
        do {
            games = try store.resumable(limit: limit)
        } catch {
            fail(error)
            return ([], [])
        }
        var restored: [RestoredGame] = []
        var ends: [RestoredEnd] = []
        let scores = scores()
        for var g in games {
            guard let key = g.key, let size = try? BoardSize(rows: g.rows, cols: g.cols, k: g.k) else { continue }
            if g.weMovedFirst == nil, let decided = decidedAtRestart(g, store: store) { g = decided }
            let peer = PeerInfo(id: g.peerID, name: g.peerName, addresses: [], port: nil, capabilities: [.tictactoe, .resume])
            guard let first = g.weMovedFirst else {
                // A roll kept to decide (its link was lost before it did): rebuilt undecided.
                guard g.state != .finished, let secret = g.secret, let theirs = g.theirCommitment,
                      let session = try? GameSession(restoringRoll: size, secret: secret, theirCommitment: theirs,
                                                     moveTime: UInt16(clamping: g.moveTime), key: key, round: g.number,
                                                     score: scores[g.peerID] ?? Score(), rng: makeRandom(),
                                                     rematchDelay: rematchDelay), session.resumeKey == key else { continue }
                restored.append(RestoredGame(peer: peer, match: g.matchID, game: session))
                continue
            }
            // A quick roll's secret goes with RESUME up to the first move (§13): only then is it asked.
            let quick = g.moves.count <= 1 && g.secret.flatMap { s in g.theirCommitment.map { GameKey.isQuick(key: key, secret: s, theirCommitment: $0) } } == true
            // Our claim the peer has not answered yet is held as it was, offered until it is (§13).
            let ourClaim = g.state == .finished && g.ending == GameEnding.claimed.rawValue && g.result == .won
            if g.state == .finished, !ourClaim {
                // Ours to tell as a resignation: we resigned, our clock ran out, or two resignations crossed.
                let resigned = g.result == .lost && (g.ending == "resigned" || g.ending == "time") || g.ending == "crossed"
                let claim: EndedGame.Claim? = g.ending == GameEnding.claimed.rawValue ? .theirs : nil
                ends.append(RestoredEnd(peer: g.peerID, game: EndedGame(key: key, moves: g.moves.map(\.cell), weMovedFirst: first,
                                                                       resignedByUs: resigned, match: g.matchID, size: size,
                                                                       number: g.number, claim: claim,
                                                                       secret: quick ? g.secret : nil)))
                continue
            }
            guard let session = try? GameSession(restoring: size, key: key, weMovedFirst: first, moves: g.moves.map(\.cell),
                                                 moveTime: UInt16(clamping: g.moveTime), round: g.number,
                                                 score: scores[g.peerID] ?? Score(), rng: makeRandom(),
                                                 rematchDelay: rematchDelay, secret: g.secret, quick: quick,
                                                 ask: UInt16(clamping: moveTime.components.seconds)) else { continue }
            restored.append(RestoredGame(peer: peer, match: g.matchID, game: session, claimed: ourClaim))
        }
        return (restored, ends)
    }

    /// A roll kept undecided whose peer's ROLL we had acknowledged: the peer may have decided on
    /// that ACK, and moved, so it is decided here too from both secrets (Protocol.md §13), and
    /// stored so; nil when it cannot be (a secret missing, or one that does not open its
    /// commitment: the roll stays as it was).
    private func decidedAtRestart(_ g: GameRecord, store: GameStore) -> GameRecord? {
        guard g.state != .finished, let secret = g.secret, let theirs = g.theirCommitment, let theirSecret = g.theirSecret,
              secret.count == Commitment.secretLength, theirSecret.count == Commitment.secretLength,
              let decision = FirstMove.decide(ourSecret: secret, theirCommitment: theirs, theirSecret: theirSecret) else { return nil }
        do {
            try store.firstMoveDecided(game: g.id, weMoveFirst: decision.weMoveFirst, key: g.key, moveTime: g.moveTime)
            return try store.game(g.id)
        } catch {
            fail(error)
            return nil
        }
    }

    /// Every opponent's score from the history (empty without one).
    func scores() -> [ID128: Score] {
        guard let store else { return [:] }
        do {
            return try store.scores()
        } catch {
            fail(error)
            return [:]
        }
    }

    /// Keeps a reactor turn's facts: one record appended to the log (folded into the store off the
    /// reactor), or one transaction in a store without a log. False when they could not be kept
    /// (the first failure turns the history off, said once, and the games they belong to stop
    /// unsent; later games play without a history, as the notice says).
    @discardableResult
    func record(_ facts: [GameFactRecord], us: ID128) -> Bool {
        guard opened != nil, facts.contains(where: { if case .started = $0.fact { false } else { true } }) else {
            return true // no history, or nothing a row keeps (a game gets its row when its roll decides)
        }
        let turn = LoggedTurn(us: us, at: Self.unixMillis(), facts: facts)
        do throws(StoreError) {
            if var log, let folder {
                // A store that failed (full, locked) turns the history off at the turn after: what
                // the log holds reaches it at the next start.
                if let failure = folder.failure { throw failure }
                if log.end >= rotateAt, let next = try Self.rotated(log, folder) { (self.log, log) = (next, next) }
                try log.append(turn.encoded())
                folder.fold(turn, end: log.end)
                for notice in folder.takeNotices() { notify(notice) }
            } else if var w = writer {
                writer = nil
                defer { writer = w }
                for refusal in try w.fold([(turn, 0)], generation: nil) { notify(HistoryWriter.leftOut(refusal)) }
            }
            return true
        } catch {
            fail(error)
            return false
        }
    }

    func record(_ r: GameFactRecord, us: ID128) { record([r], us: us) }

    /// Waits for the folding of every turn written (at the end of a run: `tictac history` then
    /// reads them all from the store).
    func close() {
        guard let folder else { return }
        folder.settle()
        for notice in folder.takeNotices() { notify(notice) }
    }

    private func fail(_ error: StoreError) {
        opened = nil
        log = nil
        folder = nil
        writer = nil
        notify("history off: \(error); play goes on without it")
    }

    static func unixMillis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
