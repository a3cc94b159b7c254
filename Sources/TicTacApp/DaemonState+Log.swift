#if canImport(Glibc)
import Glibc
#endif
import TicTacStore

/// The history's log at the start of a run and when it has grown: what the last run left
/// unfolded goes into the store, then an empty log of a new generation takes its place.
extension DaemonState {
    /// Folds what the log at `path` holds past what `store` has folded (only a log of the
    /// generation the store names: any other was folded whole before it was replaced), then
    /// starts a new log and its folder. Returns them with what to tell the player.
    static func startLog(at path: String, store: GameStore) throws(StoreError) -> (HistoryLog, HistoryFolder, notices: [String]) {
        var notices: [String] = []
        var writer = HistoryWriter(store: store)
        if let contents = try HistoryLog.read(path: path), let position = try store.logPosition(),
           contents.generation == position.generation {
            var turns: [(turn: LoggedTurn, end: Int64)] = []
            var unreadable = 0
            for (payload, end) in contents.records where end > position.offset {
                if let turn = try? LoggedTurn(decoding: payload) { turns.append((turn, end)) } else { unreadable += 1 }
            }
            for refusal in try writer.fold(turns, generation: position.generation) {
                notices.append(HistoryWriter.leftOut(refusal))
            }
            if unreadable > 0 { notices.append("history: \(unreadable) record(s) of \(path) this tictac cannot read were left out") }
            if contents.tornBytes > 0 {
                notices.append("history: the last \(contents.tornBytes) bytes of \(path) were not a whole record (a write cut short): left out")
            }
        }
        let next = UInt64.random(in: 1...UInt64.max)
        try store.setLogPosition(generation: next, offset: Int64(HistoryLog.headerSize))
        let log = try HistoryLog.create(path: path, generation: next)
        return (log, HistoryFolder(writer: writer, generation: next, folded: Int64(HistoryLog.headerSize)), notices)
    }

    /// Replaces `log`, once all of it is folded, by an empty one of a new generation, named in
    /// the store first (so a crash between the two leaves a log the store knows to be folded).
    static func rotated(_ log: HistoryLog, _ folder: HistoryFolder) throws(StoreError) -> HistoryLog? {
        guard folder.failure == nil, folder.folded == log.end else { return nil }
        let next = UInt64.random(in: 1...UInt64.max)
        try folder.begin(next)
        return try HistoryLog.create(path: log.path, generation: next)
    }

    /// The store as a reader should see it: with the turns its log holds past what is folded
    /// (a daemon killed before its folding caught up, or folding now), folded into a copy in
    /// memory; the store itself when there are none. Nothing is written.
    static func readable(_ store: GameStore, logPath: String) -> GameStore {
        var info = stat()
        // Only a log longer than what is folded is read (up to 4 MiB, checked record by record).
        guard let position = try? store.logPosition(), stat(logPath, &info) == 0, Int64(info.st_size) > position.offset,
              let contents = try? HistoryLog.read(path: logPath),
              contents.generation == position.generation, let last = contents.records.last, last.end > position.offset,
              let copy = try? GameStore(copying: store), let copied = try? copy.logPosition() else { return store }
        // The copy is one snapshot: what it has folded is read from it, after it was taken.
        let turns = contents.records.filter { $0.end > copied.offset }.compactMap { record in
            (try? LoggedTurn(decoding: record.payload)).map { (turn: $0, end: record.end) }
        }
        var writer = HistoryWriter(store: copy)
        guard contents.generation == copied.generation, (try? writer.fold(turns, generation: nil)) != nil else { return store }
        return copy
    }
}
