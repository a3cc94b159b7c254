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
}
