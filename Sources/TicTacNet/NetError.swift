#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: which one and its errno, with the system's message.
public struct NetError: Error, Sendable, Equatable, CustomStringConvertible {
    public let operation: String
    public let errno: Int32

    public init(_ operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    /// The error of the call that just failed (reads the thread's errno).
    public static func last(_ operation: String) -> NetError { NetError(operation, errno: Glibc.errno) }

    public var description: String { "\(operation): \(String(cString: strerror(errno))) (errno \(errno))" }
}
