#if canImport(Glibc)
import Glibc
#endif
import TicTacDaemonCore
import TicTacDiscoveryCore

/// The `--identity FILE` key file: the 32-byte Ed25519 private key as 64 hex digits on one line
/// (white space around them is ignored). Kept so a restarted daemon keeps its instance id.
public enum IdentityFile {
    /// Larger files are refused before they are read whole.
    static let maxBytes = 4096

    /// Loads the key from `path`, or creates the file (mode 0600, missing directories 0700) with a
    /// fresh key from `rng` when there is none. Every failure is one line for the user.
    public static func loadOrCreate<R: RandomNumberGenerator>(path: String, using rng: inout R) throws(IdentityError) -> Identity {
        guard !path.isEmpty else { throw IdentityError("--identity needs a file name") }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let err = errno
            guard err == ENOENT else { throw failure("cannot read identity file", path, err) }
            return try create(path: path, using: &rng)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read identity file", path, errno)
            }
            if n == 0 { break }
            bytes += buffer[0..<n]
            guard bytes.count <= maxBytes else { throw IdentityError("identity file \(path) is too large to be a key") }
        }
        return try parse(bytes, path: path)
    }

    /// The key in `bytes` (the file's contents).
    static func parse(_ bytes: [UInt8], path: String) throws(IdentityError) -> Identity {
        let text = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
        guard text.utf8.count == 2 * Identity.privateKeyLength, text.allSatisfy(\.isHexDigit) else {
            throw IdentityError("identity file \(path) does not hold a key: expected \(2 * Identity.privateKeyLength) hex digits")
        }
        var key: [UInt8] = []
        var i = text.startIndex
        while i < text.endIndex {
            let j = text.index(i, offsetBy: 2)
            guard let byte = UInt8(text[i..<j], radix: 16) else { throw IdentityError("identity file \(path): bad hex") }
            key.append(byte)
            i = j
        }
        return try Identity(privateKey: key)
    }

    /// The file's contents for a key: 64 lower-case hex digits and a newline.
    public static func contents(of identity: Identity) -> String {
        identity.privateKey.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + "\n"
    }

    private static func create<R: RandomNumberGenerator>(path: String, using rng: inout R) throws(IdentityError) -> Identity {
        try makeParents(of: path)
        let identity = Identity(using: &rng)
        // O_EXCL: never overwrite a key another process wrote in the meantime.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("cannot create identity file", path, errno) }
        defer { close(fd) }
        let bytes = Array(contents(of: identity).utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let err = errno
                unlink(path) // no half-written key left behind for the next start
                throw failure("cannot write identity file", path, err)
            }
            written += n
        }
        return identity
    }

    /// Creates the missing directories above `path` (mode 0700: the key is private).
    private static func makeParents(of path: String) throws(IdentityError) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        var dir = ""
        for (i, part) in parts.enumerated() {
            dir += (i == 0 ? "" : "/") + part
            guard !part.isEmpty, part != ".", part != ".." else { continue }
            if mkdir(dir, 0o700) != 0, errno != EEXIST { throw failure("cannot create directory", dir, errno) }
        }
    }

    private static func failure(_ what: String, _ path: String, _ err: Int32) -> IdentityError {
        IdentityError("\(what) \(path): \(String(cString: strerror(err)))")
    }
}
