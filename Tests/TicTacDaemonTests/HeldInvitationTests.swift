import Testing
import TicTacAPI
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore

/// Invitations that come while our player answers another are held and asked in turn
/// (Protocol.md §8): a peer renewing its invitation cannot keep the player's friends declined
/// `busy` unseen.
@Suite struct HeldInvitationTests {
    /// ann (0) and three peers, each with a link to ann from its own address (or `sameAddress`:
    /// cal and dan from one).
    private func lobby(sameAddress: Bool = false, maxHeld: Int? = nil, inviteTimeout: Duration? = nil) -> CoreNet {
        var ann = config("ann", seed: 81)
        if let inviteTimeout { ann.inviteTimeout = inviteTimeout }
        if let maxHeld { ann.maxHeldInvitations = maxHeld }
        var n = CoreNet(ann, config("ben", seed: 82), config("cal", seed: 83), config("dan", seed: 84))
        for i in 1...3 {
            _ = n.connect(dialler: i, to: 0, address: sameAddress && i == 3 ? "198.18.0.3" : nil)
        }
        n.settle()
        return n
    }

    private func declines(_ n: CoreNet, from i: Int) -> [DeclineReason] {
        n.sent(i).compactMap { if case let .decline(_, reason) = $0 { reason } else { nil } }
    }

    private func asked(_ n: CoreNet) -> [String] {
        n.events[0].compactMap { if case let .invited(p, _) = $0 { p.name.description } else { nil } }
    }

    private func held(_ n: CoreNet) -> [(String, Int)] {
        n.events[0].compactMap { if case let .inviteHeld(p, _, ahead) = $0 { (p.name.description, ahead) } else { nil } }
    }

    @Test func aSecondInvitationIsHeldThenAskedWhenTheFirstIsDeclined() throws {
        var n = lobby()
        try n.command(1, .invite("ann"))
        n.settle()
        try n.command(2, .invite("ann"))
        n.settle()
        #expect(asked(n) == ["ben"])
        #expect(held(n).map(\.0) == ["cal"] && held(n).map(\.1) == [1])
        #expect(declines(n, from: 0).isEmpty, "nobody is declined busy while the player can still answer")
        try n.command(0, .decline)
        n.settle()
        #expect(declines(n, from: 0) == [.declined])
        #expect(asked(n) == ["ben", "cal"], "cal's invitation is asked next")
        try n.command(0, .accept)
        n.settle()
        #expect(n.cores[0].currentGame != nil && n.cores[2].currentGame != nil, "ann plays cal")
        #expect(n.cores[1].currentGame == nil)
    }

    @Test func startingAGameDeclinesTheHeldOnesBusy() throws {
        var n = lobby()
        for i in 1...3 {
            try n.command(i, .invite("ann"))
            n.settle()
        }
        #expect(held(n).map(\.0) == ["cal", "dan"] && held(n).map(\.1) == [1, 2])
        try n.command(0, .accept)
        n.settle()
        #expect(n.cores[0].currentGame != nil && n.cores[1].currentGame != nil, "ann plays ben")
        #expect(declines(n, from: 0) == [.busy, .busy])
        #expect(n.count(0) { if case .heldInviteDeclined = $0 { true } else { false } } == 2)
        for i in 2...3 {
            #expect(n.count(i) { if case .declined(_, .busy) = $0 { true } else { false } } == 1)
        }
    }

    @Test func aWithdrawnHeldInvitationIsNeverAsked() throws {
        var n = lobby()
        try n.command(1, .invite("ann"))
        n.settle()
        try n.command(2, .invite("ann"))
        n.settle()
        try n.command(2, .cancel)
        n.settle()
        #expect(n.count(0) { if case let .inviteCancelled(p) = $0 { p.name.description == "cal" } else { false } } == 1)
        try n.command(0, .decline)
        n.settle()
        #expect(asked(n) == ["ben"])
        #expect(throws: CommandError.self) { try n.command(0, .accept) }
    }

    @Test func aHeldInvitationLapsesLikeAnyOther() throws {
        // ann's answer time is short, so its links stay alive (5 s) while the inviters' clocks
        // are frozen: ann, not the inviters, ends both invitations.
        var n = lobby(inviteTimeout: .seconds(1))
        try n.command(1, .invite("ann"))
        n.settle()
        try n.command(2, .invite("ann"))
        n.settle()
        n.advance(by: .milliseconds(4500), only: 0)
        n.settle()
        #expect(declines(n, from: 0) == [.noAnswer, .noAnswer])
        #expect(n.count(0) { if case .inviteExpired = $0 { true } else { false } } == 2)
        #expect(asked(n) == ["ben"], "a lapsed invitation is not asked")
    }

    @Test func oneHeldInvitationPerAddressAndAtMostTheLimit() throws {
        var n = lobby(sameAddress: true)
        for i in 1...3 {
            try n.command(i, .invite("ann"))
            n.settle()
        }
        #expect(held(n).map(\.0) == ["cal"], "dan comes from cal's address")
        #expect(declines(n, from: 0) == [.busy])
        var m = lobby(maxHeld: 1)
        for i in 1...3 {
            try m.command(i, .invite("ann"))
            m.settle()
        }
        #expect(held(m).map(\.0) == ["cal"])
        #expect(declines(m, from: 0) == [.busy])
    }

    @Test func aHeldPeerThatLeavesIsNotAsked() throws {
        var n = lobby()
        try n.command(1, .invite("ann"))
        n.settle()
        try n.command(2, .invite("ann"))
        n.settle()
        n.leaveAll(2)
        n.settle()
        try n.command(0, .decline)
        n.settle()
        #expect(asked(n) == ["ben"])
        #expect(n.errors.isEmpty)
    }
}
