import TicTacTime

/// The one reactor timer a sans-I/O core needs: `follow` it with the core's next deadline after
/// every change. A timer already set for no later than that deadline stays (if it fires early,
/// the core finds nothing due and the next `follow` sets it again): no cancel per change.
public final class DeadlineTimer {
    /// Runs when the deadline comes (the timer is unset by then: `follow` again afterwards).
    public var onFire: () -> Void = {}

    private let reactor: Reactor
    private var armed: (id: Reactor.TimerID, at: Instant)?

    public init(reactor: Reactor) { self.reactor = reactor }

    deinit { cancel() }

    /// Sets the timer for `next`; nil: no timer.
    public func follow(_ next: Instant?) {
        if let armed, let next, armed.at <= next { return }
        cancel()
        guard let next else { return }
        let id = reactor.schedule(at: next) { [weak self] in
            guard let self else { return }
            armed = nil
            onFire()
        }
        armed = (id, next)
    }

    /// No timer until the next `follow`.
    public func cancel() {
        if let armed { reactor.cancel(armed.id) }
        armed = nil
    }
}
