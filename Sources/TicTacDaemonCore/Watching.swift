import TicTacAPI
import TicTacTime
import TicTacWire

/// The watcher's side of Protocol.md §14: WATCH sent to a player's daemon (dialled first when
/// there is no link to it), and what comes back told to our front as `DaemonEvent.watched`.
/// Answers on a link we never asked on are a protocol fault.
final class Watching: MessagePart {
    private let links: LinkRegistry
    private let outbox: Outbox
    private let lobby: Lobby
    /// WATCHes waiting for a dial's link to be ready, by peer: what to send, and since when.
    private(set) var dialing: [ID128: (watch: Watch, at: Instant)] {
        get { dials }
        _modify { var all = takeOut(&dials); defer { dials = all }; yield &all }
    }
    // Read through a copy and changed while taken out (`takeOut`): no access to the stored property
    // spans a lookup's calls, so the compiler checks none at run time (docs/performance.md,
    // "Exclusivity"). Nothing a change calls reads it.
    private var dials: [ID128: (watch: Watch, at: Instant)] = [:]
    /// Links we sent WATCH on: their answers are read.
    private(set) var asked: Set<LinkID> = []

    init(links: LinkRegistry, outbox: Outbox, lobby: Lobby) {
        self.links = links
        self.outbox = outbox
        self.lobby = lobby
    }

    /// Sends `watch` to the peer named `who` (a name, an id or a prefix, as `invite` takes).
    func watch(_ who: String, _ watch: Watch, now: Instant) throws(CommandError) {
        let peer = try lobby.find(who)
        guard peer.capabilities.contains(.spectators) else { throw .noSpectators(peer.name) }
        if let link = links.links(to: peer.id).first(where: { $0.ready && $0.announced && !$0.closing }) {
            return send(watch, on: link)
        }
        guard !peer.addresses.isEmpty, let port = peer.port else { throw .noSuchPeer(who) }
        let waiting = dialing[peer.id] != nil
        dialing[peer.id] = (watch, now)
        if !waiting { outbox.append(.dial(peer.id, addresses: peer.addresses, port: port)) }
    }

    private func send(_ watch: Watch, on link: Link) {
        asked.insert(link.id)
        outbox.send(link, .watch(watch))
    }

    /// A link to `peer` is ready: a WATCH waiting for it goes out.
    func linkAnnounced(_ link: Link, _ peer: PeerInfo) {
        guard let (watch, _) = dialing.removeValue(forKey: peer.id) else { return }
        guard peer.capabilities.contains(.spectators) else {
            return outbox.emit(.watched(.stopped(.off), from: peer)) // its HELLO says it serves none
        }
        send(watch, on: link)
    }

    /// A dial for a WATCH failed.
    func dialFailed(_ peer: ID128, reason: String) {
        guard dialing.removeValue(forKey: peer) != nil else { return }
        outbox.emit(.connectFailed(peer.description, reason: reason))
    }

    /// When the oldest dial gives up.
    // Read at every reactor turn, and the list is nearly always empty: no array made to find it.
    var nextDeadline: Instant? {
        let all = dials
        guard !all.isEmpty else { return nil }
        var first: Instant?
        for (_, entry) in all { first = Instant.earliest(first, entry.at) }
        return first.map { $0 + DaemonCore.dialTimeout }
    }

    func timeouts(now: Instant) {
        for (peer, entry) in dialing where now >= entry.at + DaemonCore.dialTimeout {
            dialFailed(peer, reason: "no answer within \(DaemonCore.dialTimeout)")
        }
    }

    func linkGone(_ id: LinkID) { asked.remove(id) }

    let kinds: [Message.Kind] = [.watching, .watchMove, .watchEnd, .watchStop, .games]

    /// A spectators' message from the player's daemon.
    func received(_ message: Message, on link: Link, now: Instant) {
        guard asked.contains(link.id), let peer = link.peer else {
            return outbox.fail(link, .unexpectedMessage, "\(message.kind) without a WATCH")
        }
        let update: WatchUpdate
        switch message {
        case let .watching(g): update = .game(g)
        case let .watchMove(cell, number): update = .move(cell: Int(cell), number: Int(number))
        case let .watchEnd(e): update = .ended(e)
        case let .watchStop(reason): update = .stopped(reason)
        case let .games(list): update = .games(list)
        default: return
        }
        outbox.emit(.watched(update, from: peer))
    }
}
