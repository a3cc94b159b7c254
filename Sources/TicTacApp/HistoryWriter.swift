import TicTacDaemonCore
import TicTacEngine
import TicTacStore
import TicTacWire

/// Folds logged turns into the SQLite store: each fact as the rows it changes, and how far the
/// log is folded, in one transaction per batch. Owned by whoever folds (the start, then the
/// folding thread): its cache of games in play is nobody else's.
struct HistoryWriter {
    let store: GameStore
    /// The store's row of each game in play, by its key.
    private var games: [ID128: Int64] = [:]

    init(store: GameStore) { self.store = store }

    /// What the player is told of a fact the store refused.
    static func leftOut(_ refusal: StoreError) -> String { "history: \(refusal); that fact is left out" }

    /// Folds `turns` (each with the log offset after it) of the log of `generation` (nil: turns
    /// that were never logged, for a store in memory). A turn the
    /// store refuses (a fact that contradicts the stored ones) is left out and said in
    /// `refused`; any other failure folds nothing and is thrown (the log keeps the turns).
    mutating func fold(_ turns: [(turn: LoggedTurn, end: Int64)], generation: UInt64?) throws(StoreError) -> [StoreError] {
        guard let last = turns.last else { return [] }
        let cache = games
        do {
            try store.batch { () throws(StoreError) in
                for (turn, _) in turns { try write(turn) }
                if let generation { try store.setLogPosition(generation: generation, offset: last.end) }
            }
            return []
        } catch let error {
            games = cache // the rows it named were rolled back with it
            guard case .refused = error else { throw error }
        }
        // One turn at a time, to leave out only the refused ones.
        var refused: [StoreError] = []
        for (turn, end) in turns {
            let before = games
            do {
                try store.batch { () throws(StoreError) in
                    try write(turn)
                    if let generation { try store.setLogPosition(generation: generation, offset: end) }
                }
            } catch let error {
                games = before
                guard case .refused = error else { throw error }
                refused.append(error)
                if let generation { try store.setLogPosition(generation: generation, offset: end) }
            }
        }
        return refused
    }

    private mutating func write(_ turn: LoggedTurn) throws(StoreError) {
        for r in turn.facts { try write(r, us: turn.us, now: turn.at) }
    }

    private mutating func write(_ r: GameFactRecord, us: ID128, now: Int64) throws(StoreError) {
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
        case let .acknowledged(theirSecret):
            try store.rollAcknowledged(game: row, theirSecret: theirSecret)
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
}
