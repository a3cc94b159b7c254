import Testing
import TicTacDaemonCore
import TicTacReplay
import TicTacWire

/// `tictac replay --key-log` and `--write-plain` on a real version-2 capture: sealed-bot-win.pcap
/// with the key log its dialler wrote (`--key-log`, Protocol.md §12).
@Suite struct KeyLogReplayTests {
    static func keyLog() throws -> KeyLog {
        KeyLog(text: String(decoding: try readWholeFile("\(Fixtures.directory)/sealed-bot-win.keys"), as: UTF8.self))
    }

    static func moves(_ stories: [Story]) -> [String] {
        stories.filter { $0.event == "move" }.map(\.text)
    }

    @Test func withoutTheKeysOnlyTheHandshakeIsTold() throws {
        let stories = Narrator.tell(try Fixtures.capture("sealed-bot-win"))
        #expect(Self.moves(stories).isEmpty)
        #expect(stories.filter { $0.event == "sealed" }.count == 2)
    }

    @Test func theKeyLogOpensEveryFrameAndTheGameIsTold() throws {
        let (capture, report) = OpenedStreams.open(try Fixtures.capture("sealed-bot-win"), with: try Self.keyLog())
        #expect(report.opened == 1 && report.withoutKey == 0 && report.failed == 0)
        #expect(report.frames > 10)
        let stories = Narrator.tell(capture)
        #expect(stories.filter { $0.event == "sealed" }.isEmpty)
        #expect(stories.filter { $0.event == "opened" }.count == 2)
        #expect(stories.filter(\.abnormal).isEmpty, "\(stories.filter(\.abnormal).map(\.text))")
        // The game as the seeded replay of both daemons has it: alpha (perfect) beats beta.
        #expect(Self.moves(stories).count >= 5)
        let over = try #require(stories.first { $0.event == "game-over" })
        #expect(over.text.contains("alpha") && over.text.contains("wins"))
        #expect(stories.contains { $0.event == "leave" && $0.text.hasPrefix("alpha") }) // beta's came after alpha closed
    }

    /// quick-bot-win.pcap, two daemons that roll quickly (Protocol.md §8): opened with its key log,
    /// the game starts on the two ROLL_COMMITs and ROLLs alone (no RESET, no ROLL_ACK on the wire),
    /// the BLAKE2b rolls decide as the daemons did, and nothing is abnormal.
    @Test func aQuickRollIsOpenedAndTold() throws {
        let keys = KeyLog(text: String(decoding: try readWholeFile("\(Fixtures.directory)/quick-bot-win.keys"), as: UTF8.self))
        let (capture, report) = OpenedStreams.open(try Fixtures.capture("quick-bot-win"), with: keys)
        #expect(report.opened == 1 && report.failed == 0)
        var types: Set<UInt8> = []
        for conn in capture.connections {
            for fromClient in [true, false] {
                var reader = FrameReader()
                _ = reader.receive(conn.bytes(fromClient: fromClient)) { frame in types.insert(frame.type); return true }
            }
        }
        #expect(types.contains(0x21) && types.contains(0x22), "ROLL_COMMIT and ROLL")
        #expect(!types.contains(0x20) && !types.contains(0x23), "no RESET, no ROLL_ACK: \(types.sorted())")
        let stories = Narrator.tell(capture)
        #expect(stories.filter(\.abnormal).isEmpty, "\(stories.filter(\.abnormal).map(\.text))")
        let start = try #require(stories.first { $0.event == "rolls" })
        #expect(start.text.contains("beta@127.0.0.1:45612 moves first")) // as the seeded daemons played it
        #expect(stories.first { $0.event == "game-over" }?.text.contains("alpha") == true)
    }

    /// The same capture told from the seeded replay's own keys: the key log holds what the core
    /// derived, not something else that happens to open.
    @Test func theLoggedKeysAreTheOnesTheCoreDerives() throws {
        var keys = try Self.keyLog()
        #expect(keys.links.count == 1)
        let logged = try #require(keys.links.values.first)
        // Both seeded daemons, replayed byte for byte, derive exactly the logged keys.
        for daemon in try Fixtures.daemons("sealed-bot-win") {
            var replay = try DaemonReplay(daemon)
            #expect(replay.run(try Fixtures.capture("sealed-bot-win")).keys == [logged], "\(daemon.name)")
        }
        #expect(LinkKeys(line: logged.line[...]) == logged)
        #expect(logged.line.split(separator: " ").map(\.count) == [LinkKeys.label.count, 64, 64, 64])
        keys = KeyLog(text: "# a comment\n\nCLIENT_RANDOM 00 11\n" + logged.line.uppercased() + "\n")
        #expect(keys.skipped == 1)
        #expect(keys.links.count == 1)
    }

