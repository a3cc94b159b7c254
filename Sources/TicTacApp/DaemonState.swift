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
    private(set) var store: GameStore?
    /// Why the state directory could not be had (in use, or unusable), if so.
    private(set) var directoryError: StateDirectoryError?
    /// One line each for the player, about what could not be kept.
    private(set) var notices: [String] = []
    /// The store's row of each game in play, by its key.
    private var games: [ID128: Int64] = [:]
    /// Where later notices go (a store that fails mid-run).
    var notify: (String) -> Void = { _ in }

    /// Nothing kept: `--ephemeral`, `--seed`.
    init() {
        directory = nil
    }

    /// A history in `store` and no directory (tests: a store in memory).
    init(store: GameStore) {
        directory = nil
        self.store = store
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
        if fd >= 0 { close(fd) }
        do {
            store = try GameStore(path: directory.historyPath)
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
        for g in games {
            guard let key = g.key, let size = try? BoardSize(rows: g.rows, cols: g.cols, k: g.k) else { continue }
            let peer = PeerInfo(id: g.peerID, name: g.peerName, addresses: [], port: nil, capabilities: [.tictactoe, .resume])
            guard let first = g.weMovedFirst else {
                // A roll kept to decide (its link was lost before it did): rebuilt undecided.
                guard g.state != .finished, let secret = g.secret, let theirs = g.theirCommitment,
                      let session = try? GameSession(restoringRoll: size, secret: secret, theirCommitment: theirs,
                                                     moveTime: UInt16(clamping: g.moveTime), round: g.number,
                                                     score: scores[g.peerID] ?? Score(), rng: makeRandom(),
                                                     rematchDelay: rematchDelay), session.resumeKey == key else { continue }
                restored.append(RestoredGame(peer: peer, match: g.matchID, game: session))
                continue
            }
            // Our claim the peer has not answered yet is held as it was, offered until it is (§13).
            let ourClaim = g.state == .finished && g.ending == GameEnding.claimed.rawValue && g.result == .won
            if g.state == .finished, !ourClaim {
                // Ours to tell as a resignation: we resigned, our clock ran out, or two resignations crossed.
                let resigned = g.result == .lost && (g.ending == "resigned" || g.ending == "time") || g.ending == "crossed"
                let claim: EndedGame.Claim? = g.ending == GameEnding.claimed.rawValue ? .theirs : nil
                ends.append(RestoredEnd(peer: g.peerID, game: EndedGame(key: key, moves: g.moves.map(\.cell), weMovedFirst: first,
                                                                       resignedByUs: resigned, match: g.matchID, size: size,
                                                                       number: g.number, claim: claim)))
                continue
            }
            guard let session = try? GameSession(restoring: size, key: key, weMovedFirst: first, moves: g.moves.map(\.cell),
                                                 moveTime: UInt16(clamping: g.moveTime), round: g.number,
                                                 score: scores[g.peerID] ?? Score(), rng: makeRandom(),
                                                 rematchDelay: rematchDelay, secret: g.secret,
                                                 ask: UInt16(clamping: moveTime.components.seconds)) else { continue }
            restored.append(RestoredGame(peer: peer, match: g.matchID, game: session, claimed: ourClaim))
        }
        return (restored, ends)
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

    /// Stores a reactor turn's facts in one transaction; false when they could not be (the first
    /// failure turns the history off, said once, and the games they belong to stop unsent; later
    /// games play without a history, as the notice says).
    @discardableResult
    func record(_ facts: [GameFactRecord], us: ID128) -> Bool {
        guard let store else { return true }
        let now = Self.unixMillis()
        do throws(StoreError) {
            try store.batch { () throws(StoreError) in
                for r in facts { try write(r, us: us, now: now, to: store) }
            }
            return true
        } catch {
            fail(error)
            return false
        }
    }

    func record(_ r: GameFactRecord, us: ID128) { record([r], us: us) }

    private func write(_ r: GameFactRecord, us: ID128, now: Int64, to store: GameStore) throws(StoreError) {
        // A game gets its row when its roll decides (or when it ends first, by a forfeit): one
        // that stopped before has nothing to keep.
        if case .started = r.fact { return }
        let row: Int64
        if let key = r.key, let known = games[key] {
            row = known
        } else {
            row = try store.gameStarted(match: r.match, number: r.number, peer: r.peer, peerName: r.peerName,
                                        us: us, size: r.size, key: r.key, at: now)
            if let key = r.key { games[key] = row }
        }
        switch r.fact {
        case .started:
            break // returned above
        case let .committed(secret, theirCommitment, moveTime):
            try store.rollCommitted(game: row, secret: secret, theirCommitment: theirCommitment, moveTime: moveTime)
        case .forgotten:
            try store.forget(game: row)
        case .void:
            try store.gameEnded(game: row, state: .void, result: nil, ending: "void", at: now)
        case let .decided(weMoveFirst, key, moveTime):
            try store.firstMoveDecided(game: row, weMoveFirst: weMoveFirst, key: key, moveTime: moveTime)
        case let .moved(number, cell, byUs):
            try store.move(game: row, number: number, cell: cell, byUs: byUs, at: now)
        case let .ended(result, how):
            try store.gameEnded(game: row, state: .finished, result: result, ending: how.rawValue, at: now)
            if let key = r.key { games[key] = nil } // a crossing's later draw finds the row by its key
        case .interrupted:
            try store.gameEnded(game: row, state: .interrupted, result: nil, ending: nil, at: now)
        case .adjourned:
            try store.gameEnded(game: row, state: .adjourned, result: nil, ending: nil, at: now)
        }
        // Only games in play stay in the cache; one that stopped is found again by its key.
        switch r.fact {
        case .interrupted, .adjourned, .void, .forgotten: if let key = r.key { games[key] = nil }
        default: break
        }
    }

    private func fail(_ error: StoreError) {
        store = nil
        games = [:]
        notify("history off: \(error); play goes on without it")
    }

    static func unixMillis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
