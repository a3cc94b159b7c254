import TicTacTime
import TicTacWire

/// A sphere's colour, 8 bits per channel.
public struct RGB: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public var description: String { "\(red),\(green),\(blue)" }
}

/// Where a datagram comes from or goes to: an address (as `SocketAddress.ip` prints it) and a port.
public struct FieldEndpoint: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var address: String
    public var port: UInt16

    public init(address: String, port: UInt16) {
        self.address = address
        self.port = port
    }

    public static func < (a: Self, b: Self) -> Bool { (a.address, a.port) < (b.address, b.port) }

    public var description: String { address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)" }
}

/// What identifies a sphere: a participant's instance id, or for the original app's packet the
/// address and port it came from (Protocol.md §11). Ordered: participants by id, then originals,
/// which is the order spheres are drawn in.
public enum SphereKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    case peer(ID128)
    case original(FieldEndpoint)

    public static func < (a: Self, b: Self) -> Bool {
        switch (a, b) {
        case let (.peer(x), .peer(y)): x < y
        case let (.original(x), .original(y)): x < y
        case (.peer, .original): true
        case (.original, .peer): false
        }
    }

    /// The id as 32 hex digits, or the original's `address:port`.
    public var description: String {
        switch self {
        case let .peer(id): id.description
        case let .original(e): e.description
        }
    }
}

/// One sphere on the field, as it is shown.
public struct FieldSphere: Sendable, Equatable {
    public var key: SphereKey
    public var name: String
    /// Field coordinates, each in `Sphere.coordinates` (Protocol.md §11).
    public var x: Int32
    public var y: Int32
    public var color: RGB

    public init(key: SphereKey, name: String, x: Int32, y: Int32, color: RGB) {
        self.key = key
        self.name = name
        self.x = x
        self.y = y
        self.color = color
    }
}

/// Why a sphere left the field.
public enum SphereLeftReason: String, Sendable, Equatable {
    /// Its FIELD_LEAVE arrived: the participant quit.
    case left
    /// Nothing from it for the expiry (10 s): it crashed, or the network is gone.
    case timeout
}

/// What the front is told.
public enum FieldEvent: Sendable, Equatable {
    /// A sphere appeared (first accepted datagram).
    case joined(FieldSphere)
    /// Its position, colour or name changed (a heartbeat with the same state says nothing).
    case changed(FieldSphere)
    case left(SphereKey, name: String, reason: SphereLeftReason)
}

/// What the field's shell must do.
public enum FieldAction: Sendable, Equatable {
    /// Send one datagram from the field socket.
    case send([UInt8], to: FieldEndpoint)
    case event(FieldEvent)
}

/// Datagrams received, sent and dropped (Protocol.md §11's names), for logs, tests and the
/// front's status line.
public struct FieldCounters: Sendable, Equatable {
    public var received = 0
    public var sent = 0
    /// Beyond the per-source rate, or one original sphere too many.
    public var rateLimited = 0
    /// Not a SPHERE, FIELD_LEAVE or original packet that decodes.
    public var malformed = 0
    /// A valid message of another type.
    public var unexpected = 0
    /// Carries our own instance id.
    public var spoofedOwn = 0
    /// An id that is not a participant.
    public var unknownSender = 0
    /// A participant's id from an address or port the presence table does not give for it.
    public var wrongSource = 0
    /// A sequence not newer than the last accepted (duplicate or reordered).
    public var stale = 0

    public init() {}

    /// Every datagram dropped, for whatever reason.
    public var dropped: Int {
        rateLimited + malformed + unexpected + spoofedOwn + unknownSender + wrongSource + stale
    }
}

/// The field's timers and limits (Protocol.md §9 and §11).
public struct FieldConfig: Sendable {
    /// The last state is resent this long after the latest send.
    public var heartbeat: Duration = .seconds(1)
    /// A sphere goes this long after its last accepted datagram.
    public var expiry: Duration = .seconds(10)
    /// Smallest gap between two sends: 30 per second.
    public var minGap: Duration = .nanoseconds(33_333_334)
    /// A new state goes once more this long after it was sent, if nothing newer went meanwhile.
    public var repeatAfter: Duration = .milliseconds(250)
    /// A sphere silent this long accepts any sequence (its sender restarted).
    public var restartAfter: Duration = .seconds(3)
    /// How long a FIELD_LEAVE's sequence turns away older datagrams (sent before it, delivered
    /// after): on a LAN none is a second late, and after that a restart counting afresh shows.
    public var lateAfterLeave: Duration = .seconds(1)
    /// Per-source token bucket for received datagrams.
    public var receiveRate = 60
    public var receiveBurst = 60
    /// Sources whose buckets are remembered; beyond it idle ones are forgotten, then new ones dropped.
    public var maxSources = 1024
    /// Original-app spheres kept at once.
    public var maxOriginals = 16

    public init() {}
}

/// What the field core is told from outside.
public enum FieldInput: Sendable {
    /// Start sending our sphere (and its heartbeat).
    case start
    /// Say FIELD_LEAVE to everyone we sent to, and stop.
    case leave
    /// A participant's field endpoints, as presence knows them (port 0 or no address: gone).
    case participant(ID128, addresses: [String], port: UInt16)
    case participantGone(ID128)
    /// A datagram on the field's socket.
    case datagram([UInt8], from: FieldEndpoint)
}

/// What our player does with its sphere.
public enum SphereCommand: Sendable, Equatable {
    /// By this much, clamped to the field.
    case move(dx: Int32, dy: Int32)
    case moveTo(x: Int32, y: Int32)
    case setColor(RGB)
}
