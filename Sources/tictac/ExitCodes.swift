import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import TicTacApp

/// Exit statuses of <sysexits.h> for failures while running (usage errors exit 64, EX_USAGE).
enum SysExit: Int32 {
    case dataErr = 65, noInput = 66, noHost = 68, unavailable = 69, osErr = 71, cantCreate = 73, config = 78

    init?(_ kind: AppFailure.Kind) {
        switch kind {
        case .usage: return nil
        case .noHost: self = .noHost
        case .unavailable: self = .unavailable
        case .osErr: self = .osErr
        case .cantCreate: self = .cantCreate
        case .config: self = .config
        case .noInput: self = .noInput
        case .dataErr: self = .dataErr
        }
    }
}

/// Runs `body`; a failure is not a usage mistake: one line on standard error ("tictac: what:
/// why"), no usage text, and its sysexits status. A `.usage` failure is a usage message (64).
func failing<T>(_ body: () throws(AppFailure) -> T) throws -> T {
    do {
        return try body()
    } catch {
        guard let status = SysExit(error.kind) else { throw ValidationError(error.description) }
        let bytes = Array("tictac: \(error.description)\n".utf8)
        _ = write(STDERR_FILENO, bytes, bytes.count)
        throw ExitCode(status.rawValue)
    }
}

/// Runs a command to its end; its exit status (130 after Ctrl-C: RunnerLifecycle) becomes the
/// process's.
func finish(_ body: @autoclosure () throws(AppFailure) -> Int32) throws {
    let status = try failing(body)
    if status != 0 { throw ExitCode(status) }
}
