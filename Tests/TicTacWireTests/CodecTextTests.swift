import Testing
@testable import TicTacWire

/// More of `CodecTests` (split for length): types and versions, names and text, identifiers and versions, and
/// seeded random inputs that must never trap.
extension CodecTests {
    // MARK: - Types and versions

    @Test func unknownTypesAndVersions() throws {
        let unknown = Self.frame(type: 0x7f, [1, 2, 3]) // payload not even TLV: it is not read
        let error = Self.wireError { _ = try Self.decodeFrameBytes(unknown) }
        #expect(error == .unknownType(0x7f, ignorable: false))
        #expect(error?.code == .unknownType)
        let ignorable = Self.frame(type: 0x7f, flags: Frame.ignorableFlag, [1, 2, 3])
        #expect(Self.wireError { _ = try Self.decodeFrameBytes(ignorable) } == .unknownType(0x7f, ignorable: true))
        // Reserved flag bits do not matter.
        let reserved = Self.frame(type: 0x27, flags: 0xfffe, [])
        #expect(Self.wireError { _ = try Self.decodeFrameBytes(reserved) } == .unknownType(0x27, ignorable: false))
        #expect(try Self.decodeFrameBytes(Self.frame(type: 0x24, flags: 0xffff, Self.field(1, [0, 4]))) == .move(cell: 4))
        // A stream carries on past an ignorable frame (the caller skips it).
        var d = FrameDecoder()
        d.feed(ignorable + Message.resign.encoded())
        let skipped = try #require(try d.next())
        #expect(skipped.isIgnorable)
        let next = try #require(try d.next())
        #expect(try Message(frame: next) == .resign)
        // Every undefined type code is unknown.
        for type in UInt8.min...UInt8.max where Message.Kind(rawValue: type) == nil {
            #expect(Self.wireError { _ = try Self.decodeFrameBytes(Self.frame(type: type, [])) } == .unknownType(type, ignorable: false))
        }

        // Versions: every type but HELLO and ERROR needs a supported one.
        let move = Self.field(1, [0, 4])
        for version: UInt8 in [0, 3, 9, 255] {
            let e = Self.wireError { _ = try Self.decodeFrameBytes(Self.frame(version: version, type: 0x24, move)) }
            #expect(e == .unsupportedVersion(version))
            #expect(e?.code == .unsupportedVersion)
        }
        let sample = try Self.samples()
        let hello = sample[0]
        for version: UInt8 in [0, 3, 9, 255] {
            #expect(try Self.decodeFrameBytes(hello.encoded(version: version)) == hello, "HELLO under version \(version)")
            #expect(try Self.decodeFrameBytes(sample[2].encoded(version: version)) == sample[2], "ERROR under version \(version)")
        }
        #expect(Self.wireError { _ = try Message(datagram: Message.query(from: Self.alice).encoded(version: 9)) } == .unsupportedVersion(9))
    }

    // MARK: - Names and text

    @Test func displayNamesAccepted() throws {
        for name in ["alice", "Ünïcödé 🎲", "a b", "x", String(repeating: "a", count: 64), "e\u{301}", "ali\u{200B}ce",
                     "\u{5E9}\u{5DC}\u{5D5}\u{5DD}", "\u{627}\u{644}\u{633}",
                     String(repeating: "🎲", count: 16), String(repeating: "é", count: 32)] {
            let n = try DisplayName(name)
            #expect(n.value == name)
            #expect(try DisplayName(utf8: Array(name.utf8)[...]) == n)
        }
    }

