import Testing
import TicTacAPI
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacEngine
import TicTacTime
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore

/// Presence is not a link: the lobby lists what discovery sees, a link is dialled only when
/// someone invites, and the invitation goes out once that link's handshake is done.
@Suite struct PresenceLobbyTests {
    static func seen(_ c: DaemonConfig, at address: String, port: UInt16 = 50_000, state: PresenceState = .idle) -> PresencePeer {
        PresencePeer(id: c.instanceID, name: c.name.value, addresses: [address], port: port,
                     capabilities: c.capabilities, versions: 1...1, state: state, via: .broadcast)
    }

    func pair() -> (CoreNet, ann: DaemonConfig, ben: DaemonConfig) {
        let ann = config("ann", seed: 11), ben = config("ben", seed: 12)
        return (CoreNet(ann, ben), ann, ben)
    }

    @Test func theAddressShownIsNotAnIPv6LinkLocalOneWhenThereIsAnother() {
        func shown(_ addresses: [String]) -> String {
            PeerInfo(id: ID128(high: 1, low: 1), name: "ben", addresses: addresses, port: 1, capabilities: [.tictactoe]).address
        }
        #expect(shown(["fe80::9c2c:42ff:feef:2dc3%2", "198.18.0.2"]) == "198.18.0.2")
        #expect(shown(["FEBF::1%eth0", "2001:db8::2", "198.18.0.2"]) == "2001:db8::2") // the order kept otherwise
        #expect(shown(["198.18.0.2", "fe80::1%2"]) == "198.18.0.2")
        #expect(shown(["fe80::1%2"]) == "fe80::1%2") // nothing else to show
        #expect(shown(["fec0::1", "fe7f::1"]) == "fec0::1") // just outside fe80::/10
        #expect(shown([]) == "")
    }

    @Test func anInvitationToAPeerOnlySeenOnTheLANDialsItThenInvites() throws {
        var (net, ann, ben) = pair()
        net.presence(0, .found(Self.seen(ben, at: "198.18.0.2")))
        net.presence(1, .found(Self.seen(ann, at: "198.18.0.1")))
        #expect(net.cores[0].linkCount == 0 && net.cores[0].peers.map(\.name) == ["ben"])
        #expect(net.events[0].contains { if case let .peerFound(p) = $0 { p.via == .broadcast } else { false } })
        #expect(net.cores[0].presenceState == .idle)

        try net.command(0, .invite("ben"))
        #expect(net.dials[0].count == 1 && net.dials[0].first?.addresses == ["198.18.0.2"] && net.dials[0].first?.port == 50_000)
        #expect(net.cores[0].presenceState == .busy)
        #expect(throws: CommandError.alreadyInvited) { try net.command(0, .invite("ben")) }

        // The shell carries the dial out: a link from ann to ben.
        _ = net.connect(dialler: 0, to: 1)
        net.settle()
        #expect(net.events[1].contains { if case .invited = $0 { true } else { false } })
        // Already in the lobby by discovery: the link makes no second peer-found.
        #expect(net.events[1].filter { if case .peerFound = $0 { true } else { false } }.count == 1)
        try net.command(1, .accept)
        net.settle()
        #expect(net.cores[0].currentGame != nil && net.cores[1].currentGame != nil)
        #expect(net.cores[0].presenceState == .playing && net.cores[1].presenceState == .playing)
    }

    @Test func aPlayerDiallingToInviteDeclinesAnotherInvitationAsBusy() throws {
        // The seat is dialling: an invitation from a third player is declined, as it is while
        // our INVITE waits on a link; else the dial's invitation went out on top of it.
        let ann = config("ann", seed: 11), ben = config("ben", seed: 12), cat = config("cat", seed: 13)
        var net = CoreNet(ann, ben, cat)
        net.presence(0, .found(Self.seen(ben, at: "198.18.0.2")))
        _ = net.connect(dialler: 2, to: 0)
        net.settle()
        try net.command(0, .invite("ben"))
        try net.command(2, .invite("ann"))
        net.settle()
        #expect(net.events[2].contains { if case .declined(_, .busy) = $0 { true } else { false } })
        #expect(!net.events[0].contains { if case .invited = $0 { true } else { false } })
        _ = net.connect(dialler: 0, to: 1)
        net.settle()
        #expect(net.events[1].contains { if case .invited = $0 { true } else { false } })
        try net.command(1, .accept)
        net.settle()
        #expect(net.cores[0].presenceState == .playing && net.cores[0].currentGame != nil)
    }

    @Test func aDialThatFailsOrHangsIsReportedOnceAndFreesThePlayer() throws {
        var (net, _, ben) = pair()
        net.presence(0, .found(Self.seen(ben, at: "198.18.0.2")))
        try net.command(0, .invite("ben"))
        net.cores[0].handle(.dialFailed(ben.instanceID, reason: "connection refused"), now: net.now)
        net.cores[0].handle(.dialFailed(ben.instanceID, reason: "again"), now: net.now) // a stale second report
        let failures = net.cores[0].pollActions().compactMap { if case let .event(.connectFailed(who, why)) = $0 { (who, why) } else { nil } }
        #expect(failures.count == 1 && failures.first?.0 == "ben" && failures.first?.1 == "connection refused")
        #expect(net.cores[0].presenceState == .idle)

        try net.command(0, .invite("ben"))
        net.advance(by: DaemonCore.dialTimeout)
        #expect(net.events[0].contains { if case let .connectFailed(_, why) = $0 { why.contains("no answer") } else { false } })
        #expect(net.cores[0].presenceState == .idle)
    }

