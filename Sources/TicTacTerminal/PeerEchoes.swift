import TicTacAPI
import TicTacWire

/// What plain mode last said of each peer, so that a `peer-updated` is printed only when
/// something it shows changed: the daemon also reports changes plain mode does not show (a
/// field port, the order of the addresses, a link coming or going), and those printed as
/// identical lines. Also tells which listed peer is an earlier instance of a new one.
package struct PeerEchoes {
    let style: OutputFormatter.Style
    /// By id: the peer as last said, and the order it was first found in.
    private var said: [ID128: (peer: PeerInfo, found: Int)] = [:]
    private var found = 0

    package init(style: OutputFormatter.Style) { self.style = style }

    /// The fields a line of this style shows: JSON all of them (addresses in any order), text
    /// the name, the address and the state.
    private func shown(_ p: PeerInfo) -> [String] {
        switch style {
        case .json: [p.name, p.addresses.sorted().joined(separator: " "), p.port.map { String($0) } ?? "-",
                     p.state.description, p.via.names.joined(separator: " "), p.program ?? ""]
        case .text: [p.name, p.address, p.state.description, p.kindNote]
        }
    }

    /// Takes note of `event`; false when it would say nothing new (a peer-updated with nothing
    /// shown changed).
    package mutating func admit(_ event: DaemonEvent) -> Bool {
        switch event {
        case let .peerFound(p):
            remember(p)
        case let .peerUpdated(p):
            if let last = said[p.id], shown(last.peer) == shown(p) { return false }
            remember(p)
        case let .peerLost(p, _):
            said[p.id] = nil
        case let .peers(list):
            for p in list { remember(p) }
        default:
            break
        }
        return true
    }

    private mutating func remember(_ p: PeerInfo) {
        if let known = said[p.id] { return said[p.id] = (p, known.found) }
        found += 1
        said[p.id] = (p, found)
    }

    /// Listed peers found before `p` with its name at its address: a daemon restarted with a
    /// new id (`--ephemeral`) whose old entry has not expired yet, or a second one started there.
    package func earlierInstances(of p: PeerInfo) -> [PeerInfo] {
        guard let mine = said[p.id]?.found else { return [] }
        return said.values.filter { $0.found < mine && $0.peer.id != p.id && $0.peer.name == p.name && $0.peer.address == p.address }
            .sorted { $0.found < $1.found }.map(\.peer)
    }

    /// The text line's note on a peer just found, when an earlier instance is still listed.
    package func earlierNote(for p: PeerInfo) -> String? {
        let earlier = earlierInstances(of: p)
        guard !earlier.isEmpty else { return nil }
        let ids = earlier.map { String($0.id.description.prefix(8)) }.joined(separator: ", ")
        return "an earlier instance of \(p.name) at this address (\(ids)) is still listed until it expires"
    }
}
