import TicTacDiscoveryCore
import TicTacEngine
import TicTacWire

/// A peer in the lobby: seen on the LAN (discovery), connected to (a link that finished its
/// handshake), or both.
public struct PeerInfo: Sendable, Equatable, Hashable {
    public var id: ID128
    public var name: String
    /// Where it can be reached: every address discovery saw, else the one its link came from.
    public var addresses: [String]
    /// Its listening port, when known (announced, or we dialled it).
    public var port: UInt16?
    public var capabilities: Capabilities
    /// What it says it is doing (discovery); idle for a peer only known by its link.
    public var state: PresenceState
    /// How discovery knows it; empty for a peer only known by a link.
    public var via: PeerSources
    /// The program playing under its name, when it says (HELLO field 9, ANNOUNCE field 13).
    public var program: String?

    public init(id: ID128, name: String, addresses: [String], port: UInt16?, capabilities: Capabilities,
                state: PresenceState = .idle, via: PeerSources = [], program: String? = nil) {
        self.program = program
        self.id = id
        self.name = name
        self.addresses = addresses
        self.port = port
        self.capabilities = capabilities
        self.state = state
        self.via = via
    }

    public init(id: ID128, name: String, address: String, port: UInt16?, capabilities: Capabilities,
                program: String? = nil) {
        self.init(id: id, name: name, addresses: [address], port: port, capabilities: capabilities, program: program)
    }

    /// A player known only by its id and name: the opponent of a game with no network.
    public init(id: ID128, name: String) {
        self.init(id: id, name: name, addresses: [], port: nil, capabilities: [])
    }

    /// The address to show a person: the first (the one a link came from, or the most recently
    /// heard) that is not IPv6 link-local, which means nothing without its interface and reads
    /// worse than the IPv4 address discovery also saw; else the first. Dialling uses `addresses`.
    public var address: String { addresses.first { !Self.isLinkLocalIPv6($0) } ?? addresses.first ?? "" }

    /// fe80::/10, as text ("fe80::1%2").
    static func isLinkLocalIPv6(_ address: String) -> Bool {
        let a = address.lowercased()
        return a.contains(":") && ["fe8", "fe9", "fea", "feb"].contains { a.hasPrefix($0) }
    }
}
