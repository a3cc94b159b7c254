import TicTacTime
import TicTacWire

/// The presence table's rows: a peer's entry and each source's view of it (DiscoveryCore merges them).
extension DiscoveryCore {
    /// One source's view of a peer.
    struct View: Equatable {
        var name: String
        /// Address -> when it was last heard there.
        var addresses: [String: Instant]
        var port: UInt16
        var fieldPort: UInt16
        var capabilities: Capabilities
        var versions: ClosedRange<UInt8>
        var state: PresenceState
        var updated: Instant
        /// Broadcast: three intervals after the last ANNOUNCE. DNS-SD: none.
        var expires: Instant?
        /// How long an address stays without being heard again (broadcast only).
        var addressLife: Duration?
        /// The signed ANNOUNCE this view holds, whole (a copy heard elsewhere is known by its
        /// bytes, not checked again); nil: unsigned.
        var signed: [UInt8]? = nil
        /// ANNOUNCE field 13 (broadcast only).
        var program: String? = nil
    }

    struct Entry {
        var views: [UInt8: View] = [:] // keyed by one PeerSources bit
        var shown: PresencePeer?
        /// The source address that first brought it by broadcast, and whether that ANNOUNCE was
        /// signed: the share it counts against (`maxPerSource`, `maxSignedPerSource`).
        var origin: String?
        var originSigned = false
        /// ANNOUNCEs accepted, and when the last was: eviction's order.
        var heard = 0
        var lastHeard = Instant(nanoseconds: 0)
        /// The newest signed timestamp accepted for this id.
        var stamp: UInt64?
        var isSigned: Bool { stamp != nil }
    }
}
