import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon

/// Two DaemonCores joined by in-memory links whose delivery the test controls, so messages can be
/// made to cross exactly: both sides act before either hears the other. Bytes go through the
/// real encoder and stream decoder.
struct CoreNet {
    var cores: [DaemonCore]
    var events: [[DaemonEvent]] = [[], []]
    var now = Instant.zero
    /// One entry per connection: its link id on each core (the same number on both).
    private(set) var wires: [LinkID] = []
    /// In flight, per core and link: frames waiting to be delivered to that core.
    private var inbox: [[LinkID: [UInt8]]] = [[:], [:]]
    private var decoders: [[LinkID: FrameDecoder]] = [[:], [:]]
    private(set) var closed: Set<LinkID> = []

    init(_ a: DaemonConfig, _ b: DaemonConfig) {
        cores = [DaemonCore(config: a), DaemonCore(config: b)]
    }

    /// Opens a connection dialled by core `dialler`; nothing is delivered yet.
    mutating func connect(dialler: Int) -> LinkID {
        let id = wires.count + 1
        wires.append(id)
        for i in 0..<2 {
            cores[i].linkOpened(id, outgoing: i == dialler, address: "198.18.0.\(i + 1)", port: nil, now: now)
        }
        collect()
        return id
    }

    /// Delivers everything waiting for core `i` on every link, or on one (not what that produces).
    mutating func deliver(to i: Int, link: LinkID? = nil) {
        var pending = inbox[i]
        if let link {
            pending = pending.filter { $0.key == link }
            inbox[i][link] = nil
        } else {
            inbox[i] = [:]
        }
        for id in pending.keys.sorted() where !closed.contains(id) {
            var decoder = decoders[i][id] ?? FrameDecoder()
            decoder.feed(pending[id] ?? [])
            while let frame = try? decoder.next() { cores[i].linkReceived(id, frame, now: now) }
            decoders[i][id] = decoder
        }
        collect()
    }

    /// Delivers in both directions until nothing is in flight.
    mutating func settle() {
        var rounds = 0
        while inbox.contains(where: { !$0.isEmpty }), rounds < 1000 {
            deliver(to: 0)
            deliver(to: 1)
            rounds += 1
        }
    }

    mutating func command(_ i: Int, _ c: PlayerCommand) throws(CommandError) {
        try cores[i].command(c, now: now)
        collect()
    }

    mutating func advance(by d: Duration) {
        now = now + d
        for i in 0..<2 { cores[i].handleTimeout(now: now) }
        collect()
    }

    /// Takes actions: bytes into the peer's inbox, closes to both ends, events to the log.
    private mutating func collect() {
        var again = true
        while again {
            again = false
            for i in 0..<2 {
                for action in cores[i].pollActions() {
                    switch action {
                    case let .send(id, bytes):
                        guard !closed.contains(id) else { continue }
                        inbox[1 - i][id, default: []] += bytes
                    case let .close(id, _):
                        guard !closed.contains(id) else { continue }
                        // What was sent before the close arrives first (on every link: a peer's
                        // HELLO sent at connect time is not overtaken by a later close).
                        deliver(to: 1 - i)
                        closed.insert(id)
                        for j in 0..<2 { cores[j].linkClosed(id, reason: "closed", now: now) }
                        collect()
                        again = true
                    case let .event(e):
                        events[i].append(e)
                    }
                }
            }
        }
    }

    func count(_ i: Int, _ match: (DaemonEvent) -> Bool) -> Int { events[i].count(where: match) }
    var errors: [DaemonEvent] {
        (events[0] + events[1]).filter { if case .protocolError = $0 { true } else { false } }
    }
    func game(_ i: Int) -> GameSession? { cores[i].currentGame }
}

@Suite struct CoreRaceTests {
    private func net() -> CoreNet {
        var n = CoreNet(config("ann", seed: 31), config("ben", seed: 32))
        _ = n.connect(dialler: 0)
        n.settle()
        return n
    }

    private func isPlaying(_ g: GameSession?) -> Bool { g?.state == .myTurn || g?.state == .opponentTurn }

    /// Both in the lobby again, then a fresh match starts and reaches its first move.
    private func expectCleanLobbyAndNewMatch(_ n: inout CoreNet, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(n.errors.isEmpty, "\(n.errors)", sourceLocation: sourceLocation)
        #expect(n.cores[0].gameCount == 0 && n.cores[1].gameCount == 0, sourceLocation: sourceLocation)
        #expect(throws: Never.self, sourceLocation: sourceLocation) { try n.command(1, .invite("ann")) }
        n.settle()
        #expect(throws: Never.self, sourceLocation: sourceLocation) { try n.command(0, .accept) }
        n.settle()
        #expect(isPlaying(n.game(0)) && isPlaying(n.game(1)), sourceLocation: sourceLocation)
        #expect(n.errors.isEmpty, "\(n.errors)", sourceLocation: sourceLocation)
    }

