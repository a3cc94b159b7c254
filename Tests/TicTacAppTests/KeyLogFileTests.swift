#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TicTacApp
import TicTacDaemonCore

/// The key log file (`--key-log`, `TICTAC_KEYLOG`): the owner's alone, appended a line at a time,
/// never followed through a symbolic link.
@Suite struct KeyLogFileTests {
    static let keys = LinkKeys(diallerEphemeralKey: Array(repeating: 1, count: 32), diallerToAcceptor: Array(repeating: 2, count: 32),
                               acceptorToDialler: Array(repeating: 3, count: 32))

    func directory() -> String {
        var template = Array("/tmp/tictac-keylog-XXXXXX".utf8CString)
        return String(cString: mkdtemp(&template))
    }

    func mode(_ path: String) -> mode_t {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o777 : 0
    }

    @Test func aNewFileIsTheOwnersAloneAndHoldsOneLinePerLink() throws {
        let path = directory() + "/keys"
        let file = try KeyLogFile(path: path)
        file.append(Self.keys)
        file.append(Self.keys)
        #expect(mode(path) == 0o600)
        let text = String(decoding: try readAll(path), as: UTF8.self)
        #expect(text == Self.keys.line + "\n" + Self.keys.line + "\n")
        #expect(KeyLog(text: text).links.count == 1)
    }

    @Test func aWiderFileIsMadeTheOwnersAloneAndKeepsWhatItHeld() throws {
        let path = directory() + "/keys"
        let fd = open(path, O_WRONLY | O_CREAT, 0o644)
        _ = write(fd, "# other tools' lines\n", 21)
        close(fd)
        chmod(path, 0o644)
        let file = try KeyLogFile(path: path)
        file.append(Self.keys)
        #expect(mode(path) == 0o600)
        #expect(String(decoding: try readAll(path), as: UTF8.self) == "# other tools' lines\n" + Self.keys.line + "\n")
    }

    @Test func aSymbolicLinkOrADirectoryIsRefused() throws {
        let dir = directory()
        #expect(symlink(dir + "/elsewhere", dir + "/link") == 0)
        #expect(throws: AppFailure.self) { try KeyLogFile(path: dir + "/link") }
        #expect(access(dir + "/elsewhere", F_OK) != 0) // nothing made through the link
        #expect(throws: AppFailure.self) { try KeyLogFile(path: dir) }
    }

    private func readAll(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var out: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { return out }
            out += buffer[..<n]
        }
    }
}