    @Test func displayNamesRefused() throws {
        let cases: [(String, [UInt8], NameError)] = [
            ("empty", [], .empty),
            ("65 bytes", [UInt8](repeating: 0x61, count: 65), .tooLong(65)),
            ("63 bytes and a 2-byte letter", [UInt8](repeating: 0x61, count: 63) + Array("é".utf8), .tooLong(65)),
            ("invalid byte", [0x61, 0xff, 0x62], .invalidUTF8),
            ("cut sequence", [0x61, 0xc3], .invalidUTF8),
            ("overlong slash", [0xc0, 0xaf], .invalidUTF8),
            ("surrogate", [0xed, 0xa0, 0x80], .invalidUTF8),
            ("ESC", Array("a\u{1b}[2J".utf8), .controlCharacter),
            ("NUL", [0x61, 0x00, 0x62], .controlCharacter),
            ("tab inside", Array("a\tb".utf8), .controlCharacter),
            ("DEL", Array("a\u{7f}b".utf8), .controlCharacter),
            ("U+0085", Array("a\u{85}b".utf8), .controlCharacter),
            ("U+009F", Array("a\u{9f}b".utf8), .controlCharacter),
            ("U+2028", Array("a\u{2028}b".utf8), .controlCharacter),
            ("U+2029", Array("a\u{2029}b".utf8), .controlCharacter),
            ("leading space", Array(" alice".utf8), .surroundingSpace),
            ("trailing space", Array("alice ".utf8), .surroundingSpace),
            ("only a space", Array(" ".utf8), .surroundingSpace),
            ("leading no-break space", Array("\u{a0}alice".utf8), .surroundingSpace),
            ("trailing ideographic space", Array("alice\u{3000}".utf8), .surroundingSpace),
            ("U+202E right-to-left override", Array("\u{202E}ecila".utf8), .bidiControl),
            ("U+202A embedding", Array("a\u{202A}b".utf8), .bidiControl),
            ("U+2066 isolate", Array("a\u{2066}b".utf8), .bidiControl),
            ("U+2069 pop isolate", Array("a\u{2069}b".utf8), .bidiControl),
            ("U+200E mark", Array("a\u{200E}".utf8), .bidiControl),
            ("U+200F mark", Array("\u{200F}b".utf8), .bidiControl),
            ("U+061C Arabic letter mark", Array("a\u{61C}b".utf8), .bidiControl),
            ("U+200B alone", Array("\u{200B}".utf8), .invisible),
            ("U+2060 and U+FEFF", Array("\u{2060}\u{FEFF}".utf8), .invisible),
            ("a combining mark alone", Array("\u{301}".utf8), .invisible),
            ("combining marks and a joiner", Array("\u{301}\u{200D}\u{20DD}".utf8), .invisible),
            ("Hangul filler", Array("\u{3164}".utf8), .invisible),
        ]
        for (what, bytes, expected) in cases {
            #expect(throws: expected, "\(what)") { try DisplayName(utf8: bytes[...]) }
            // On the wire, a refused name makes the message malformed.
            let hello = Self.field(1, [1]) + Self.field(2, [1]) + Self.field(3, Self.alice.bytes)
                + Self.field(4, bytes) + Self.field(5, [0, 0, 0, 1])
            let error = Self.wireError { _ = try Self.decodeFrameBytes(Self.frame(type: 0x01, hello)) }
            guard case .invalidValue(0x01, 4, _)? = error else {
                Issue.record("\(what) in HELLO: \(String(describing: error))")
                continue
            }
            #expect(error?.code == .malformed)
        }
        #expect(throws: NameError.tooLong(65)) { try DisplayName(String(repeating: "b", count: 65)) }
    }

    @Test func errorTextIsSanitisedOnDecode() throws {
        func decodeText(_ text: [UInt8]) throws(WireError) -> String {
            let m = try Self.decodeFrameBytes(Self.frame(type: 0x02, Self.field(1, [0, 7]) + Self.field(2, text)))
            guard case let .error(code, message) = m, code == 7 else { Issue.record("not the ERROR: \(m)"); return "" }
            return message
        }
        #expect(try decodeText(Array("a\u{1b}[2Jb".utf8)) == "a?[2Jb")
        #expect(try decodeText(Array("\u{7f}\u{85}\u{2028}\u{2029}\r\n\0".utf8)) == String(repeating: "?", count: 7))
        #expect(try decodeText(Array("plain, ünïcödé 🎲".utf8)) == "plain, ünïcödé 🎲")
        #expect(try decodeText([]) == "")
        #expect(try decodeText([UInt8](repeating: 0x61, count: 256)) == String(repeating: "a", count: 256))
        #expect(Self.wireError { _ = try decodeText([UInt8](repeating: 0x61, count: 257)) } == .badFieldLength(type: 2, tag: 2, length: 257))
        let invalid = Self.wireError { _ = try decodeText([0x61, 0xff]) }
        guard case .invalidValue(2, 2, _)? = invalid else {
            Issue.record("invalid UTF-8 in ERROR text: \(String(describing: invalid))")
            return
        }
        // The sender cuts an over-long ASCII text to the limit.
        let long = Message.error(code: 1, message: String(repeating: "z", count: 1000))
        #expect(try Self.decodeFrameBytes(long.encoded()) == .error(code: 1, message: String(repeating: "z", count: 256)))
    }

