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
    var seat = Seat.idle
    let tracksSeat: Bool
    /// Links carrying a match (closing ones included).
    var gameCount = 0

    init(tracksSeat: Bool) {
        self.tracksSeat = tracksSeat
    }

    var values: Dictionary<LinkID, Link>.Values { byID.values }
    var count: Int { byID.count }
    /// Every id, in ascending order.
    var sortedIDs: [LinkID] { byID.keys.sorted() }

    subscript(id: LinkID) -> Link? {
        if let last, last.id == id { return last }
        let link = byID[id]
        if link != nil { last = link }
        return link
    }

    func insert(_ link: Link) {
        byID[link.id] = link
        last = link
    }

    /// Files `link` under the peer id its HELLO claims (it never changes after: the PROOF proves
    /// that same id).
    func bind(_ link: Link, to peer: ID128) {
        byPeer[peer, default: []].append(link.id)
    }

    /// Every link whose HELLO named `peer`, oldest first.
    func links(to peer: ID128) -> [Link] {
        (byPeer[peer] ?? []).compactMap { byID[$0] }
    }

    /// The announced (handshaken, in use) link to `peer`.
    func announced(_ peer: ID128) -> Link? {
        links(to: peer).first { $0.announced }
    }

    @discardableResult
    func remove(_ id: LinkID) -> Link? {
        if last?.id == id { last = nil }
        guard let link = byID.removeValue(forKey: id) else { return nil }
        if let peer = link.peerID {
            byPeer[peer]?.removeAll { $0 == id }
            if byPeer[peer]?.isEmpty == true { byPeer[peer] = nil }
        }
        if link.match != nil { gameCount -= 1 }
        if tracksSeat { seat.linkGone(id) }
        return link
    }

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
            ?? idle.min { ($0.lastHeard, $0.id) < ($1.lastHeard, $1.id) }
        return pick?.id
    }

    /// The link to drop so a newcomer from `address` gets a place (Protocol.md §5, `busy`): one
    /// of the greediest source's, when that source holds at least two links more than the
    /// newcomer's would. Sources are compared by prefix (SourcePrefix), then, within the
    /// newcomer's own prefix, by address; from another prefix, its greediest address gives.
    /// From that address: a link without a game first, then the one heard from least recently. Else an idle stranger (`idleLinkToDrop`), else nil.
    func linkToDrop(forNewcomerFrom address: String) -> LinkID? {
        let open = values.filter { !$0.closing }
        let prefix = SourcePrefix.of(address)
        let byPrefix = Dictionary(grouping: open) { SourcePrefix.of($0.address) }
        var group: [Link] = []
        if let greedy = Self.greediest(byPrefix), greedy.key != prefix, greedy.value.count > (byPrefix[prefix]?.count ?? 0) + 1 {
            group = Self.greediest(Dictionary(grouping: greedy.value, by: \.address))?.value ?? []
        } else if let mine = byPrefix[prefix] {
            let byAddress = Dictionary(grouping: mine, by: \.address)
            if let greedy = Self.greediest(byAddress), greedy.key != address,
               greedy.value.count > (byAddress[address]?.count ?? 0) + 1 {
                group = greedy.value
            }
        }
        let pick = group.filter { $0.match == nil }.min { ($0.lastHeard, $0.id) < ($1.lastHeard, $1.id) }
            ?? group.min { ($0.lastHeard, $0.id) < ($1.lastHeard, $1.id) }
        return pick?.id ?? idleLinkToDrop()
    }

    /// The source with the most links (ties: the smaller key, so the choice is reproducible).
    private static func greediest(_ groups: [String: [Link]]) -> (key: String, value: [Link])? {
        groups.max { ($0.value.count, $1.key) < ($1.value.count, $0.key) }
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
