/// Protocol versions this build speaks (Protocol.md §4).
public enum ProtocolVersion {
    public static let supported: ClosedRange<UInt8> = 1...2
    public static let current: UInt8 = supported.upperBound
    /// The header version of a frame outside a negotiated link (UDP datagrams, a frame encoded
    /// without a version): 1, which every peer reads.
    public static let unnegotiated: UInt8 = 1

    /// The highest version both ranges contain, or nil when they do not overlap.
    public static func negotiate(local: ClosedRange<UInt8> = supported, remoteMin: UInt8, remoteMax: UInt8) -> UInt8? {
        guard remoteMin <= remoteMax else { return nil }
        let high = min(local.upperBound, remoteMax)
        return high >= max(local.lowerBound, remoteMin) ? high : nil
    }
}

/// What a daemon offers (HELLO and ANNOUNCE field). Unknown bits are kept and ignored.
public struct Capabilities: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Plays turn-based tic-tac-toe over TCP.
    public static let tictactoe = Capabilities(rawValue: 1 << 0)
    /// Takes part in the collaborative field over UDP.
    public static let field = Capabilities(rawValue: 1 << 1)
    /// A headless bot that accepts every invitation.
    public static let bot = Capabilities(rawValue: 1 << 2)
    /// Keeps a game whose link is lost and resumes it (RESUME, Protocol.md §13; version 2).
    public static let resume = Capabilities(rawValue: 1 << 3)
    /// Serves watchers of its games (WATCH, Protocol.md §14; version 2).
    public static let spectators = Capabilities(rawValue: 1 << 4)
    /// Keeps a roll whose link is lost and decides it from the secrets in RESUME (Protocol.md §13).
    public static let rollResume = Capabilities(rawValue: 1 << 5)
    /// Claims a game its peer left waiting past the adjourn limit, and answers claims (RESUME
    /// status 4-6, Protocol.md §13).
    public static let claims = Capabilities(rawValue: 1 << 6)
    /// Rolls without RESET and ROLL_ACK: ROLL_COMMIT opens a game, and each side decides on the
    /// peer's ROLL (Protocol.md §8).
    public static let quickRoll = Capabilities(rawValue: 1 << 7)
}

/// RESUME (Protocol.md §13): the sender's view of the interrupted game `key`.
public struct Resume: Sendable, Equatable {
    /// What the sender can do with the game.
    public enum Status: UInt8, Sendable {
        /// It holds the game and takes it up now.
        case ready = 0
        /// Its player resigned the game while the link was down.
        case resigned = 1
        /// It holds no such game (never had it, or it is over or void).
        case unknown = 2
        /// It holds the game but its player is in another one now: later.
        case busy = 3
        /// It waited past its adjourn limit while the peer stayed away: it claims the game.
        case claimed = 4
        /// The answer to a claim made while its player is in another game: the loss is its.
        case claimAccepted = 5
        /// The answer to a claim while its player is free (or claimed too): the game goes on.
        case claimRefused = 6
    }

    public var key: ID128
    /// Moves the sender holds.
    public var moves: UInt16
    /// `GameKey.digest` of those moves (32 bytes; zeros with `unknown`).
    public var digest: [UInt8]
    /// The last of them (absent with no moves).
    public var last: UInt16?
    public var status: Status
    /// The sender's roll secret (roll || nonce, 20 bytes, Protocol.md §8), given while the game
    /// has no move yet, so a side whose roll did not decide decides from it (§13).
    public var secret: [UInt8]?

    public static let digestLength = 32
    public static let secretLength = 20

    public init(key: ID128, moves: UInt16, digest: [UInt8], last: UInt16?, status: Status, secret: [UInt8]? = nil) {
        self.key = key
        self.moves = moves
        self.digest = digest
        self.last = last
        self.status = status
        self.secret = secret
    }
}

/// The handshake: first frame each side sends on a TCP connection (Protocol.md §4).
public struct Hello: Sendable, Equatable {
    /// An Ed25519 public key's length in bytes.
    public static let publicKeyLength = 32

    public var minVersion: UInt8
    public var maxVersion: UInt8
    /// Derived from `publicKey` (Protocol.md §4); the receiver checks it.
    public var instanceID: ID128
    public var name: DisplayName
    public var capabilities: Capabilities
    /// The sender's Ed25519 public key, `publicKeyLength` bytes.
    public var publicKey: [UInt8]
    /// Fresh random bytes for this connection: the peer's PROOF signs them.
    public var nonce: ID128
    /// Field 8, version 2: the sender's ephemeral X25519 public key for this connection
    /// (`ephemeralKeyLength` bytes); nil in a HELLO that offers only version 1.
    public var ephemeralKey: [UInt8]?
    /// An X25519 public key's length in bytes.
    public static let ephemeralKeyLength = 32
    /// Field 9, optional: the program playing under this name (an engine's "pbrain-tiny 1.0").
    public var program: DisplayName?