    @Test func twoPlayersWhoInviteEachOtherPlay() throws {
        var (net, ann, ben) = pair()
        net.presence(0, .found(Self.seen(ben, at: "198.18.0.2")))
        net.presence(1, .found(Self.seen(ann, at: "198.18.0.1")))
        try net.command(0, .invite("ben"))
        try net.command(1, .invite("ann"))
        // Ben's dial lands first and carries his invitation; ann, still dialling, takes it.
        _ = net.connect(dialler: 1, to: 0)
        net.settle()
        #expect(net.cores[0].currentGame != nil && net.cores[1].currentGame != nil)
        #expect(!net.events[0].contains { if case .declined = $0 { true } else { false } })
    }

    @Test func aFieldOnlyParticipantIsNotInTheLobby() throws {
        var (net, _, ben) = pair()
        // `tictac spheres` announces the field only (capabilities: bit 1, no bit 0).
        var sam = config("sam", seed: 13)
        sam.capabilities = [.field]
        var seenSam = Self.seen(sam, at: "198.18.0.3")
        seenSam.fieldPort = 40_000
        net.presence(0, .found(seenSam))
        net.presence(0, .found(Self.seen(ben, at: "198.18.0.2")))
        #expect(net.cores[0].peers.map(\.name) == ["ben"])
        #expect(!net.events[0].contains { if case let .peerFound(p) = $0 { p.name == "sam" } else { false } })
        #expect(throws: CommandError.noSuchPeer("sam")) { try net.command(0, .invite("sam")) }
        #expect(net.dials[0].isEmpty)

        // A player whose daemon drops tic-tac-toe (field only from now on) leaves the lobby; one
        // that offers it again comes back.
        var benFieldOnly = Self.seen(ben, at: "198.18.0.2")
        benFieldOnly.capabilities = [.field]
        net.presence(0, .updated(benFieldOnly))
        #expect(net.cores[0].peers.isEmpty)
        #expect(net.events[0].contains { if case let .peerLost(p, _) = $0 { p.name == "ben" } else { false } })
        net.presence(0, .updated(Self.seen(ben, at: "198.18.0.2")))
        #expect(net.cores[0].peers.map(\.name) == ["ben"])
        // One serving both games (tictac play with the field open) stays.
        var benBoth = Self.seen(ben, at: "198.18.0.2")
        benBoth.capabilities = [.tictactoe, .field]
        net.presence(0, .updated(benBoth))
        #expect(net.cores[0].peers.map(\.name) == ["ben"])
        // Losing a field-only peer that was never shown says nothing.
        net.presence(0, .lost(seenSam, reason: "sam left"))
        #expect(!net.events[0].contains { if case let .peerLost(p, _) = $0 { p.name == "sam" } else { false } })
    }

    /// `play --connect` to a `tictac spheres` daemon: the link is made, but the lobby lists
    /// only peers that offer tic-tac-toe, for a link's peer as for discovery's.
    @Test func aLinkToAFieldOnlyDaemonIsNotInTheLobby() throws {
        let ann = config("ann", seed: 11)
        var sam = config("sam", seed: 13)
        sam.capabilities = [.field]
        var net = CoreNet(ann, sam)
        let link = net.connect(dialler: 0, to: 1)
        net.settle()
        #expect(net.cores[0].linkCount == 1)
        #expect(net.cores[0].peers.isEmpty)
        #expect(!net.events[0].contains { if case .peerFound = $0 { true } else { false } })
        #expect(throws: CommandError.noSuchPeer("sam")) { try net.command(0, .invite("sam")) }
        // Sam's side lists ann, who does offer tic-tac-toe.
        #expect(net.cores[1].peers.map(\.name) == ["ann"])
        // The link closing tells of no peer that was never listed.
        net.cores[0].handle(.linkClosed(link, reason: "closed"), now: net.now)
        let lost = net.cores[0].pollActions().contains { if case .event(.peerLost) = $0 { true } else { false } }
        #expect(!lost)
    }

    @Test func aLinkAndPresenceEndIndependently() throws {
        var (net, ann, ben) = pair()
        net.presence(0, .found(Self.seen(ben, at: "198.18.0.2")))
        net.presence(1, .found(Self.seen(ann, at: "198.18.0.1")))
        let link = net.connect(dialler: 0, to: 1)
        net.settle()
        // Discovery loses ben (missed announcements) while the link lives: still in the lobby.
        net.presence(0, .lost(Self.seen(ben, at: "198.18.0.2"), reason: "not heard"))
        #expect(net.cores[0].peers.map(\.name) == ["ben"])
        #expect(!net.events[0].contains { if case .peerLost = $0 { true } else { false } })
        // Ben is announced again, then the link closes: still present, so no peer-lost.
        net.presence(0, .found(Self.seen(ben, at: "198.18.0.2", state: .playing)))
        net.cores[0].handle(.linkClosed(link, reason: "closed"), now: net.now)
        #expect(net.cores[0].peers.first?.state == .playing)
        let lost = net.cores[0].pollActions().contains { if case .event(.peerLost) = $0 { true } else { false } }
        #expect(!lost)
        net.presence(0, .lost(Self.seen(ben, at: "198.18.0.2"), reason: "ben left"))
        #expect(net.events[0].contains { if case let .peerLost(p, r) = $0 { p.name == "ben" && r == "ben left" } else { false } })
        #expect(net.cores[0].peers.isEmpty)
    }
}
