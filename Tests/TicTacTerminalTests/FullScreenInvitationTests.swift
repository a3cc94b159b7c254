import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
@testable import TicTacTerminal
import TicTacTime

/// Invitations in the lobby: answering one, withdrawn ones, and our own.
@Suite struct FullScreenInvitationTests {
    func invitedByBob() -> FullScreenModel {
        var m = FullScreenModel(color: false)
        m.apply(.peerFound(bob))
        m.apply(.invited(by: bob, size: .classic))
        return m
    }

    @Test func yAcceptsAnInvitationOnce() {
        var m = invitedByBob()
        #expect(screen(m).contains { $0.contains("bob invites you to play: y / n") })
        #expect(m.key(.char("y")) == .accept)
        #expect(m.incoming == nil)
        #expect(m.key(.char("y")) == nil)
    }

    @Test func nDeclinesAnInvitation() {
        var m = invitedByBob()
        #expect(m.key(.char("n")) == .decline)
        #expect(m.incoming == nil)
        #expect(!screen(m).contains { $0.contains("invites you") })
    }

    @Test func aWithdrawnInvitationIsSaidAndNeedsNoAnswer() {
        var m = invitedByBob()
        m.apply(.inviteCancelled(by: bob))
        #expect(m.incoming == nil)
        #expect(screen(m).contains { $0.contains("bob withdrew the invitation") })
        #expect(m.key(.char("y")) == nil)
    }

    @Test func enterOnAnotherPeerSaysToAnswerFirst() {
        let cleo = peer("cleo", 9)
        var m = FullScreenModel(color: false)
        m.apply(.peerFound(bob))
        m.apply(.peerFound(cleo))
        m.apply(.invited(by: cleo, size: .classic))
        #expect(m.selectedPeer == bob)
        #expect(m.key(.enter) == nil) // bob is selected, cleo asks: nothing is sent
        let lines = screen(m)
        #expect(lines.contains { $0.contains("Answer cleo's invitation first: y / n") })
        #expect(!lines.contains { $0.contains("finish the current game") })
    }

    @Test func enterOnThePeerWhoInvitesAccepts() {
        let cleo = peer("cleo", 9)
        var m = FullScreenModel(color: false)
        m.apply(.peerFound(bob))
        m.apply(.peerFound(cleo))
        m.apply(.invited(by: cleo, size: .classic))
        _ = m.key(.down)
        #expect(m.key(.enter) == .accept)
        #expect(m.incoming == nil)
    }

    @Test func aHeldInvitationIsShownThenAskedInTurn() {
        let cleo = peer("cleo", 9)
        var m = FullScreenModel(color: false)
        m.apply(.peerFound(bob))
        m.apply(.peerFound(cleo))
        m.apply(.invited(by: bob, size: .classic))
        m.apply(.inviteHeld(by: cleo, size: .classic, ahead: 1))
        var lines = screen(m)
        #expect(lines.contains { $0.contains("cleo invites you to play too: asked after the invitation you are answering") })
        #expect(lines.contains { $0.contains("cleo") && $0.contains("invites you") && !$0.contains("too") },
                "the peer list marks cleo, whose invitation waits")
        #expect(lines.contains { $0.contains("bob invites you to play: y / n") })
        #expect(m.key(.char("n")) == .decline)
        m.apply(.invited(by: cleo, size: .classic)) // the daemon asks the held one next
        lines = screen(m)
        #expect(lines.contains { $0.contains("cleo invites you to play: y / n") })
        #expect(m.held.isEmpty)
    }

    /// The lobby after inviting bob: our invitation waits.
    func invitingBob() -> FullScreenModel {
        var m = FullScreenModel(color: false, unicode: true)
        m.apply(.peerFound(bob))
        #expect(m.key(.enter) == .invite(bob.id.description))
        m.apply(.inviteSent(to: bob))
        return m
    }

    @Test func oneOutgoingInvitationAtATimeAndCCancelsIt() {
        var m = invitingBob()
        #expect(screen(m).contains { $0.contains("Waiting for bob… (c to cancel)") })
        #expect(m.key(.enter) == nil)
        #expect(m.key(.char("c")) == .cancel)
        #expect(m.outgoing == nil)
        #expect(!screen(m).contains { $0.contains("Waiting for") })
    }

    @Test func theInviteeIsShownInvitedNotBusyWithOurOwnInvitation() {
        var m = invitingBob()
        var busy = bob
        busy.state = .busy // what bob announces once our invitation reached it
        m.apply(.peerUpdated(busy))
        let row = screen(m).first { $0.contains("bob") && $0.contains("192.168.1.7") }
        #expect(row?.hasSuffix("invited") == true, "\(row ?? "")")
        #expect(row?.contains("busy") == false)
    }

    @Test func anUnansweredInvitationIsSaid() {
        var m = invitingBob()
        m.apply(.declined(by: bob, reason: .noAnswer))
        #expect(m.outgoing == nil)
        #expect(screen(m).contains { $0.contains("No answer from bob") })
    }
}
