import GRDB

/// How far the history's log is folded into the store (HistoryLog).
extension GameStore {
    /// The log generation the store expects and the offset after the last record folded from
    /// it; nil when no log was ever folded.
    public func logPosition() throws(StoreError) -> (generation: UInt64, offset: Int64)? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT generation, offset FROM logFolded").map { row in
                (UInt64(bitPattern: try row.decode(Int64.self, forColumn: "generation")), try row.decode(Int64.self, forColumn: "offset"))
            }
        }
    }

    /// Records how far the log is folded, in the same transaction as the facts folded (call it
    /// inside `batch`), or a new log's generation before that log replaces the old one.
    public func setLogPosition(generation: UInt64, offset: Int64) throws(StoreError) {
        try write { db in
            let update = try FastStatement(db, sql: "UPDATE logFolded SET generation = ?, offset = ?")
            try update.bind(.int(Int64(bitPattern: generation)), .int(offset))
            try update.run()
            if db.changesCount == 0 {
                let insert = try FastStatement(db, sql: "INSERT INTO logFolded (generation, offset) VALUES (?, ?)")
                try insert.bind(.int(Int64(bitPattern: generation)), .int(offset))
                try insert.run()
            }
        }
    }
}
