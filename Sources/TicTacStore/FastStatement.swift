import GRDB
import GRDBSQLite

/// One of GRDB's cached statements, bound and stepped through SQLite's C API. A turn's writes
/// go through here: GRDB's generic argument and cursor machinery cost about as much CPU as
/// SQLite's own work for these one-row statements (perf during tools/bench/store). Only inside
/// a transaction GRDB began (its BEGIN and COMMIT keep its bookkeeping right); every SQLite
/// failure is a `DatabaseError`, as GRDB's own would be.
struct FastStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer?

    init(_ db: Database, sql: String) throws {
        handle = try db.cachedStatement(sql: sql).sqliteStatement
        connection = db.sqliteConnection
    }

    /// Binds `values` to the parameters 1, 2, ... in order (nil: NULL).
    func bind(_ values: FastValue?...) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let code: Int32
            switch value {
            case nil: code = sqlite3_bind_null(handle, index)
            case let .int(n)?: code = sqlite3_bind_int64(handle, index, n)
            case let .text(s)?: // its UTF-8 length, as GRDB binds it: a NUL inside does not cut it short
                code = sqlite3_bind_text(handle, index, s, Int32(clamping: s.utf8.count), Self.transient)
            }
            if code != SQLITE_OK { throw error(code) }
        }
    }

    /// Runs the statement to its end; the first row's first column as an integer, when there
    /// is a row (nil for a statement without rows, or a NULL).
    @discardableResult
    func run() throws -> Int64? {
        var first: Int64?
        var isFirst = true
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                sqlite3_reset(handle)
                throw error(code)
            }
            if isFirst, sqlite3_column_type(handle, 0) != SQLITE_NULL { first = sqlite3_column_int64(handle, 0) }
            isFirst = false
        }
        sqlite3_reset(handle)
        return first
    }

    private func error(_ code: Int32) -> DatabaseError {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
    }

    /// SQLite copies the text before the bind returns.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

/// A parameter of a `FastStatement`.
enum FastValue {
    case int(Int64)
    case text(String)

    static func number(_ n: Int) -> FastValue { .int(Int64(n)) }
    static func flag(_ b: Bool) -> FastValue { .int(b ? 1 : 0) }
}