    /// Without `maxVersion`, as high as the fields allow: version 1 without an ephemeral key
    /// (version 2 needs field 8), else the highest this build speaks.
    public init(minVersion: UInt8 = ProtocolVersion.supported.lowerBound, maxVersion: UInt8? = nil,
                instanceID: ID128, name: DisplayName, capabilities: Capabilities,
                publicKey: [UInt8], nonce: ID128, ephemeralKey: [UInt8]? = nil, program: DisplayName? = nil) {
        self.ephemeralKey = ephemeralKey
        self.program = program
        self.minVersion = minVersion
        self.maxVersion = maxVersion ?? (ephemeralKey == nil ? 1 : ProtocolVersion.supported.upperBound)
        self.instanceID = instanceID
        self.name = name
        self.capabilities = capabilities
        self.publicKey = publicKey
        self.nonce = nonce
    }
}

/// An invitation to a match on a board of the given shape.
public struct Invite: Sendable, Equatable {
    public var gameID: ID128
    public var rows: UInt8
    public var cols: UInt8
    public var k: UInt8

    public init(gameID: ID128, rows: UInt8 = 3, cols: UInt8 = 3, k: UInt8 = 3) {
        self.gameID = gameID
        self.rows = rows
        self.cols = cols
        self.k = k
    }
}

/// Why an invitation was not taken.
public enum DeclineReason: UInt8, Sendable, Equatable {
    case declined = 0
    case busy = 1
    case noAnswer = 2
    case unsupported = 3
}

/// A daemon's discovery announcement (UDP, Protocol.md §7).
public struct Announce: Sendable, Equatable {
    public var instanceID: ID128
    public var name: DisplayName
    public var tcpPort: UInt16
    public var capabilities: Capabilities
    /// UDP port of the collaborative field, 0 when not taking part.
    public var fieldPort: UInt16
    /// 0 idle, 1 playing, 2 busy; a receiver reads any other value as busy.
    public var state: UInt8
    /// The protocol versions the sender speaks on TCP (as in HELLO).
    public var minVersion: UInt8
    public var maxVersion: UInt8
    /// The sender's announce interval in milliseconds: receivers expire it after three.
    public var intervalMillis: UInt16
    /// Field 13, optional: the program playing under this name (an engine's "pbrain-tiny 1.0").
    public var program: DisplayName?

    /// Interval limits: a shorter one would flood the LAN, a longer one keeps the dead too long.
    public static let intervalRange: ClosedRange<UInt16> = 100...60_000

    public init(instanceID: ID128, name: DisplayName, tcpPort: UInt16, capabilities: Capabilities,
                fieldPort: UInt16 = 0, state: UInt8 = 0, minVersion: UInt8 = ProtocolVersion.supported.lowerBound,
                maxVersion: UInt8 = ProtocolVersion.supported.upperBound, intervalMillis: UInt16 = 2000,
                program: DisplayName? = nil) {
        self.program = program
        self.instanceID = instanceID
        self.name = name
        self.tcpPort = tcpPort
        self.capabilities = capabilities
        self.fieldPort = fieldPort
        self.state = state
        self.minVersion = minVersion
        self.maxVersion = maxVersion
        self.intervalMillis = intervalMillis
    }
}

/// A sphere's full state in the collaborative field (UDP, Protocol.md §6 and §11). Every packet
/// carries the whole state, so a lost one is corrected by the next; `sequence` lets a receiver
/// drop reordered stale ones.
public struct Sphere: Sendable, Equatable {
    /// Both coordinates lie in this range: the field is a fixed square, whatever the screen
    /// (Protocol.md §11). x grows to the right, y downwards.
    public static let coordinates: ClosedRange<Int32> = 0...999
    /// A sphere's name is a display name of at most this many bytes (it keeps datagrams small).
    public static let maxNameBytes = 24

    public var instanceID: ID128
    public var sequence: UInt32
    public var x: Int32
    public var y: Int32
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    /// The participant's name, cut to `maxNameBytes` (see `shortName(_:)`).
    public var name: DisplayName

    public init(instanceID: ID128, sequence: UInt32, x: Int32, y: Int32, red: UInt8, green: UInt8, blue: UInt8,
                name: DisplayName) {
        self.instanceID = instanceID
        self.sequence = sequence
        self.x = x
        self.y = y
        self.red = red
        self.green = green
        self.blue = blue
        self.name = name
    }

    /// `name` cut between characters to at most `maxNameBytes` bytes, trailing white space
    /// removed; a name that would keep nothing visible becomes "?".
    public static func shortName(_ name: DisplayName) -> DisplayName {
        var used = 0
        var out = ""
        for c in name.value {
            let size = c.utf8.count
            guard used + size <= maxNameBytes else { break }
            used += size
            out.append(c)
        }
        while let last = out.unicodeScalars.last, last.properties.isWhitespace { out.unicodeScalars.removeLast() }
        return (try? DisplayName(out)) ?? DisplayName.placeholder
    }
}

