#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TicTacDaemon

/// The state directory: where it is by default, created private, held by one daemon at a time.
@Suite struct StateDirectoryTests {
    func scratch() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tictac-state-\(UUID().uuidString)").path
    }

    @Test func theDefaultFollowsXDGThenHome() {
        #expect(StateDirectory.defaultPath(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s/tictac")
        #expect(StateDirectory.defaultPath(environment: ["HOME": "/h"]) == "/h/.local/state/tictac")
        #expect(StateDirectory.defaultPath(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"]) == "/h/.local/state/tictac")
        #expect(StateDirectory.defaultPath(environment: [:]) == nil)
    }

    @Test func itIsCreatedWithItsParentsPrivate() throws {
        let root = scratch()
        let state = try StateDirectory(path: root + "/a/b/tictac")
        var info = stat()
        #expect(stat(state.path, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(state.identityPath == root + "/a/b/tictac/identity")
    }

    @Test func aSecondDaemonIsToldItIsInUseUntilTheFirstLets() throws {
        let path = scratch()
        var first: StateDirectory? = try StateDirectory(path: path)
        #expect(throws: StateDirectoryError.inUse(path)) { try StateDirectory(path: path) }
        _ = first
        first = nil
        _ = try StateDirectory(path: path) // free once the first is gone
    }

    @Test func aFileWhereTheDirectoryShouldBeIsRefused() throws {
        let path = scratch()
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        #expect(throws: StateDirectoryError.self) { try StateDirectory(path: path) }
    }
}
