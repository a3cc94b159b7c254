#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Bootstraps swift-log once per process from `LogSettings`.
enum LogSetup {
    /// Sends the log to the file (FileLogHandler) or to standard error. `screen`: standard error
    /// is the terminal a full-screen front draws on, so without a file nothing is logged there;
    /// returns a notice for the player when a log was asked for.
    @discardableResult
    static func bootstrap(_ settings: LogSettings, screen: Bool = false) throws(AppFailure) -> String? {
        var level = settings.level
        var notice: String?
        if let path = settings.file {
            guard let sink = FileLogHandler.Sink(path: path) else {
                throw AppFailure(.cantCreate, "cannot open --log-file \(path): \(String(cString: strerror(errno)))")
            }
            let chosen = level // the factory may run on any thread: it captures constants
            LoggingSystem.bootstrap { label in
                var handler = FileLogHandler(label: label, sink: sink)
                handler.logLevel = chosen
                return handler
            }
            return nil
        }
        if screen, isatty(STDERR_FILENO) == 1 {
            if level < .warning { notice = "The log has nowhere to go on this screen: use --log-file FILE (or 2>FILE)" }
            level = .critical // the screen is the game's
        }
        let chosen = level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = chosen
            return handler
        }
        return notice
    }
}
