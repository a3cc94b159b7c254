import Testing
@testable import TicTacWire

/// HELLO field 9 and ANNOUNCE field 13, the program playing under a name (Protocol.md §6): a
/// display name's rules, optional, skipped by a decoder that does not know it.
@Suite struct ProgramFieldTests {
    static let id = ID128(high: 1, low: 2)

    func hello(_ program: DisplayName?) throws -> Message {
        .hello(Hello(minVersion: 1, maxVersion: 2, instanceID: Self.id, name: try DisplayName("gomoku"),
                     capabilities: [.tictactoe, .bot], publicKey: [UInt8](repeating: 7, count: 32), nonce: Self.id,
                     ephemeralKey: [UInt8](repeating: 9, count: 32), program: program))
    }

    @Test func helloCarriesTheProgramAsField9() throws {
        let m = try hello(try DisplayName("pbrain-tiny 1.0"))
        let bytes = m.encoded(version: 2)
        #expect(Array(bytes.suffix(18)) == [9, 0, 15] + Array("pbrain-tiny 1.0".utf8))
        #expect(try CodecTests.decodeFrameBytes(bytes) == m)
        // Absent, the HELLO is byte for byte what it was before field 9.
        #expect(try hello(nil).encoded(version: 2).count == bytes.count - 18)
    }

    /// Field 9 or 13 with a control character, bidirectional control or bad UTF-8 is `malformed`.
    @Test func aProgramThatIsNoDisplayNameIsMalformed() throws {
        let good = try hello(nil).encoded(version: 2)
        let bad: [[UInt8]] = [Array("bot\u{7}".utf8), [0x62, 0xff], Array("a\u{202E}b".utf8), [], Array(repeating: 0x61, count: 65)]
        for value in bad {
            var payload = Array(good.dropFirst(12))
            payload += [9, 0, UInt8(value.count)] + value
            let frame = Frame(version: 2, type: Message.Kind.hello.rawValue, payload: payload).bytes
            #expect(CodecTests.wireError { _ = try CodecTests.decodeFrameBytes(frame) }?.code == .malformed, "\(value)")
        }
        let announce = Message.announce(Announce(instanceID: Self.id, name: try DisplayName("g"), tcpPort: 1,
                                                 capabilities: [.tictactoe])).encoded()
        let withBad = Frame(version: 1, type: Message.Kind.announce.rawValue,
                            payload: Array(announce.dropFirst(12)) + [13, 0, 2, 0x0a, 0x62]).bytes
        #expect(CodecTests.wireError { _ = try Message(datagram: withBad) }?.code == .malformed)
    }

    @Test func textFromAProgramIsMadeADisplayName() {
        #expect(DisplayName(fitting: "pbrain-tiny 1.0")?.value == "pbrain-tiny 1.0")
        #expect(DisplayName(fitting: "  Yixin\u{1B}[31m 2018 \t")?.value == "Yixin[31m 2018")
        #expect(DisplayName(fitting: "a\u{202E}b")?.value == "ab")
        #expect(DisplayName(fitting: String(repeating: "é", count: 40))?.value == String(repeating: "é", count: 32))
        #expect(DisplayName(fitting: " \u{7}\u{200F} ") == nil)
        #expect(DisplayName(fitting: "") == nil)
    }
}
