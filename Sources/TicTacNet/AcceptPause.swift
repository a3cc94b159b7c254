/// Out of descriptors or memory, accept() fails and leaves a listener's backlog readable: the
/// listener stops watching it for a moment rather than spin on it (TCPListener, UnixListener).
final class AcceptPause {
    private var paused = false

    /// Stops watching `fd` for 100 ms, then watches it again unless `closed()` says the listener
    /// closed meanwhile (the fd number may be another socket's by then).
    func pause(_ fd: Int32, on reactor: Reactor, closed: @escaping () -> Bool) {
        guard !paused else { return }
        paused = true
        try? reactor.update(fd, [])
        reactor.schedule(after: .milliseconds(100)) { [weak self, weak reactor] in
            guard let self, let reactor, !closed() else { return }
            paused = false
            try? reactor.update(fd, .read)
        }
    }
}