    @Test func aWrongKeyOpensNothingAndSaysSo() throws {
        let good = try #require(try Self.keyLog().links.values.first)
        var bad = good
        bad.diallerToAcceptor[0] ^= 1
        let (capture, report) = OpenedStreams.open(try Fixtures.capture("sealed-bot-win"), with: KeyLog(text: bad.line))
        #expect(report.failed == 1) // the dialler's first sealed frame; the rest of its stream stays sealed
        let stories = Narrator.tell(capture)
        #expect(stories.filter { $0.event == "sealed" }.count == 1) // beta's: not told
        #expect(stories.filter { $0.event == "opened" }.count == 1) // alpha's: opened
        // A key for another link opens nothing.
        var other = good
        other.diallerEphemeralKey[31] ^= 1
        let (_, none) = OpenedStreams.open(try Fixtures.capture("sealed-bot-win"), with: KeyLog(text: other.line))
        #expect(none.opened == 0 && none.withoutKey == 1)
    }

    /// --write-plain: the written capture reads back, holds the same plain streams, and tells the
    /// same story with no key log.
    @Test func thePlainCaptureReadsBackAsTheOpenedOne() throws {
        let (opened, _) = OpenedStreams.open(try Fixtures.capture("sealed-bot-win"), with: try Self.keyLog())
        let (bytes, written) = PcapWriter.write(opened)
        let back = try Capture(pcap: bytes)
        #expect(back.packetCount == written)
        #expect(back.connections.count == 1)
        for fromClient in [true, false] {
            #expect(back.connections[0].bytes(fromClient: fromClient) == opened.connections[0].bytes(fromClient: fromClient))
        }
        #expect(back.connections[0].sawSYN)
        #expect(back.connections[0].retransmissions.client == 0 && back.connections[0].retransmissions.server == 0)
        let told = Narrator.tell(back).map(\.text), expected = Narrator.tell(opened).map(\.text)
        #expect(told == expected)
    }

    /// A capture whose last record is cut short (a capture stopped mid-write) is told up to it.
    @Test func aCaptureCutInsideItsLastPacketIsToldUpToIt() throws {
        let whole = try Fixtures.pcap("bot-win")
        let stories = Narrator.tell(try Capture(pcap: Array(whole.dropLast(5))))
        let cut = try #require(stories.last { $0.event == "cut-capture" })
        #expect(cut.abnormal)
        #expect(Self.moves(stories).count == Self.moves(Narrator.tell(try Capture(pcap: whole))).count)
    }
}

/// A capture that starts mid-connection (no SYN): the dialler is still the client.
@Suite struct MidConnectionTests {
    /// `name` without its first `n` records.
    static func dropping(_ n: Int, of name: String) throws -> Capture {
        let file = try PcapFile(bytes: try Fixtures.pcap(name))
        return try Capture(pcap: PcapBuilder.file(linkType: file.linkType, records: file.packets.dropFirst(n).map { ($0.time, $0.data) }))
    }

    /// Cut after the SYNs, at either HELLO or between the PROOFs: the first PROOF's sender dialled.
    @Test(arguments: 3...6) func theFirstProverIsTheClient(_ n: Int) throws {
        let whole = try Fixtures.capture("bot-win").connections[0]
        let cut = try #require(try Self.dropping(n, of: "bot-win").connections.first)
        #expect(!cut.sawSYN)
        #expect(cut.client == whole.client && cut.server == whole.server)
    }

    /// With the key log, a version-2 capture cut after the SYNs still opens (the client's HELLO
    /// names the link) whichever side's packet comes first.
    @Test(arguments: 2...4) func aSealedCaptureCutAfterItsSYNsStillOpens(_ n: Int) throws {
        let cut = try Self.dropping(n, of: "sealed-bot-win")
        let (opened, report) = OpenedStreams.open(cut, with: try KeyLogReplayTests.keyLog())
        #expect(report.opened == 1 && report.failed == 0)
        #expect(KeyLogReplayTests.moves(Narrator.tell(opened)).count >= 5)
    }
}
