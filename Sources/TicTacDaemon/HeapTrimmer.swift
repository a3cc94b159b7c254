import CTicTacNet
import Glibc
import TicTacNet

/// Gives freed heap memory back to the system after a burst of link closes: glibc keeps it for
/// reuse, so after a flood the daemon's RSS stayed at its peak (docs/performance.md).
final class HeapTrimmer {
    private let reactor: Reactor
    private let afterCloses: Int
    private let interval: Duration
    private var closes = 0
    private var scheduled = false

    /// Trims `interval` after the `afterCloses`-th close since the last trim (so a burst has
    /// time to end), at most once per `interval`.
    init(reactor: Reactor, afterCloses: Int = 256, interval: Duration = .seconds(5)) {
        self.reactor = reactor
        self.afterCloses = afterCloses
        self.interval = interval
    }

    /// A link closed.
    func linkClosed() {
        closes += 1
        guard closes >= afterCloses, !scheduled else { return }
        scheduled = true
        reactor.schedule(after: interval) { [weak self] in
            guard let self else { return }
            scheduled = false
            closes = 0
            _ = malloc_trim(0)
        }
    }
}
