import Testing
@testable import TicTacApp
import TicTacDiscoveryCore
import TicTacWire

/// `tictac peers` in text: a header, aligned columns, and what each peer is.
struct PeersTableTests {
    @Test func columnsAlignAndBotsAreMarked() {
        let peers = [
            PresencePeer(id: ID128(high: 0x1234_5678_0000_0000, low: 1), name: "ann", addresses: ["198.18.0.1"], port: 40000,
                         capabilities: [.tictactoe, .resume], versions: 1...2, state: .idle, via: .broadcast),
            PresencePeer(id: ID128(high: 0xabcd_ef01_0000_0000, low: 2), name: "botty-the-bot", addresses: ["198.18.0.20", "fe80::2%2"],
                         port: 5, capabilities: [.tictactoe, .bot], versions: 1...2, state: .playing, via: [.broadcast, .dnssd]),
        ]
        let lines = PeersApp.table(peers)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("NAME           ID        KIND    ADDRESSES"))
        #expect(lines[1].hasPrefix("ann            12345678  player  198.18.0.1 "))
        #expect(lines[2].hasPrefix("botty-the-bot  abcdef01  bot     198.18.0.20,fe80::2%2"))
        // Every column starts at the same place on every line.
        let at = { (line: String, word: String) in line.range(of: word).map { line.distance(from: line.startIndex, to: $0.lowerBound) } }
        #expect(at(lines[0], "STATE") == at(lines[1], "idle") && at(lines[1], "idle") == at(lines[2], "playing"))
    }

    /// A bot that names its program (ANNOUNCE field 13) says which in KIND.
    @Test func anEngineBotNamesItsProgram() {
        let peers = [
            PresencePeer(id: ID128(high: 0x1234_5678_0000_0000, low: 1), name: "gomoku", addresses: ["198.18.0.1"], port: 40000,
                         capabilities: [.tictactoe, .bot], versions: 1...2, state: .idle, via: .broadcast, signed: true,
                         program: "pbrain-tiny 1.0"),
        ]
        let lines = PeersApp.table(peers)
        #expect(lines[1].hasPrefix("gomoku  12345678  bot: pbrain-tiny 1.0  198.18.0.1"), "\(lines)")
    }
}
