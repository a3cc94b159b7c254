import TicTacDiscoveryCore
import TicTacTime
import TicTacWire

/// Where the human player is: stored in LinkRegistry and moved only there, by `setActivity` (a
/// link's activity), a link's removal, `seatDialling`/`dialEnded` and `seatSuspended`/`suspensionEnded`. A human plays one game at a time and
/// answers one invitation at a time (Protocol.md §8, the lobby's states), so one value says it.
///
/// | seat      | event                                   | then                      |
/// |-----------|-----------------------------------------|---------------------------|
/// | idle      | invite a peer we have no link to        | dialling                  |
/// | dialling  | its link is ready: INVITE sent          | inviting                  |
/// | dialling  | it invites us first                     | playing                   |
/// | dialling  | the dial fails, times out, or cancel    | idle                      |
/// | idle      | INVITE sent / received                  | inviting / invited        |
/// | inviting  | ACCEPT / DECLINE, CANCEL, no answer     | playing / idle            |
/// | invited   | accept / decline, CANCEL, it lapses     | playing / idle            |
/// | playing   | leave, CANCEL, the link closes          | idle                      |
/// | any link  | the link closes (an invitation may move | idle (or the new link)    |
/// |           | to another link to the same peer)       |                           |
enum Seat: Equatable {
    case idle
    /// Our invitation waits for a dial to this peer to finish its handshake.
    case dialling(ID128, since: Instant)
    case inviting(LinkID)
    case invited(LinkID)
    case playing(LinkID)
    /// Our game with this peer lost its link and waits for it (Suspensions).
    case suspended(ID128)

    /// The link the seat is at.
    var link: LinkID? {
        switch self {
        case .idle, .dialling, .suspended: nil
        case let .inviting(id), let .invited(id), let .playing(id): id
        }
    }

    /// A link's activity changed: the seat goes where a busy link is, and leaves one gone idle.
    mutating func follow(_ id: LinkID, _ activity: Activity) {
        switch activity {
        case .inviting: self = .inviting(id)
        case .invited: self = .invited(id)
        case .playing: self = .playing(id)
        case .idle: if link == id { self = .idle }
        }
    }

    /// The seat's link is gone (its activity went with it, or moved on first).
    mutating func linkGone(_ id: LinkID) {
        if link == id { self = .idle }
    }

    /// What we announce (Protocol.md §6 ANNOUNCE field 6): playing, busy answering or awaiting
    /// an invitation, else idle.
    var presence: PresenceState {
        switch self {
        case .idle: .idle
        case .playing, .suspended: .playing
        case .dialling, .inviting, .invited: .busy
        }
    }
}
