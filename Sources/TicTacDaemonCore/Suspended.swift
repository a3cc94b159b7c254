import TicTacAPI
import TicTacTime
import TicTacWire

/// A game whose link was lost mid-game, kept to resume (Protocol.md §13).
final class Suspended {
    let peer: PeerInfo
    let match: Match
    /// When the resume window closes (the game is then adjourned); nil once adjourned.
    var until: Instant?
    /// Where the old link reached the peer, when we had dialled it (discovery may know more).
    let dialled: (address: String, port: UInt16)?
    /// The old link's remote address ("" for a game restored from the history): its share.
    let address: String
    /// When to dial the peer again while it is away.
    var nextDial: Instant
    /// Our RESUME went out on this link (the answer is awaited there).
    var offeredOn: LinkID?
    /// Our player resigned while that offer (ready) was out: the peer may be taking the game
    /// up, so the resignation goes through the game once it is (and apart if it is not).
    var resignWhenTaken = false
    /// We told the peer "busy" on this link: once our player is free we offer again there.
    var toldBusy: LinkID?
    /// When the game is claimed if the peer is still away (nil: set at the next timeout).
    var claimAt: Instant?
    /// Our player was busy (or an answer was awaited) when the limit passed: looked at again then.
    var claimRetry: Instant?
    /// We claimed it: our history holds it won, and RESUME offers the claim until answered.
    var claimed = false

    init(peer: PeerInfo, match: Match, until: Instant?, dialled: (address: String, port: UInt16)?, address: String, now: Instant) {
        self.peer = peer
        self.match = match
        self.until = until
        self.dialled = dialled
        self.address = address
        nextDial = now
    }
}