    /// ERROR text at the limit: cleaning never makes it longer (a control becomes "?"), and the
    /// encoder cuts a long text between characters, so both ends agree on every byte.
    /// (Found by the fuzzer: U+FFFD replacement outgrew 256 bytes, and a cut mid-scalar sent 258.)
    @Test func errorTextRoundTripsAtTheLimit() throws {
        // 254 'a' + U+0085: 256 bytes on the wire; 255 once cleaned.
        let wire = Self.frame(type: 0x02, Self.field(1, [0, 1]) + Self.field(2, [UInt8](repeating: 0x61, count: 254) + [0xc2, 0x85]))
        let decoded = try Self.decodeFrameBytes(wire)
        #expect(decoded == .error(code: 1, message: String(repeating: "a", count: 254) + "?"))
        try Self.expectRoundTrip(decoded, version: 1)
        // A sender's own long text is cut before a 2-byte scalar, never inside it.
        let cut = Message.error(code: 1, message: "a" + String(repeating: "é", count: 200))
        #expect(try Self.decodeFrameBytes(cut.encoded()) == .error(code: 1, message: "a" + String(repeating: "é", count: 127)))
    }

    // MARK: - Identifiers and versions

    @Test func id128HexAndOrder() throws {
        var rng = Rng(seed: 7)
        var ids = [ID128(high: 0, low: 0), ID128(high: 0, low: 1), ID128(high: 1, low: 0),
                   ID128(high: 0, low: .max), ID128(high: .max, low: .max), Self.alice, Self.game]
        for _ in 0..<200 { ids.append(.random(using: &rng)) }
        for id in ids {
            let hex = id.description
            #expect(hex.utf8.count == 32)
            #expect(hex.allSatisfy { "0123456789abcdef".contains($0) })
            #expect(ID128(hex: hex) == id)
            #expect(ID128(hex: hex.uppercased()) == id)
            #expect(ID128(bytes: id.bytes[...]) == id)
            #expect(id.bytes.count == 16)
        }
        #expect(ID128(high: 0, low: 1).description == "00000000000000000000000000000001")
        #expect(Self.alice.description == "00112233445566778899aabbccddeeff")
        #expect(ID128(hex: "00112233445566778899aabbccddeeff") == Self.alice)
        for bad in ["", "0011", "00112233445566778899aabbccddeef", "00112233445566778899aabbccddeeff0",
                    "0011223344556677 899aabbccddeeff", "g0112233445566778899aabbccddeeff"] {
            #expect(ID128(hex: bad) == nil, "\(bad)")
        }
        // Order is that of 128-bit unsigned integers: the big-endian bytes compared in order.
        for a in ids.prefix(60) {
            for b in ids.prefix(60) {
                #expect((a < b) == a.bytes.lexicographicallyPrecedes(b.bytes))
            }
        }
        #expect(ID128(high: 0, low: .max) < ID128(high: 1, low: 0))
        #expect(ids.sorted().map(\.description) == ids.map(\.description).sorted())
    }

    /// Known issue (minor, not wire-facing): `ID128(hex:)` parses each half with
    /// `UInt64(_:radix:)`, which takes a sign, so 32 characters that are not 32 hex digits pass.
    @Test func id128HexRefusesSigns() {
        #expect(ID128(hex: "+000000000000001" + "0000000000000000") == nil)
        #expect(ID128(hex: "0000000000000000" + "-000000000000000") == nil)
    }

