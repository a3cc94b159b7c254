import TicTacDiscoveryCore

/// An agent that does nothing on its own: tests drive it with `emit(_:)` and read back what the
/// code under test asked of it.
public final class FakeDNSSDAgent: DNSSDAgent {
    public var onEvent: ((DNSSDEvent) -> Void)?
    /// The last `start` call's arguments, nil before `start` and after `stop`.
    public private(set) var published: (name: String, port: UInt16, txt: DNSSDTXT)?
    /// Every TXT passed to `update(txt:)` while started, in order.
    public private(set) var updates: [DNSSDTXT] = []

    /// A fake that is not started.
    public init() {}

    public func start(name: String, port: UInt16, txt: DNSSDTXT) {
        published = (name, port, txt)
        updates = []
    }

    public func update(txt: DNSSDTXT) {
        guard published != nil else { return }
        published?.txt = txt
        updates.append(txt)
    }

    public func stop() { published = nil }

    /// Delivers `event` as a real agent would; dropped while not started (none follow `stop`).
    public func emit(_ event: DNSSDEvent) {
        guard published != nil else { return }
        onEvent?(event)
    }
}
