import TicTacDaemonCore

/// Accepted connections per source address and per network prefix (SourcePrefix), for the
/// shares of Protocol.md §5.
struct SourceCounts {
    private var perAddress: [String: Int] = [:]
    private var perPrefix: [String: Int] = [:]

    /// Connections from `address`.
    func links(from address: String) -> Int { perAddress[address] ?? 0 }
    /// Connections from addresses in `prefix`.
    func links(inPrefix prefix: String) -> Int { perPrefix[prefix] ?? 0 }

    mutating func add(_ address: String) {
        perAddress[address, default: 0] += 1
        perPrefix[SourcePrefix.of(address), default: 0] += 1
    }

    mutating func remove(_ address: String) {
        let n = perAddress[address] ?? 1
        perAddress[address] = n > 1 ? n - 1 : nil
        let prefix = SourcePrefix.of(address)
        let p = perPrefix[prefix] ?? 1
        perPrefix[prefix] = p > 1 ? p - 1 : nil
    }
}
