import Testing
import TicTacAPI
import TicTacDaemonCore
import TicTacDiscoveryCore
import TicTacEngine
import TicTacWire
@testable import TicTacTerminal

@Suite struct HeldInvitationOutputTests {
    let json = OutputFormatter(style: .json)

    /// An invitation held behind another (Protocol.md §8) is said, and so is its busy end.
    @Test func heldInvitationsAreSaid() {
        let cal = PeerInfo(id: ID128(high: 0, low: 3), name: "cal", addresses: ["198.18.0.3"], port: 4000,
                           capabilities: [.tictactoe], state: .idle)
        #expect(json.lines(for: .inviteHeld(by: cal, size: .classic, ahead: 2)).joined()
            == #"{"event":"invite-held","from":{"id":"00000000000000000000000000000003","name":"cal"},"rows":3,"cols":3,"k":3,"ahead":2}"#)
        #expect(json.lines(for: .heldInviteDeclined(by: cal)).joined()
            == #"{"event":"held-invite-declined","by":{"id":"00000000000000000000000000000003","name":"cal"}}"#)
        let text = OutputFormatter(style: .text)
        #expect(text.lines(for: .inviteHeld(by: cal, size: .classic, ahead: 1))
            == ["cal invites you to play too: asked after the invitation you are answering"])
        #expect(text.lines(for: .heldInviteDeclined(by: cal)) == ["cal's invitation was declined: you are in a game"])
    }
}
