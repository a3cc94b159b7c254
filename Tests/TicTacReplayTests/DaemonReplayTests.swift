import Testing
import TicTacDaemonCore
import TicTacEngine
import TicTacReplay
import TicTacWire

/// Byte-exact replay of every seeded daemon of every TCP fixture (Tests/Fixtures/captures).
@Suite struct DaemonReplayTests {
    /// Per fixture: each daemon's game results, in the order of its `.daemons` lines.
    static let expectations: [(name: String, results: [[String]])] = [
        ("bot-win", [["won"], ["lost"]]),
        ("bot-draw", [["draw"], ["draw"]]),
        ("player-resigns", [["won"], ["lost"]]),
        ("declined", [[], []]),
        ("busy", [[], [], []]),
        // A peer that ends a game in play itself (LEAVE) loses it by forfeit (Protocol.md §8); a
        // link merely lost (a killed daemon) ends it with no result on either side.
        ("kill-mid-game", [[], []]),
        ("leave-mid-game", [["won"], []]),
        ("version-mismatch", [[]]),
        ("bad-input", [[]]),
        ("gomoku", [["won"], ["lost"]]),
        // Protocol version 2: every frame after the handshake sealed, replayed byte for byte.
        ("sealed-leave-mid-game", [[]]), // the bot keeps the game the player quit, to resume
        ("sealed-bot-win", [["won"], ["lost"]]), // both sides, with beta's key log (KeyLogReplayTests)
        // Both HELLOs set capability bit 7: a quick roll (Protocol.md §8), no RESET or ROLL_ACK.
        ("quick-bot-win", [["won"], ["lost"]]),
    ]

    @Test(arguments: expectations.map(\.name))
    func everyFrameDecodes(_ name: String) throws {
        let capture = try Fixtures.capture(name)
        #expect(!capture.connections.isEmpty)
        for conn in capture.connections {
            for fromClient in [true, false] {
                var reader = FrameReader()
                var frames = 0
                let error = reader.receive(conn.bytes(fromClient: fromClient)) { _ in frames += 1; return true }
                if name == "bad-input", fromClient { // the hostile peer's HTTP request, Protocol.md §5
                    #expect(error?.code == .badMagic)
                    continue
                }
                #expect(error == nil, "\(name): \(conn.client) -> \(conn.server)")
                #expect(reader.bufferedCount == 0, "\(name): a frame cut short")
                #expect(frames > 0)
            }
        }
    }

    @Test(arguments: expectations.map(\.name))
    func bothSidesReplayByteForByte(_ name: String) throws {
        let daemons = try Fixtures.daemons(name)
        let results = try #require(Self.expectations.first { $0.name == name }?.results)
        let capture = try Fixtures.capture(name)
        for (i, daemon) in daemons.enumerated() {
            var replay = try DaemonReplay(daemon)
            let report = replay.run(capture)
            #expect(report.links > 0, "\(name): \(daemon.name) has no connection in the capture")
            #expect(report.divergences == [], "\(name): \(daemon.name)")
            #expect(report.bytesCompared > 0)
            #expect(report.results == results[i], "\(name): \(daemon.name)")
        }
    }

    /// One flipped byte in what a daemon sent: the replay names where the stream diverges.
    @Test func aFlippedByteIsFound() throws {
        var bytes = try Fixtures.pcap("bot-draw")
        let capture = try Capture(pcap: bytes)
        let daemon = try Fixtures.daemons("bot-draw")[0]
        var clean = try DaemonReplay(daemon)
        #expect(clean.run(capture).matches)
        // The last MOVE alpha sent: find its bytes in the file and change the cell.
        let conn = try #require(capture.connections.first)
        let alphaIsClient = DaemonReplayTests.side(of: conn, id: clean.instanceID)
        let sent = conn.bytes(fromClient: alphaIsClient)
        let move: [UInt8] = [0x54, 0x54, 0x41, 0x43, 0x01, 0x24, 0, 0, 0, 0, 0, 5, 1, 0, 2, 0]
        let inStream = try #require(DaemonReplayTests.lastIndex(of: move, in: sent))
        let inFile = try #require(DaemonReplayTests.lastIndex(of: Array(sent[inStream..<(inStream + 17)]), in: bytes))
        bytes[inFile + 16] ^= 0x01
        var replay = try DaemonReplay(daemon)
        let report = replay.run(try Capture(pcap: bytes))
        #expect(!report.matches)
        let d = try #require(report.divergences.first)
        #expect(d.offset == inStream + 16)
        #expect(d.expected.hasPrefix("MOVE") && d.replayed.hasPrefix("MOVE"))
    }

    static func side(of conn: CapturedConnection, id: ID128) -> Bool {
        var reader = FrameReader()
        var first: Frame?
        _ = reader.receive(conn.bytes(fromClient: true)) { first = $0; return false }
        if let first, case let .hello(h)? = try? Message(frame: first) { return h.instanceID == id }
        return false
    }

    static func lastIndex(of needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        for i in stride(from: hay.count - needle.count, through: 0, by: -1) where Array(hay[i..<(i + needle.count)]) == needle {
            return i
        }
        return nil
    }
}
