import Testing
import TicTacDaemonCore
import TicTacWire

/// `DaemonConfig.logsKeys` (`--key-log`): a version-2 link's traffic keys go out once, as the
/// core derived them, and open what it sealed (Protocol.md §12).
@Suite struct KeyLogCoreTests {
    @Test func eachLinkGivesItsKeysOnceAndTheyOpenItsFrames() throws {
        var ann = config("ann", seed: 91), ben = config("ben", seed: 92)
        ann.logsKeys = true
        ben.logsKeys = true
        var n = CoreNet([ann, ben], sealed: true)
        try n.startMatch()
        #expect(n.keys[0].count == 1 && n.keys[1].count == 1)
        let keys = try #require(n.keys[0].first)
        #expect(n.keys[1].first == keys) // both sides derive the same two keys
        #expect(keys.diallerToAcceptor != keys.acceptorToDialler)
        for (side, fromDialler) in [(0, true), (1, false)] {
            let frames = n.sentFrames(side)
            let proof = try #require(frames.firstIndex { $0.type == Message.Kind.proof.rawValue })
            var opener = keys.opener(fromDialler: fromDialler)
            let opened = frames[(proof + 1)...].compactMap { opener.open($0) }
            #expect(opened.count == frames.count - proof - 1, "side \(side): every sealed frame opens, in order")
            let kinds = opened.compactMap { try? Message(frame: $0).kind }
            #expect(kinds.count == opened.count)
            #expect(kinds.contains(side == 0 ? .invite : .accept))
            // The other direction's key opens none of them.
            var wrong = keys.opener(fromDialler: !fromDialler)
            #expect(wrong.open(frames[proof + 1]) == nil)
        }
    }

    @Test func withoutTheOptionNoKeyLeavesTheCore() throws {
        var n = CoreNet([config("ann", seed: 93), config("ben", seed: 94)], sealed: true)
        _ = n.connect(dialler: 0, to: 1)
        n.settle()
        #expect(n.cores[0].peers.count == 1)
        #expect(n.keys[0].isEmpty && n.keys[1].isEmpty)
    }
}
