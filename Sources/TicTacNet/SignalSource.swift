import CTicTacNet
#if canImport(Glibc)
import Glibc
#endif

/// Delivers signals through the reactor (a signalfd), so a handler runs as an ordinary event on
/// the loop thread and can do anything (send LEAVE, restore the terminal) safely.
public final class SignalSource {
    private let fd: Int32
    private let reactor: Reactor

    /// Blocks `signals` for normal delivery and calls `handler` with each one received.
    public init(reactor: Reactor, signals: [Int32], handler: @escaping (Int32) -> Void) throws(NetError) {
        self.reactor = reactor
        let fd = signals.withUnsafeBufferPointer { tictac_signalfd($0.baseAddress, Int32($0.count)) }
        guard fd >= 0 else { throw .last("signalfd") }
        self.fd = fd
        try reactor.register(fd, .read) { _ in
            var info = signalfd_siginfo()
            while read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                handler(Int32(info.ssi_signo))
            }
        }
    }

    /// Makes writes to a closed socket fail with EPIPE instead of killing the process.
    public static func ignoreBrokenPipe() { tictac_ignore_sigpipe() }

    deinit {
        reactor.unregister(fd)
        close(fd)
    }
}
