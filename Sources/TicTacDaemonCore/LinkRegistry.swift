import TicTacTime
import TicTacWire

/// Every link by id, with an index by peer id (the id a HELLO claims, then proves), the human
/// player's seat and the number of games. Finding a peer's links is a lookup, not a scan.
final class LinkRegistry {
    private var byID: [LinkID: Link] = [:]
    /// Links by the peer id their HELLO named, oldest first (a peer has one or two at a time).
    private var byPeer: [ID128: [LinkID]] = [:]
    /// The link last looked up or added (a frame and its answer look the same one up in a row).
    private var last: Link?
    /// The human player's seat; a bot plays any number of games and keeps none (`tracksSeat`).
    /// Moved only by the methods of this file: a link's activity (`setActivity`), its removal,
    /// a dial, a game kept for a lost link.
    private(set) var seat = Seat.idle
    let tracksSeat: Bool
    /// Links carrying a match (closing ones included).
    var gameCount = 0
    /// Links by source address, with the address's prefix (SourcePrefix), and the number of
    /// links per prefix: kept as links come and go, so choosing whom to drop at the connection
    /// limit (`linkToDrop`) does not group every link each time.
    private var bySource: [String: (prefix: String, ids: Set<LinkID>)] = [:]
    private var perPrefix: [String: Int] = [:]

    init(tracksSeat: Bool) {
        self.tracksSeat = tracksSeat
    }

    // `byID` is read through a copy and changed while taken out (`takeOut`), so no access to it
    // spans a call: the compiler then proves every access exclusive and checks none at run time
    // (docs/performance.md, "Exclusivity").
    var values: Dictionary<LinkID, Link>.Values { let all = byID; return all.values }
    var count: Int { byID.count }
    /// Every id, in ascending order.
    var sortedIDs: [LinkID] { let all = byID; return all.keys.sorted() }

    subscript(id: LinkID) -> Link? {
        if let last, last.id == id { return last }
        let all = byID
        let link = all[id]
        if link != nil { last = link }
        return link
    }

    func insert(_ link: Link) {
        var all = takeOut(&byID)
        all[link.id] = link
        byID = all
        last = link
        let prefix = bySource[link.address]?.prefix ?? SourcePrefix.of(link.address)
        bySource[link.address, default: (prefix, [])].ids.insert(link.id)
        perPrefix[prefix, default: 0] += 1
    }

    /// Files `link` under the peer id its HELLO claims (it never changes after: the PROOF proves
    /// that same id).
    func bind(_ link: Link, to peer: ID128) {
        byPeer[peer, default: []].append(link.id)
    }

    /// The links from source `address` (§5's shares; §14's watchers per address).
    func ids(from address: String) -> Set<LinkID> { bySource[address]?.ids ?? [] }

    /// Every link whose HELLO named `peer`, oldest first.
    func links(to peer: ID128) -> [Link] {
        let all = byID
        return (byPeer[peer] ?? []).compactMap { all[$0] }
    }

    /// The announced (handshaken, in use) link to `peer`.
    func announced(_ peer: ID128) -> Link? {
        links(to: peer).first { $0.announced }
    }

    @discardableResult
    func remove(_ id: LinkID) -> Link? {
        if last?.id == id { last = nil }
        var all = takeOut(&byID)
        let removed = all.removeValue(forKey: id)
        byID = all
        guard let link = removed else { return nil }
        if let source = bySource[link.address] {
            var ids = source.ids
            ids.remove(id)
            bySource[link.address] = ids.isEmpty ? nil : (source.prefix, ids)
            let n = perPrefix[source.prefix] ?? 1
            perPrefix[source.prefix] = n > 1 ? n - 1 : nil
        }
        if let peer = link.peerID {
            byPeer[peer]?.removeAll { $0 == id }
            if byPeer[peer]?.isEmpty == true { byPeer[peer] = nil }
        }
        if link.match != nil { gameCount -= 1 }
        if tracksSeat { seat.linkGone(id) }
        return link
    }

    /// A link's activity changed (`setActivity`).
    func seatFollows(_ id: LinkID, _ activity: Activity) { if tracksSeat { seat.follow(id, activity) } }
    /// Our invitation to `peer` waits for a dial (Invitations).
    func seatDialling(_ peer: ID128, since: Instant) { if tracksSeat { seat = .dialling(peer, since: since) } }
    /// The dial to `peer` ended (its link is ready, it failed, or it was cancelled).
    func dialEnded(_ peer: ID128) { if case .dialling(peer, _) = seat { seat = .idle } }
    /// Our game with `peer` lost its link and waits for it (Suspensions).
    func seatSuspended(_ peer: ID128) { if tracksSeat { seat = .suspended(peer) } }
    /// The game with `peer` that waited is over or taken up on a link.
    func suspensionEnded(_ peer: ID128) { if seat == .suspended(peer) { seat = .idle } }

