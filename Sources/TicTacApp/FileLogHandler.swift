#if canImport(Glibc)
import Glibc
#endif
import Logging

/// A swift-log handler that appends each message to a file (`--log-file`), one line in one
/// `write`, in the format of swift-log's StreamLogHandler. The file is opened once and shared by
/// every logger.
public struct FileLogHandler: LogHandler {
    /// The open file; closed when the last handler using it goes.
    public final class Sink: Sendable {
        let fd: Int32

        /// Opens `path` for appending (created with mode 0600); nil with errno set on failure.
        public init?(path: String) {
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return nil }
            self.fd = fd
        }

        deinit { close(fd) }

        func write(_ line: String) {
            var bytes = Array(line.utf8)[...]
            while !bytes.isEmpty {
                let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return } // a full disk: the line is lost, the program goes on
                bytes = bytes.dropFirst(n)
            }
        }
    }

    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let sink: Sink

    public init(label: String, sink: Sink) {
        self.label = label
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { _, new in new } }
        if let explicit = event.metadata { all.merge(explicit) { _, new in new } }
        let pretty = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let name = label.isEmpty ? "" : " " + label
        sink.write("\(Self.timestamp()) \(event.level)\(name):\(pretty) [\(event.source)] \(event.message)\n")
    }

    /// Local time as ISO 8601 with the zone offset, as StreamLogHandler writes it.
    private static func timestamp() -> String {
        var now = time(nil)
        var local = tm()
        guard localtime_r(&now, &local) != nil else { return "<unknown>" }
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