    @Test func negotiateVersions() {
        // Overlap: the highest common version.
        #expect(ProtocolVersion.negotiate(local: 1...3, remoteMin: 2, remoteMax: 5) == 3)
        #expect(ProtocolVersion.negotiate(local: 2...6, remoteMin: 1, remoteMax: 4) == 4)
        #expect(ProtocolVersion.negotiate(local: 1...3, remoteMin: 3, remoteMax: 3) == 3)
        #expect(ProtocolVersion.negotiate(local: 1...1, remoteMin: 1, remoteMax: 1) == 1)
        #expect(ProtocolVersion.negotiate(remoteMin: 1, remoteMax: 9) == ProtocolVersion.current)
        // Disjoint.
        #expect(ProtocolVersion.negotiate(local: 1...2, remoteMin: 3, remoteMax: 4) == nil)
        #expect(ProtocolVersion.negotiate(local: 3...4, remoteMin: 1, remoteMax: 2) == nil)
        #expect(ProtocolVersion.negotiate(local: 1...1, remoteMin: 0, remoteMax: 0) == nil)
        // An inverted remote range is empty, even where its ends straddle ours.
        #expect(ProtocolVersion.negotiate(local: 1...3, remoteMin: 3, remoteMax: 1) == nil)
        #expect(ProtocolVersion.negotiate(local: 1...1, remoteMin: 2, remoteMax: 1) == nil)
        // Both sides compute the same value from the same two ranges.
        for a in UInt8(1)...5 { for b in a...5 { for c in UInt8(1)...5 { for d in c...5 {
            let mine = ProtocolVersion.negotiate(local: a...b, remoteMin: c, remoteMax: d)
            #expect(mine == ProtocolVersion.negotiate(local: c...d, remoteMin: a, remoteMax: b))
            let common = (a...b).filter { (c...d).contains($0) }
            #expect(mine == common.max())
        } } } }
    }

    // MARK: - Round trips and random input

    @Test func everySampleRoundTrips() throws {
        for m in try Self.samples() {
            try Self.expectRoundTrip(m, version: ProtocolVersion.current)
            var d = FrameDecoder()
            d.feed(m.encoded())
            #expect(try d.next().map { try Message(frame: $0) } == m)
            #expect(d.bufferedCount == 0)
        }
    }

    @Test func randomBytesNeverTrap() throws {
        var rng = Rng(seed: 20_000)
        var tally = Tally()
        for i in 0..<20_000 {
            var input: [UInt8]
            let length = Int.random(in: 0...(i % 10 == 0 ? 600 : 60), using: &rng)
            input = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if i % 2 == 1 {
                // A plausible header in front, so the payload decoders are reached too.
                let kinds = Message.Kind.allCases
                let type = Bool.random(using: &rng) ? kinds.randomElement(using: &rng)!.rawValue : UInt8.random(in: 0...255, using: &rng)
                let declared = Bool.random(using: &rng) ? UInt32(input.count) : UInt32.random(in: 0...40, using: &rng)
                input = Self.header(version: UInt8.random(in: 0...2, using: &rng), type: type,
                                    flags: UInt16.random(in: 0...1, using: &rng), length: declared) + input
            }
            try Self.robustnessCheck(input, rng: &rng, tally: &tally)
        }
        #expect(tally.messages > 0, "some random inputs make messages")
    }

    @Test func mutatedMessagesNeverTrap() throws {
        var rng = Rng(seed: 99)
        let originals = try Self.samples().map { $0.encoded() }
        var tally = Tally()
        for i in 0..<20_000 {
            var input = originals[i % originals.count]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: input[Int.random(in: 0..<input.count, using: &rng)] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
                case 1: input[Int.random(in: 0..<input.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                case 2: if input.count > 1 { input.removeLast(Int.random(in: 1..<input.count, using: &rng)) }
                default: input += (0..<Int.random(in: 1...8, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                }
            }
            try Self.robustnessCheck(input, rng: &rng, tally: &tally)
        }
        #expect(tally.messages > 1000, "many mutated inputs still make messages")
    }
}
