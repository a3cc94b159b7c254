import GRDB

/// Why the store cannot be used. Each says in one line what is wrong and what was kept: the
/// file is never emptied or replaced, and play goes on without history.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file exists and is not an SQLite database.
    case notADatabase(String)
    /// The file was written by a newer tictac (migrations this build does not know).
    case newerSchema(String, unknown: [String])
    /// Another process holds the database locked.
    case locked(String)
    /// The disk (or the database's size limit) is full.
    case full(String)
    /// The history's log exists and is not one (HistoryLog).
    case notALog(String)
    /// A fact that contradicts what is stored (a move under a number already taken, or after a
    /// gap): a fault of the writer, not of the file; the fact is left out and the rest kept.
    case refused(String, message: String)
    /// Any other failure of SQLite or the file system, with SQLite's message.
    case failed(String, message: String)

    public var description: String {
        switch self {
        case let .notADatabase(path): "\(path) is not a tictac history database (left as it is)"
        case let .newerSchema(path, unknown): "\(path) was written by a newer tictac (\(unknown.sorted().joined(separator: ", "))): left as it is"
        case let .locked(path): "\(path) is locked by another process"
        case let .full(path): "no room left to write \(path)"
        case let .notALog(path): "\(path) is not a tictac history log (left as it is)"
        case let .refused(path, message): "\(path) refused a fact: \(message)"
        case let .failed(path, message): "\(path): \(message)"
        }
    }

    /// Maps an error thrown by GRDB or SQLite for the database at `path`.
    static func from(_ error: any Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let db = error as? DatabaseError else { return .failed(path, message: "\(error)") }
        switch db.resultCode.primaryResultCode {
        case .SQLITE_NOTADB: return .notADatabase(path)
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .locked(path)
        case .SQLITE_FULL: return .full(path)
        case .SQLITE_CONSTRAINT: return .refused(path, message: db.message ?? "\(db.resultCode)")
        default: return .failed(path, message: db.message ?? "\(db.resultCode)")
        }
    }
}
