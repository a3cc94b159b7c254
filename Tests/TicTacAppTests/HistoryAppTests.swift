#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TicTacApp

/// `tictac history` on a state directory that is not one.
@Suite struct HistoryAppTests {
    /// A file given as --state-dir is an error (exit 66), not "No games recorded yet" and 0.
    @Test func aFileGivenAsTheStateDirectoryIsAnError() throws {
        let file = (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") + "/tictac-history-\(getpid())"
        #expect(creat(file, 0o600) >= 0)
        defer { unlink(file) }
        var config = HistoryConfiguration()
        config.stateDirectory = file
        var out: [String] = []
        #expect(throws: AppFailure.self) { try HistoryApp.run(config, write: { out.append($0) }) }
        do {
            try HistoryApp.run(config, write: { out.append($0) })
        } catch {
            #expect(error.kind == .noInput && error.description.contains("is not a directory"))
        }
        #expect(out.isEmpty)
        config.stateDirectory = file + "-absent"
        try HistoryApp.run(config, write: { out.append($0) })
        #expect(out.count == 1 && out[0].hasPrefix("No games recorded yet"), "a directory not made yet has no games")
    }
}
