import TicTacTime

/// How many handshakes a second the links we accept may start, per source address and per
/// network prefix (Protocol.md §5): each costs an X25519 agreement, a signature and a check,
/// so one host (or one /24) cannot make a daemon spend its time proving itself.
struct HandshakeBudget {
    private var byAddress = AddressBudget()
    private var byPrefix = AddressBudget()
    let perAddress: Int, perPrefix: Int

    init(perAddress: Int, perPrefix: Int) {
        self.perAddress = perAddress
        self.perPrefix = perPrefix
    }

    /// Counts a HELLO from `address`: nil when it may go on, else why not.
    mutating func refusal(_ address: String, now: Instant) -> String? {
        if perAddress > 0, !byAddress.count(address, now: now, limit: perAddress) {
            return "more than \(perAddress) handshakes in one second from \(address) (Protocol.md §5)"
        }
        let prefix = SourcePrefix.of(address)
        if perPrefix > 0, !byPrefix.count(prefix, now: now, limit: perPrefix) {
            return "more than \(perPrefix) handshakes in one second from \(prefix) (Protocol.md §5)"
        }
        return nil
    }
}
