import TicTacAPI
import TicTacTime
import TicTacWire

/// A link's session layer (Protocol.md §4): where its handshake is, the peer it proved, and the
/// keys that seal every frame after it. A value held by its Link; Handshake.swift writes it.
struct LinkSession {
    /// Our HELLO's nonce: the peer's PROOF must sign it (Protocol.md §4).
    let nonce: ID128
    /// Our HELLO's ephemeral key (version 2 offered); dropped once the session keys are made.
    var ephemeral: EphemeralKey?
    /// Its public half, which both PROOFs sign.
    let ourEphemeralKey: [UInt8]?
    /// Version 2: the keys made when the peer's HELLO came, in use once the link is ready.
    var pendingCipher: LinkCipher?
    /// Version 2, ready: every frame either way is sealed with it (Protocol.md §4).
    var cipher: LinkCipher?
    var handshake: HandshakeState = .awaitingHello {
        // The fields every frame reads are kept beside the enum, so no frame copies the peer out.
        didSet {
            switch handshake {
            case .awaitingHello:
                (peer, version, ready, announced) = (nil, nil, false, false)
                (provenID, claimedID) = (nil, nil)
            case let .awaitingProof(hello, v, _):
                (peer, version, ready, announced) = (nil, v, false, false)
                (provenID, claimedID) = (nil, hello.instanceID)
            case let .ready(p, v, a):
                (peer, version, ready, announced) = (p, v, true, a)
                (provenID, claimedID) = (p.id, nil)
            }
        }
    }
    /// The proven peer: only once ready.
    private(set) var peer: PeerInfo?
    /// Negotiated from the two HELLOs; every later frame carries it.
    private(set) var version: UInt8?
    /// The peer's PROOF verified (and, on the accepting side, ours went out).
    private(set) var ready = false
    /// peer-found was told for this link: it is the one we use for this peer.
    private(set) var announced = false
    /// The proven peer's id once ready, else nil.
    private(set) var provenID: ID128?
    /// The id the HELLO claims, awaiting its PROOF.
    private(set) var claimedID: ID128?

    init(nonce: ID128, ephemeral: EphemeralKey?) {
        self.nonce = nonce
        self.ephemeral = ephemeral
        ourEphemeralKey = ephemeral?.publicKey
    }

    /// The peer's HELLO, held until its PROOF verifies.
    var peerHello: Hello? { if case let .awaitingProof(hello, _, _) = handshake { hello } else { nil } }
    /// The instance id the peer claims (awaiting its PROOF) or proved (ready).
    var peerID: ID128? { provenID ?? claimedID }
    /// The announced link to this peer closed while this one awaited the PROOF: it takes over.
    var heir: PeerInfo? { if case let .awaitingProof(_, _, heir) = handshake { heir } else { nil } }

    /// The link we use for its peer from now on (peer-found was told, or it took over).
    mutating func announce() {
        guard case let .ready(peer, version, _) = handshake else { return }
        handshake = .ready(peer, version: version, announced: true)
    }

    /// It takes over from `peer`'s announced link that closed, once its PROOF verifies.
    mutating func inherit(_ peer: PeerInfo) {
        guard case let .awaitingProof(hello, version, _) = handshake else { return }
        handshake = .awaitingProof(hello, version: version, heir: peer)
    }
}

/// When a link was last heard and pinged, and when it next needs the timer (LinkDeadlines).
struct LinkLiveness {
    var lastHeard: Instant
    var lastPing: Instant?
    /// When the link next needs the timer (`LinkDeadlines.deadline(of:)`), as last computed.
    var deadline: Instant?
    /// The link's entry in the deadline heap: never later than `deadline` (other entries of
    /// the link are stale). A deadline that moves later (every frame heard moves it) keeps
    /// the entry; the timer then comes early, once, and the entry moves to the real deadline.
    var heapAt: Instant?
}

/// A link's flood bounds: what the peer sent within the current second, and RESUMEs heard.
struct LinkFloods {
    /// PINGs (`DaemonConfig.maxPingsPerSecond`).
    var pings = RateWindow()
    /// Invitations of the peer's we declined (`maxDeclinesPerLinkPerSecond`).
    var declines = RateWindow()
    /// WATCHes (Spectators, Protocol.md §14).
    var watches = RateWindow()
    /// SPECTATORS notices (Protocol.md §14).
    var spectatorNotices = RateWindow()
    /// RESUMEs heard on the link (Suspensions bounds them).
    var resumesHeard = 0
}

/// What each side of a link chose about watchers of the games on it (Protocol.md §14).
struct WatchChoice {
    /// The peer's player allows watchers, as its last SPECTATORS said; nil: as its HELLO's
    /// `spectators` bit says.
    var peer: Bool?
    /// What the peer was last told of our player's choice (our HELLO's bit, then SPECTATORS);
    /// nil: the peer is not told (not a player, or a version-1 link).
    var told: Bool?
}
