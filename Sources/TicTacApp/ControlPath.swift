#if canImport(Glibc)
import Glibc
#endif
import TicTacDaemon

/// Where the daemon of a state directory serves its control socket (docs/control.md): in
/// `$XDG_RUNTIME_DIR/tictac/` (mode 0700), `control` for the default state directory and
/// `control-` and a hash of the directory's path for any other; without XDG_RUNTIME_DIR,
/// `control` in the state directory itself.
enum ControlPath {
    /// The socket for the state directory at `state` (nil: none can be found).
    static func socket(state: String?, environment: [String: String] = ControlPath.environment) -> String? {
        guard let state else { return nil }
        let resolved = realpath(state, nil).map { p in defer { free(p) }; return String(cString: p) } ?? state
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return resolved + "/control" }
        let defaultState = StateDirectory.defaultPath(environment: environment)
        let isDefault = defaultState.map { d in realpath(d, nil).map { p in defer { free(p) }; return String(cString: p) } ?? d } == resolved
        return runtime + "/tictac/" + (isDefault ? "control" : "control-" + hash(resolved))
    }

    /// Makes the socket's directory (0700) when it is the runtime one; the state directory
    /// already is. An error is one line for the user.
    static func prepare(_ socket: String) -> String? {
        guard let slash = socket.lastIndex(of: "/") else { return nil }
        let dir = String(socket[..<slash])
        guard dir.hasSuffix("/tictac") else { return nil }
        if mkdir(dir, 0o700) != 0, errno != EEXIST { return "cannot create \(dir): \(String(cString: strerror(errno)))" }
        var info = stat()
        guard lstat(dir, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else {
            return "\(dir) is not a directory of this user"
        }
        if info.st_mode & 0o077 != 0, chmod(dir, 0o700) != 0 { return "cannot make \(dir) private" }
        return nil
    }

    /// The paths the socket's name depends on.
    static var environment: [String: String] {
        var env: [String: String] = [:]
        for name in ["XDG_RUNTIME_DIR", "XDG_STATE_HOME", "HOME"] { env[name] = getenv(name).map { String(cString: $0) } }
        return env
    }

    /// FNV-1a, 64 bits, as 16 hex digits: a short stable name for a path (not a secret).
    static func hash(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