extension DisplayName {
    /// "?": a name that is always valid.
    static let placeholder: DisplayName = {
        guard let n = try? DisplayName("?") else { preconditionFailure("\"?\" is a valid name") }
        return n
    }()
}

/// Every message of protocol version 1 (Protocol.md §6).
public enum Message: Sendable, Equatable {
    // Session (TCP)
    case hello(Hello)
    case error(code: UInt16, message: String)
    case ping(nonce: UInt64)
    case pong(nonce: UInt64)
    case leave
    /// The sender's Ed25519 signature over the handshake transcript (Protocol.md §4).
    case proof(signature: [UInt8])
    // Lobby (TCP)
    case invite(Invite)
    case accept(gameID: ID128)
    case decline(gameID: ID128, reason: DeclineReason)
    case cancel(gameID: ID128)
    // Game (TCP): the seed's Reset, DieRoll, Ack and Move, with a commitment before the roll.
    case reset
    /// `moveTime`: the seconds per move the sender's player asks for, 0 for none (§8, §9).
    case rollCommit(commitment: [UInt8], moveTime: UInt16 = 0)
    case roll(value: UInt32, nonce: ID128)
    case rollAck(value: UInt32)
    case move(cell: UInt16)
    case resign
    /// The sender's own move clock ran out: it gives up the game, as with RESIGN (§9).
    case timeUp
    /// Version 2: the sender's view of an interrupted game, after a new handshake (§13).
    case resume(Resume)
    // Spectators (TCP, version 2, Protocol.md §14): every one IGNORABLE.
    case watch(Watch)
    case watching(WatchedGame)
    /// A move of the followed game: its cell and its number in the game (1 for the first).
    case watchMove(cell: UInt16, number: UInt16)
    case watchEnd(WatchEnd)
    case watchStop(WatchStopReason)
    /// The games the sender plays now, for a watcher to pick one.
    case games([ListedGame])
    /// The sender's player allows watchers of its games on this link (true) or no longer (false);
    /// `watchers`: how many watchers the sender serves of the game on this link (field 2).
    case spectators(Bool, watchers: UInt16? = nil)
    // Discovery (UDP)
    case announce(Announce)
    case query(from: ID128)
    case goodbye(ID128)
    // Collaborative field (UDP)
    case sphere(Sphere)
    /// The sender leaves the field (Protocol.md §11): its sphere goes at once. `sequence` is the
    /// sender's next, so a SPHERE sent before it and delivered after it is stale.
    case fieldLeave(ID128, sequence: UInt32)

    /// Type codes on the wire.
    public enum Kind: UInt8, Sendable, CaseIterable {
        case hello = 0x01, error = 0x02, ping = 0x03, pong = 0x04, leave = 0x05, proof = 0x06
        case invite = 0x10, accept = 0x11, decline = 0x12, cancel = 0x13
        case reset = 0x20, rollCommit = 0x21, roll = 0x22, rollAck = 0x23, move = 0x24, resign = 0x25, timeUp = 0x26
        case resume = 0x28
        case watch = 0x29, watching = 0x2a, watchMove = 0x2b, watchEnd = 0x2c, watchStop = 0x2d, games = 0x2e, spectators = 0x2f
        case announce = 0x30, query = 0x31, goodbye = 0x32
        case sphere = 0x40, fieldLeave = 0x41

        /// True for messages that travel in UDP datagrams.
        public var isDatagram: Bool {
            switch self {
            case .announce, .query, .goodbye, .sphere, .fieldLeave: true
            default: false
            }
        }

        /// The spectators' messages (Protocol.md §14): sent with IGNORABLE, so a daemon without
        /// them skips them; on a version-1 link they are unknown types.
        public var isSpectating: Bool { (0x29...0x2f).contains(rawValue) }
    }

    /// The largest roll (the seed's 0...999,999).
    public static let maxRoll: UInt32 = 999_999
    /// The longest ERROR message text, in bytes.
    public static let maxErrorText = 256
    /// An Ed25519 signature's length in bytes (PROOF).
    public static let signatureLength = 64

    public var kind: Kind {
        switch self {
        case .hello: .hello
        case .error: .error
        case .ping: .ping
        case .pong: .pong
        case .leave: .leave
        case .proof: .proof
        case .invite: .invite
        case .accept: .accept
        case .decline: .decline
        case .cancel: .cancel
        case .reset: .reset
        case .rollCommit: .rollCommit
        case .roll: .roll
        case .rollAck: .rollAck
        case .move: .move
        case .resign: .resign
        case .timeUp: .timeUp
        case .resume: .resume
        case .watch: .watch
        case .watching: .watching
        case .watchMove: .watchMove
        case .watchEnd: .watchEnd
        case .watchStop: .watchStop
        case .games: .games
        case .spectators: .spectators
        case .announce: .announce
        case .query: .query
        case .goodbye: .goodbye
        case .sphere: .sphere
        case .fieldLeave: .fieldLeave
        }
    }
}
