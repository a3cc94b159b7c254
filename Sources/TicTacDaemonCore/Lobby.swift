import TicTacAPI
import TicTacDiscoveryCore
import TicTacEngine
import TicTacTime
import TicTacWire

/// Who the player can invite: every peer discovery sees, merged with the peers our handshaken
/// links carry, one entry per instance id; and each present peer's running score. It tells the
/// player peer-found when a peer first appears by either way, peer-updated when what is shown of
/// it changes, peer-lost when neither is left.
final class Lobby {
    /// Peers discovery sees, by instance id (whether or not we have a link to them).
    private(set) var present: [ID128: PresencePeer] = [:]
    /// Each peer's running score from earlier matches: from the history when one is kept, else
    /// while some link to the peer remains.
    var scores: [ID128: Score]
    private let links: LinkRegistry
    private let outbox: Outbox

    init(links: LinkRegistry, outbox: Outbox, scores: [ID128: Score] = [:]) {
        self.scores = scores
        self.links = links
        self.outbox = outbox
    }

    /// Every peer discovery sees or a handshaken link carries, sorted by name.
    var peers: [PeerInfo] {
        var byID: [ID128: PeerInfo] = [:]
        for link in links.values where link.announced {
            if let p = link.peer, p.capabilities.listedInLobby { byID[p.id] = p }
        }
        for (id, p) in present { byID[id] = info(p, link: byID[id]) }
        return byID.values.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
    }

    /// Discovery saw a peer appear, change or go.
    func presence(_ event: DiscoveryEvent) {
        switch event {
        case let .found(p), let .updated(p):
            // The field hears of peers the lobby does not list from the presence table itself.
            guard p.capabilities.listedInLobby else { return presence(.lost(p, reason: "offers no tic-tac-toe")) }
            let known = present[p.id] != nil || linkedPeer(p.id) != nil
            present[p.id] = p
            let shown = info(p, link: linkedPeer(p.id))
            outbox.emit(known ? .peerUpdated(shown) : .peerFound(shown))
        case let .lost(p, reason):
            guard present.removeValue(forKey: p.id) != nil else { return }
            if let linked = linkedPeer(p.id) { return outbox.emit(.peerUpdated(linked)) } // the link still carries it
            outbox.emit(.peerLost(info(p, link: nil), reason: reason))
        }
    }

    /// A link to `peer` finished its handshake and is the one we use for it.
    func linkReady(_ peer: PeerInfo) {
        if let p = present[peer.id] {
            // Already listed by discovery; HELLO's capabilities may say more than it did.
            if info(p, link: peer) != info(p, link: nil) { outbox.emit(.peerUpdated(info(p, link: peer))) }
        } else if peer.capabilities.listedInLobby {
            outbox.emit(.peerFound(peer))
        } else {
            outbox.log("\(peer.name) at \(peer.address) offers no tic-tac-toe (capabilities \(peer.capabilities.rawValue)): not listed in the lobby")
        }
    }

    /// The last link to `peer` closed: it stays listed while discovery sees it.
    func linkGone(_ peer: PeerInfo, reason: String) {
        if let p = present[peer.id] { return outbox.emit(.peerUpdated(info(p, link: nil))) }
        if peer.capabilities.listedInLobby { outbox.emit(.peerLost(peer, reason: reason)) } // else never listed
    }

    /// A peer by name (case-insensitive), by id (32 hex digits), or by a unique id prefix of 4+.
    func find(_ text: String) throws(CommandError) -> PeerInfo {
        let all = peers
        let lower = text.lowercased()
        if let id = ID128(hex: lower), let p = all.first(where: { $0.id == id }) { return p }
        let byName = all.filter { $0.name.lowercased() == lower }
        if byName.count == 1 { return byName[0] }
        if byName.count > 1 { throw .ambiguous(text, byName) }
        if lower.count >= 4, lower.allSatisfy(\.isHexDigit) {
            let byPrefix = all.filter { $0.id.description.hasPrefix(lower) }
            if byPrefix.count == 1 { return byPrefix[0] }
            if byPrefix.count > 1 { throw .ambiguous(text, byPrefix) }
        }
        throw .noSuchPeer(text)
    }

    private func linkedPeer(_ id: ID128) -> PeerInfo? { links.announced(id)?.peer }

    /// A present peer as the lobby shows it; the link's capabilities (from HELLO) win, and
    /// over an unsigned sighting (a hint: version-1 ANNOUNCE, DNS-SD) its name and port too.
    private func info(_ p: PresencePeer, link: PeerInfo?) -> PeerInfo {
        let proven = p.signed ? nil : link
        return PeerInfo(id: p.id, name: proven?.name ?? p.name, addresses: p.addresses, port: proven == nil ? p.port : proven?.port,
                        capabilities: link?.capabilities ?? p.capabilities, state: p.state, via: p.via,
                        program: proven?.program ?? p.program ?? link?.program)
    }
}

extension Capabilities {
    /// The lobby lists only peers that offer tic-tac-toe (capability bit 0, Protocol.md §6
    /// ANNOUNCE; TXT `g=ttt`, §10), whether discovery or a link's HELLO tells.
    var listedInLobby: Bool { contains(.tictactoe) }
}
