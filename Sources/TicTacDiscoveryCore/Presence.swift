import TicTacTime
import TicTacWire

/// How a peer came to be known. A peer seen several ways carries every source it was seen by.
public struct PeerSources: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// UDP broadcast ANNOUNCE (Protocol.md §7).
    public static let broadcast = PeerSources(rawValue: 1 << 0)
    /// DNS-SD (`_tictactoe._tcp`, through Avahi).
    public static let dnssd = PeerSources(rawValue: 1 << 1)
    /// Named by the user (`--connect HOST:PORT`).
    public static let manual = PeerSources(rawValue: 1 << 2)
    /// DNS-SD `_spherenet._udp`: the collaborative field's service (Protocol.md §11).
    public static let fieldDNSSD = PeerSources(rawValue: 1 << 3)

    /// Names as the JSON contract spells them: "broadcast", "dns-sd" (either service), "manual".
    public var names: [String] {
        var out: [String] = []
        if contains(.broadcast) { out.append("broadcast") }
        if !isDisjoint(with: [.dnssd, .fieldDNSSD]) { out.append("dns-sd") }
        if contains(.manual) { out.append("manual") }
        return out
    }
}

/// What a peer says it is doing (ANNOUNCE field `state`, TXT key `st`).
public enum PresenceState: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// Free to play: invitations welcome.
    case idle = 0
    /// In a game; a human declines other invitations as busy.
    case playing = 1
    /// Not taking invitations (at its game limit, or answering another invitation).
    case busy = 2
    /// Its player let a move clock run out and has done nothing since: an invitation may go
    /// unanswered (older receivers read it as busy).
    case away = 3

    public var description: String {
        switch self {
        case .idle: "idle"
        case .playing: "playing"
        case .busy: "busy"
        case .away: "away"
        }
    }

    public init?(name: String) {
        switch name {
        case "idle": self = .idle
        case "playing": self = .playing
        case "busy": self = .busy
        case "away": self = .away
        default: return nil
        }
    }
}
