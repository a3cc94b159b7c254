#if canImport(Glibc)
import Glibc
#endif

/// Where a daemon keeps what outlives it, its identity key and its history, in one directory:
/// `--state-dir`, else `$XDG_STATE_HOME/tictac`, else `~/.local/state/tictac` (created mode
/// 0700). One daemon at a time holds it, by an exclusive lock on its `lock` file that the kernel
/// drops when the process ends however it ends: a second daemon is told the directory is in use
/// rather than sharing the key silently.
public final class StateDirectory {
    public let path: String
    private let lockFD: Int32

    /// The identity key (IdentityFile's format).
    public var identityPath: String { path + "/identity" }
    /// The history database (TicTacStore).
    public var historyPath: String { path + "/history.sqlite" }
    /// The history's log (HistoryLog): turns written here first, folded into `historyPath`.
    public var historyLogPath: String { path + "/history.log" }

    /// The default directory for this environment, or nil when neither XDG_STATE_HOME nor HOME
    /// is set to an absolute path.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/tictac" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.local/state/tictac" }
        return nil
    }

    /// Opens (creating it and its parents, mode 0700) and locks the directory at `path`.
    public init(path: String) throws(StateDirectoryError) {
        guard !path.isEmpty else { throw .unusable(path, "no directory given") }
        self.path = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        try Self.makeDirectories(self.path)
        let lock = self.path + "/lock"
        let fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unusable(self.path, "cannot open \(lock): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let err = errno
            close(fd)
            if err == EWOULDBLOCK { throw .inUse(self.path) }
            throw .unusable(self.path, "cannot lock \(lock): \(String(cString: strerror(err)))")
        }
        lockFD = fd
    }

    deinit { close(lockFD) } // the lock goes with the descriptor

    private static func makeDirectories(_ path: String) throws(StateDirectoryError) {
        var dir = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            dir += "/" + part
            if part == "." || part == ".." { continue }
            if mkdir(dir, 0o700) != 0, errno != EEXIST {
                throw .unusable(path, "cannot create \(dir): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { throw .unusable(path, "not a directory") }
    }
}

/// Why the state directory cannot be used; one line for the user.
public enum StateDirectoryError: Error, Equatable, CustomStringConvertible {
    /// Another daemon of this user holds it.
    case inUse(String)
    case unusable(String, String)

    public var description: String {
        switch self {
        case let .inUse(path): "\(path) is in use by another tictac daemon"
        case let .unusable(path, why): "state directory \(path): \(why)"
        }
    }
}
