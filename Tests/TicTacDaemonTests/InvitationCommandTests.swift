import Testing
import TicTacAPI
import TicTacEngine
import TicTacTime
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore

/// What the player is told when an invitation command cannot be carried out, and the one rule
/// that is not a refusal: inviting the peer whose invitation waits for you accepts it.
@Suite struct InvitationCommandTests {
    /// ann, ben and cleo, ann linked to both.
    private func net() -> CoreNet {
        var n = CoreNet(config("ann", seed: 41), config("ben", seed: 42), config("cleo", seed: 43))
        _ = n.connect(dialler: 0, to: 1)
        _ = n.connect(dialler: 0, to: 2)
        n.settle()
        return n
    }

    private func playing(_ g: GameSession?) -> Bool { g?.state == .myTurn || g?.state == .opponentTurn }

    @Test func aSecondInvitationWhileOneWaitsIsAlreadyInvitedNotBusy() throws {
        var n = net()
        try n.command(0, .invite("ben"))
        n.settle()
        #expect(throws: CommandError.alreadyInvited) { try n.command(0, .invite("ben")) }
        #expect(throws: CommandError.alreadyInvited) { try n.command(0, .invite("cleo")) }
        #expect(CommandError.alreadyInvited.code == "already-invited")
        #expect(!CommandError.alreadyInvited.description.contains("finish the current game"))
    }

    @Test func invitingThePeerWhoInvitedYouStartsTheGame() throws {
        var n = net()
        try n.command(1, .invite("ann"))
        n.settle()
        #expect(n.events[0].contains { if case .invited = $0 { true } else { false } })
        try n.command(0, .invite("ben")) // ann invites ben back: that is a yes
        n.settle()
        #expect(playing(n.game(0)) && playing(n.game(1)))
        #expect(n.cores[0].gameCount == 1 && n.cores[1].gameCount == 1)
        #expect(!n.events[1].contains { if case .declined = $0 { true } else { false } })
    }

    @Test func invitingSomeoneElseWhileInvitedSaysToAnswerFirst() throws {
        var n = net()
        try n.command(1, .invite("ann"))
        n.settle()
        #expect(throws: CommandError.answerFirst("ben")) { try n.command(0, .invite("cleo")) }
        #expect(CommandError.answerFirst("ben").description == "answer ben's invitation first (accept or decline)")
        #expect(CommandError.answerFirst("ben").code == "invitation-waiting")
    }

    @Test func aSecondCancelSaysThereIsNothingToWithdraw() throws {
        var n = net()
        try n.command(0, .invite("ben"))
        n.settle()
        try n.command(0, .cancel)
        #expect(throws: CommandError.nothingToCancel) { try n.command(0, .cancel) }
        #expect(CommandError.nothingToCancel.description == "you have no invitation waiting to withdraw")
        #expect(CommandError.nothingToCancel.code == "no-invitation")
        // Free again: a new invitation goes out.
        n.settle()
        #expect(throws: Never.self) { try n.command(0, .invite("cleo")) }
    }

    @Test func aGameRunningIsStillBusy() throws {
        var n = net()
        try n.command(0, .invite("ben"))
        n.settle()
        try n.command(1, .accept)
        n.settle()
        #expect(throws: CommandError.busy) { try n.command(0, .invite("cleo")) }
    }
}
