import Testing
import TicTacAPI
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

/// A link's peer ids kept beside its handshake (`provenID`, `claimedID`, read by the core's
/// scans over every link) follow each change of the handshake.
@Suite struct LinkPeerIDTests {
    let claimed = ID128(high: 7, low: 7)
    let proven = ID128(high: 9, low: 9)

    func hello() throws -> Hello {
        Hello(instanceID: claimed, name: try DisplayName("claimer"), capabilities: [.tictactoe],
              publicKey: [UInt8](repeating: 1, count: 32), nonce: ID128(high: 1, low: 1))
    }

    func peer(_ id: ID128) -> PeerInfo {
        PeerInfo(id: id, name: "peer", address: "198.18.0.2", port: nil, capabilities: [.tictactoe])
    }

    @Test func idsFollowTheHandshake() throws {
        let link = Link(id: 1, outgoing: false, address: "198.18.0.2", port: nil, openedAt: .zero,
                                   nonce: ID128(high: 0, low: 1))
        #expect(link.provenID == nil && link.claimedID == nil && link.peerID == nil)

        link.session.handshake = .awaitingProof(try hello(), version: 1, heir: nil)
        #expect(link.provenID == nil)
        #expect(link.claimedID == claimed && link.peerID == claimed)

        link.inherit(peer(proven)) // still awaiting its PROOF: the claim stands
        #expect(link.provenID == nil && link.claimedID == claimed)

        link.session.handshake = .ready(peer(proven), version: 1, announced: false)
        #expect(link.provenID == proven && link.peerID == proven)
        #expect(link.claimedID == nil)

        link.announce()
        #expect(link.provenID == proven && link.provenID == link.peer?.id)

        link.session.handshake = .awaitingHello
        #expect(link.provenID == nil && link.claimedID == nil)
    }
}
