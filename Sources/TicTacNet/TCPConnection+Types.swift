#if canImport(Glibc)
import Glibc
#endif

/// Why a connection ended.
public enum CloseReason: Sendable, Equatable, CustomStringConvertible {
    /// We closed it.
    case local
    /// The peer closed its side (EOF).
    case peerClosed
    /// A read, write or connect failed.
    case ioError(NetError)
    /// The bytes were not our protocol (the decoder's error, described); the owner was told
    /// through `onDecodeError` first.
    case protocolError(String)
    /// The peer stopped reading and our queue for it passed its bound.
    case writeQueueFull(Int)
    case connectTimeout

    public var description: String {
        switch self {
        case .local: "closed"
        case .peerClosed: "the peer closed the connection"
        case let .ioError(e): e.description
        case let .protocolError(text): text
        case let .writeQueueFull(n): "the peer stopped reading (\(n) bytes queued)"
        case .connectTimeout: "connection timed out"
        }
    }

    /// A connect that nothing answered at that address: refused (no listener) or no route to it.
    public var isRefused: Bool {
        guard case let .ioError(e) = self else { return false }
        return [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH].contains(e.errno)
    }
}

/// The bounds every TCPConnection keeps (a generic class cannot hold static stored properties).
public enum TCPLimits {
    /// Bytes allowed in the write queue before the connection is dropped.
    public static let defaultMaxQueuedBytes = 64 * 1024
    /// Bytes queued above which the connection stops reading.
    public static let defaultPauseReadingAbove = 16 * 1024
    /// The kernel's send buffer asked for (SO_SNDBUF; Linux doubles it). Without it Linux grows
    /// the buffer on its own up to `net.ipv4.tcp_wmem`'s maximum (4 MB): a peer that never read
    /// had megabytes of answers taken by the kernel, so our queue stayed short, reading never
    /// paused, and every PING it kept sending counted as life for seconds. With a small
    /// buffer our queue backs up after a few kilobytes, reading pauses, the peer is no longer
    /// heard, and the liveness limit drops it; the kernel's memory per link stays small too.
    /// Game frames are tens of bytes: 32 KB in flight is plenty.
    public static let sendBufferBytes: Int32 = 16 * 1024
    /// Bytes read per readiness, at most: what is left stays in the socket, and the loop (level
    /// triggered) comes back to it next turn, having served the other ready links. A turn's
    /// frames on a link are tens of bytes; a peer flooding small frames gets through at most
    /// this much a turn, so floods cannot hold a game's move up (docs/performance.md,
    /// tools/bench/hostility).
    public static let maxReadPerTurn = 1024
}

/// A connection's callbacks, in one value so closing drops them all at once.
struct Handlers<Message, Failure> {
    var connected: (() -> Void)?
    var message: ((Message) -> Void)?
    var decodeError: ((Failure) -> Void)?
    var close: ((CloseReason) -> Void)?
    var read: ((UnsafeBufferPointer<UInt8>) -> Void)?
    var write: ((UnsafeRawBufferPointer) -> Void)?
}
