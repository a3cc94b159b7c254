#if canImport(Glibc)
import Glibc
#endif
import TicTacDaemonCore

/// The key log (`--key-log FILE`, `TICTAC_KEYLOG`): each version-2 link's traffic keys appended
/// as one line (Protocol.md §12), so `tictac replay --key-log` can open a capture of it. The
/// keys read every frame of their link: the file is the owner's alone (mode 0600, made so if it
/// was wider), a regular file, never followed through a symbolic link.
final class KeyLogFile {
    private let fd: Int32

    /// Opens `path` for appending; a one-line reason when it cannot be used.
    init(path: String) throws(AppFailure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw AppFailure(.cantCreate, "cannot open the key log \(path): \(String(cString: strerror(errno)))") }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_uid == geteuid() else {
            close(fd)
            throw AppFailure(.cantCreate, "the key log \(path) is not a regular file of yours")
        }
        if st.st_mode & 0o077 != 0, fchmod(fd, 0o600) != 0 {
            close(fd)
            throw AppFailure(.cantCreate, "cannot make the key log \(path) yours alone (mode 0600): \(String(cString: strerror(errno)))")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// One line in one `write` (O_APPEND: lines of several daemons never interleave). A failed
    /// write loses the line and nothing else: the game goes on, that link is not readable later.
    func append(_ keys: LinkKeys) {
        let bytes = Array((keys.line + "\n").utf8)
        var n = -1
        repeat { n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } } while n < 0 && errno == EINTR
    }
}
