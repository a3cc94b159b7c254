import TicTacAPI
import TicTacTime
import TicTacWire

/// A part that owns a message set of its own, as Spectators and Watching own Protocol.md §14's.
/// DaemonCore lists each such part once (`messageParts`) and does the rest through this: it
/// routes the set's messages to the part and tells it of links, failed dials and time. So a new
/// message set is its codec (TicTacWire) and one part. The core's own sets (handshake, lobby,
/// invitations, games, resumes) stay explicit in DaemonCore: their order across parts matters.
protocol MessagePart: AnyObject {
    /// The kinds it takes on a ready link (no other part or core set takes them).
    var kinds: [Message.Kind] { get }
    func received(_ message: Message, on link: Link, now: Instant)
    /// The peer's PROOF verified on `link`: every such link, a duplicate one too, before the
    /// duplicates are settled.
    func linkProven(_ link: Link)
    /// `link` became the announced link of a peer that arrived (not of an heir taking over).
    func linkAnnounced(_ link: Link, _ peer: PeerInfo)
    func linkGone(_ id: LinkID)
    /// A dial the part asked for (`DaemonAction.dial`) did not end in a link.
    func dialFailed(_ peer: ID128, reason: String)
    /// When `timeouts` next has work.
    var nextDeadline: Instant? { get }
    func timeouts(now: Instant)
}

extension MessagePart {
    func linkProven(_ link: Link) {}
    func linkAnnounced(_ link: Link, _ peer: PeerInfo) {}
    func linkGone(_ id: LinkID) {}
    func dialFailed(_ peer: ID128, reason: String) {}
    var nextDeadline: Instant? { nil }
    func timeouts(now: Instant) {}
}

/// The message parts, and which takes each kind.
struct MessageParts {
    let all: [any MessagePart]
    private let byKind: [Message.Kind: any MessagePart]

    init(_ parts: [any MessagePart]) {
        all = parts
        var byKind: [Message.Kind: any MessagePart] = [:]
        for part in parts {
            for kind in part.kinds {
                precondition(byKind[kind] == nil, "two parts take \(kind)") // our own list, at start
                byKind[kind] = part
            }
        }
        self.byKind = byKind
    }

    func part(for kind: Message.Kind) -> (any MessagePart)? { byKind[kind] }

    var nextDeadline: Instant? {
        var next: Instant?
        for part in all { next = Instant.earliest(next, part.nextDeadline) }
        return next
    }
}
