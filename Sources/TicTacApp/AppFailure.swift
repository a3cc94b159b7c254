/// Why a command could not run, in one line ("what: why"); the executable turns the kind into
/// its exit status (a usage message for `.usage`, a sysexits status for the others).
public struct AppFailure: Error, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A value the options allowed but the situation does not (`--hotseat` off a terminal).
        case usage
        /// A `--connect` name that does not resolve.
        case noHost
        /// A port or socket that cannot be had.
        case unavailable
        /// Any other system error.
        case osErr
        /// A `--log-file` that cannot be opened.
        case cantCreate
        /// An `--identity` file that cannot be read or made.
        case config
        /// A capture that cannot be read.
        case noInput
        /// A capture that cannot be parsed.
        case dataErr
    }

    public let kind: Kind
    /// What failed and why, e.g. `cannot listen on TCP port 50000: bind ...`.
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// Runs `body`; its error becomes an `AppFailure` of `kind`, its line prefixed with `what`.
    static func attempt<T>(_ kind: Kind, _ what: String?, _ body: () throws -> T) throws(AppFailure) -> T {
        do {
            return try body()
        } catch let failure as AppFailure {
            throw failure
        } catch {
            throw AppFailure(kind, [what, String(describing: error)].compactMap { $0 }.joined(separator: ": "))
        }
    }
}