    /// The link the seat sits at, if it is not closing.
    var seatLink: Link? {
        guard let id = seat.link, let link = self[id], !link.closing else { return nil }
        return link
    }

    /// The link to drop to make room for a new connection (Protocol.md §5, `busy`): a stranger
    /// still in its handshake, oldest first, else the oldest ready link carrying no game and no
    /// invitation. Nil when every link is in use: refuse the newcomer.
    func idleLinkToDrop() -> LinkID? {
        let idle = values.filter { !$0.closing && $0.isIdle }
        let pick = idle.filter { !$0.ready }.min { ($0.openedAt, $0.id) < ($1.openedAt, $1.id) }
            ?? idle.filter { !$0.announced }.min { ($0.openedAt, $0.id) < ($1.openedAt, $1.id) }
            ?? idle.min { ($0.liveness.lastHeard, $0.id) < ($1.liveness.lastHeard, $1.id) }
        return pick?.id
    }

    /// The link to drop so a newcomer from `address` gets a place (Protocol.md §5, `busy`): one
    /// of the greediest source's, when that source holds at least two links more than the
    /// newcomer's would. Sources are compared by prefix (SourcePrefix), then, within the
    /// newcomer's own prefix, by address; from another prefix, its greediest address gives.
    /// From that address: a link without a game first, then the one heard from least recently. Else an idle stranger (`idleLinkToDrop`), else nil.
    func linkToDrop(forNewcomerFrom address: String) -> LinkID? {
        let prefix = bySource[address]?.prefix ?? SourcePrefix.of(address)
        let mine = perPrefix[prefix] ?? 0
        var from: String? // the address to drop from
        if let greedy = Self.greediest(perPrefix), greedy.key != prefix, greedy.value > mine + 1 {
            from = greediestAddress(in: greedy.key)
        } else if let greedy = greediestAddress(in: prefix), greedy != address,
                  let n = bySource[greedy]?.ids.count, n > (bySource[address]?.ids.count ?? 0) + 1 {
            from = greedy
        }
        let all = byID
        let group = (from.flatMap { bySource[$0]?.ids } ?? []).compactMap { all[$0] }.filter { !$0.closing }
        let pick = group.filter { $0.match == nil }.min { ($0.liveness.lastHeard, $0.id) < ($1.liveness.lastHeard, $1.id) }
            ?? group.min { ($0.liveness.lastHeard, $0.id) < ($1.liveness.lastHeard, $1.id) }
        return pick?.id ?? idleLinkToDrop()
    }

    /// The address in `prefix` with the most links (ties: the smaller, so the choice is reproducible).
    private func greediestAddress(in prefix: String) -> String? {
        var best: (address: String, count: Int)?
        for (address, source) in bySource where source.prefix == prefix {
            if let b = best, (b.count, address) >= (source.ids.count, b.address) { continue }
            best = (address, source.ids.count)
        }
        return best?.address
    }

    /// The prefix with the most links (ties: the smaller key).
    private static func greediest(_ counts: [String: Int]) -> (key: String, value: Int)? {
        counts.max { ($0.value, $1.key) < ($1.value, $0.key) }
    }

    /// For tests: how the stored seat disagrees with a scan of the links, or nil when it agrees
    /// (a human has at most one link that is not idle, and the seat is at it).
    func seatFault(dialing: [ID128: Instant]) -> String? {
        guard tracksSeat else { return nil }
        let busy = values.filter { !$0.isIdle }.map(\.id).sorted()
        guard busy.count <= 1 else { return "links \(busy) are all busy" }
        if busy.first != seat.link { return "seat \(seat), busy links \(busy)" }
        if let id = busy.first, let link = self[id] {
            switch (seat, link.activity) {
            case (.inviting, .inviting), (.invited, .invited), (.playing, .playing): break
            default: return "seat \(seat), link \(id) \(link.activity)"
            }
        }
        if case let .dialling(peer, _) = seat, dialing[peer] == nil { return "dialling \(peer), not in the dials" }
        return nil
    }
}
