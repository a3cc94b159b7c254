/// Whether a connection the shell accepted is taken (Protocol.md §5, `busy`): at most
/// `maxPerAddress` open from one source address and `maxPerPrefix` (never below it) from one
/// network prefix (SourcePrefix), so one host cannot take every slot; at the shell's connection
/// limit room is made at the greediest source's expense (LinkRegistry.linkToDrop). An accepted
/// connection counts from `linkOpened` until the shell says it is gone (`connectionGone`).
struct Admission {
    var maxPerAddress = 32
    var maxPerPrefix = 1024
    private var perAddress: [String: Int] = [:]
    private var perPrefix: [String: Int] = [:]
    /// The source address of each counted connection.
    private var open: [LinkID: String] = [:]

    func verdict(for address: String, connections: Int, maxConnections: Int, links: LinkRegistry) -> AdmissionVerdict {
        if perAddress[address] ?? 0 >= maxPerAddress {
            return .refuse("too many connections from \(address) (at most \(maxPerAddress))")
        }
        let prefix = SourcePrefix.of(address)
        let prefixLimit = max(maxPerPrefix, maxPerAddress)
        if perPrefix[prefix] ?? 0 >= prefixLimit {
            return .refuse("too many connections from \(prefix) (at most \(prefixLimit))")
        }
        guard connections >= maxConnections else { return .accept }
        guard let idle = links.linkToDrop(forNewcomerFrom: address) else {
            return .refuse("at the connection limit (\(maxConnections))")
        }
        return .acceptDropping(idle)
    }

    mutating func opened(_ id: LinkID, from address: String) {
        open[id] = address
        perAddress[address, default: 0] += 1
        perPrefix[SourcePrefix.of(address), default: 0] += 1
    }

    mutating func gone(_ id: LinkID) {
        guard let address = open.removeValue(forKey: id) else { return }
        let n = perAddress[address] ?? 1
        perAddress[address] = n > 1 ? n - 1 : nil
        let prefix = SourcePrefix.of(address)
        let p = perPrefix[prefix] ?? 1
        perPrefix[prefix] = p > 1 ? p - 1 : nil
    }
}

/// What the shell does with a connection it accepted (`DaemonCore.admit`).
public enum AdmissionVerdict: Equatable, Sendable {
    case accept
    /// Make room first: drop this link with ERROR `busy` (`DaemonCore.dropForRoom`).
    case acceptDropping(LinkID)
    /// ERROR `busy` with this text, then close, before any HELLO.
    case refuse(String)
}