    @Test func cancelCrossingAcceptLeavesBothInTheLobby() throws {
        var n = net()
        try n.command(0, .invite("ben"))
        n.settle()
        try n.command(1, .accept) // ben starts the game...
        try n.command(0, .cancel) // ...while ann withdraws: both before either hears the other
        n.settle()
        #expect(n.count(1) { if case .matchEnded(_, byUs: false) = $0 { true } else { false } } == 1)
        expectCleanLobbyAndNewMatch(&n)
    }

    @Test func inviteTimeoutCrossingAcceptLeavesBothInTheLobby() throws {
        var n = net()
        try n.command(0, .invite("ben"))
        n.settle()
        for _ in 0..<29 { // the link stays alive (PING / PONG) while nobody answers
            n.advance(by: .seconds(1))
            n.settle()
        }
        n.advance(by: .seconds(1)) // ann gives up and sends CANCEL...
        try n.command(1, .accept) // ...as ben accepts
        n.settle()
        #expect(n.count(0) { if case .declined(_, .noAnswer) = $0 { true } else { false } } == 1)
        expectCleanLobbyAndNewMatch(&n)
    }

    @Test func leavingAMatchFreesBothPlayers() throws {
        var n = net()
        try n.command(0, .invite("ben"))
        n.settle()
        try n.command(1, .accept)
        n.settle()
        #expect(isPlaying(n.game(0)) && isPlaying(n.game(1)))
        // Whoever is to move plays while the other leaves: the MOVE crosses the CANCEL.
        let mover = n.game(0)?.state == .myTurn ? 0 : 1
        try n.command(mover, .move(4))
        try n.command(1 - mover, .leaveMatch)
        n.settle()
        #expect(n.count(1 - mover) { if case .matchEnded(_, byUs: true) = $0 { true } else { false } } == 1)
        #expect(n.count(mover) { if case .matchEnded(_, byUs: false) = $0 { true } else { false } } == 1)
        #expect(throws: CommandError.notInGame) { try n.command(0, .leaveMatch) }
        expectCleanLobbyAndNewMatch(&n)
    }

    @Test func bothLeavingAtOnceIsQuiet() throws {
        var n = net()
        try n.command(0, .invite("ben"))
        n.settle()
        try n.command(1, .accept)
        n.settle()
        try n.command(0, .leaveMatch)
        try n.command(1, .leaveMatch)
        n.settle()
        expectCleanLobbyAndNewMatch(&n)
    }

    /// Dialling each other at once: one side completes one handshake and (maybe) invites on that
    /// link before the other link's handshake completes; every order of that. One link stays,
    /// the peer is found once on each side, and the invitation survives.
    @Test(arguments: [(0, 1), (0, 2), (1, 1), (1, 2)], [false, true])
    func dialingEachOtherAtOnceKeepsOneLinkAndTheInvitation(first: (side: Int, link: LinkID), invite: Bool) throws {
        var n = CoreNet(config("ann", seed: 31), config("ben", seed: 32))
        _ = n.connect(dialler: 0)
        _ = n.connect(dialler: 1)
        n.deliver(to: first.side, link: first.link) // one handshake completes on one side
        if invite, let peer = n.cores[first.side].peers.first { try n.command(first.side, .invite(peer.name)) }
        n.deliver(to: first.side) // then the other, on the same side
        n.settle()
        let first = first.side
        #expect(n.errors.isEmpty, "\(n.errors)")
        #expect(n.cores[0].linkCount == 1 && n.cores[1].linkCount == 1)
        #expect(n.closed.count == 1)
        for i in 0..<2 {
            #expect(n.count(i) { if case .peerFound = $0 { true } else { false } } == 1)
            #expect(n.count(i) { if case .peerLost = $0 { true } else { false } } == 0)
        }
        if invite {
            #expect(n.count(1 - first) { if case .invited = $0 { true } else { false } } == 1)
            try n.command(1 - first, .accept)
            n.settle()
            #expect(isPlaying(n.game(0)) && isPlaying(n.game(1)))
            #expect(n.errors.isEmpty, "\(n.errors)")
        }
    }

    @Test func aPeerThatDialsTwiceKeepsOneLinkAndIsNeverLost() throws {
        var n = CoreNet(config("ann", seed: 31), config("ben", seed: 32))
        _ = n.connect(dialler: 0)
        _ = n.connect(dialler: 0)
        n.settle()
        #expect(n.errors.isEmpty, "\(n.errors)")
        #expect(n.cores[0].linkCount == 1 && n.cores[1].linkCount == 1)
        for i in 0..<2 {
            #expect(n.count(i) { if case .peerFound = $0 { true } else { false } } == 1)
            #expect(n.count(i) { if case .peerLost = $0 { true } else { false } } == 0)
        }
        expectCleanLobbyAndNewMatch(&n)
    }
}
