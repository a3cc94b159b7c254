import TicTacNet
import TicTacTime
import TicTacDaemonCore
import TicTacDiscoveryCore

/// What the raw-bytes tap of one link saw (`Daemon.tap`): the bytes exactly as the socket
/// moved them, before decoding and after encoding. With the daemon's seed this is everything a
/// replay needs: the received bytes are the core's inputs, the sent bytes what it must produce.
public enum LinkTapEvent: Sendable, Equatable {
    /// The connection is up (we dialled it, or accepted it from `remote`).
    case opened(outgoing: Bool, remote: SocketAddress)
    /// Bytes read from the socket.
    case received([UInt8])
    /// Bytes the socket took.
    case sent([UInt8])
    /// The connection is gone, and why.
    case closed(String)
}
