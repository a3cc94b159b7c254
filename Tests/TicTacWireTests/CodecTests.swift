import Testing
@testable import TicTacWire

/// The codec's behaviour beyond the Protocol.md vectors: stream chunking, limits, datagram
/// framing, TLV rules, versions, names and ids, and seeded random inputs that must never trap.
@Suite struct CodecTests {
    // MARK: - Helpers

    /// A small seeded generator (SplitMix64), so every random test is deterministic.
    struct Rng: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let alice = ID128(high: 0x0011_2233_4455_6677, low: 0x8899_aabb_ccdd_eeff)
    static let game = ID128(high: 0xfedc_ba98_7654_3210, low: 0x0123_4567_89ab_cdef)
    static let key = [UInt8](repeating: 0xd7, count: Hello.publicKeyLength)

    /// One message of every kind, with edge values where a kind has them.
    static func samples() throws -> [Message] {
        let alice = try DisplayName("alice")
        let wide = try DisplayName(String(repeating: "🎲", count: 16)) // 64 bytes
        return [
            .hello(Hello(minVersion: 1, maxVersion: 1, instanceID: Self.alice, name: alice, capabilities: [.tictactoe, .field],
                         publicKey: Self.key, nonce: Self.game)),
            .hello(Hello(minVersion: 1, maxVersion: 255, instanceID: ID128(high: 0, low: 0), name: wide,
                         capabilities: Capabilities(rawValue: .max), publicKey: [UInt8](repeating: 0, count: 32),
                         nonce: ID128(high: .max, low: .max))),
            .error(code: ErrorCode.illegalMove.rawValue, message: "cell 5 is already taken"),
            .error(code: 0xffff, message: ""),
            .error(code: 1, message: String(repeating: "x", count: Message.maxErrorText)),
            .ping(nonce: 0), .pong(nonce: .max), .leave,
            .proof(signature: (0..<64).map { UInt8($0) }),
            .invite(Invite(gameID: Self.game, rows: 20, cols: 20, k: 5)),
            .accept(gameID: Self.game),
            .decline(gameID: Self.game, reason: .unsupported),
            .cancel(gameID: Self.game),
            .reset,
            .rollCommit(commitment: (0..<32).map { UInt8($0) }),
            .rollCommit(commitment: (0..<32).map { UInt8($0) }, moveTime: .max),
            .roll(value: Message.maxRoll, nonce: ID128(high: .max, low: .max)),
            .rollAck(value: 0),
            .move(cell: .max), .move(cell: 4), .resign, .timeUp,
            .announce(Announce(instanceID: Self.alice, name: alice, tcpPort: 49152, capabilities: [.bot],
                               fieldPort: 0, state: 2, intervalMillis: 60_000)),
            .announce(Announce(instanceID: Self.alice, name: alice, tcpPort: 1, capabilities: [.tictactoe, .bot],
                               intervalMillis: 100, program: wide)),
            .query(from: Self.alice), .goodbye(Self.game),
            .sphere(Sphere(instanceID: Self.alice, sequence: .max, x: 0, y: 999, red: 0, green: 128, blue: 255, name: alice)),
            .fieldLeave(Self.alice, sequence: 0),
            .hello(Hello(minVersion: 1, maxVersion: 2, instanceID: Self.alice, name: alice, capabilities: [.tictactoe, .bot],
                         publicKey: Self.key, nonce: Self.game, ephemeralKey: Self.key, program: wide)),
        ]
    }

    /// A TLV field: tag, u16 length, value.
    static func field(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        [tag, UInt8(value.count >> 8), UInt8(value.count & 0xff)] + value
    }

    /// A 12-byte header with any length (it need not match the bytes that follow).
    static func header(magic: [UInt8] = Frame.magic, version: UInt8 = 1, type: UInt8, flags: UInt16 = 0,
                       length: UInt32) -> [UInt8] {
        var w = ByteWriter()
        w.write(magic)
        w.write(version)
        w.write(type)
        w.write(flags)
        w.write(length)
        return w.bytes
    }

    static func frame(version: UInt8 = 1, type: UInt8, flags: UInt16 = 0, _ payload: [UInt8]) -> [UInt8] {
        Frame(version: version, type: type, flags: flags, payload: payload).bytes
    }

    /// A MOVE padded with an unknown field (tag 9) to exactly `payloadLength` bytes (>= 8).
    static func paddedMove(cell: UInt16, payloadLength: Int) -> [UInt8] {
        let payload = field(1, [UInt8(cell >> 8), UInt8(cell & 0xff)]) + field(9, [UInt8](repeating: 0xa5, count: payloadLength - 8))
        return frame(type: Message.Kind.move.rawValue, payload)
    }

    /// The WireError `body` throws, or nil when it succeeds.
    /// (The codec's functions throw WireError by type; closures here are inferred as untyped.)
    static func wireError(_ body: () throws -> Void) -> WireError? {
        do {
            try body()
            return nil
        } catch let error as WireError {
            return error
        } catch {
            Issue.record("not a WireError: \(error)")
            return nil
        }
    }

    static func decodeFrameBytes(_ bytes: [UInt8]) throws(WireError) -> Message {
        try Message(frame: Frame.decodeDatagram(bytes))
    }

    /// Feeds `stream` in chunks of the given sizes (the last may be cut), draining after each feed.
    static func decode(_ stream: [UInt8], chunks: some Sequence<Int>) throws(WireError) -> (frames: [Frame], decoder: FrameDecoder) {
        var decoder = FrameDecoder()
        var frames: [Frame] = []
        var offset = 0
        var sizes = chunks.makeIterator()
        while offset < stream.count {
            let n = min(sizes.next() ?? stream.count, stream.count - offset)
            decoder.feed(stream[offset..<(offset + n)])
            offset += n
            while let f = try decoder.next() { frames.append(f) }
        }
        return (frames, decoder)
    }

    /// What a batch of random inputs made.
    struct Tally {
        var messages = 0
    }

    /// Decodes a whole input as a datagram and as a stream (random chunks). Every outcome is a
    /// message or a WireError (by type), and every message must survive re-encoding.
    static func robustnessCheck(_ input: [UInt8], rng: inout Rng, tally: inout Tally) throws {
        if let m = decodedOrNil({ () throws(WireError) in try Message(datagram: input) }) {
            #expect(m.kind.isDatagram)
            try roundTrip(m, version: input[4], tally: &tally)
        }
        var decoder = FrameDecoder()
        var offset = 0
        streamLoop: while offset < input.count {
            let n = min(Int.random(in: 1...64, using: &rng), input.count - offset)
            decoder.feed(input[offset..<(offset + n)])
            offset += n
            while true {
                let frame: Frame?
                do {
                    frame = try decoder.next()
                } catch {
                    #expect(wireError { _ = try decoder.next() } == error, "a failed decoder stays failed")
                    break streamLoop
                }
                guard let frame else { break }
                if let m = decodedOrNil({ () throws(WireError) in try Message(frame: frame) }) {
                    try roundTrip(m, version: frame.version, tally: &tally)
                }
            }
            #expect(decoder.bufferedCount < Frame.headerLength + Frame.maxPayloadLength)
        }
    }

    /// The message, or nil for a WireError (whose code must exist).
    static func decodedOrNil(_ body: () throws(WireError) -> Message) -> Message? {
        do {
            return try body()
        } catch {
            _ = error.code
            return nil
        }
    }

    /// `expectRoundTrip`, except for the known ERROR text bug, where the re-encoding must still
    /// be an ERROR with the same code or be refused for the text's length.
    static func roundTrip(_ m: Message, version: UInt8, tally: inout Tally) throws {
        tally.messages += 1
        try expectRoundTrip(m, version: version)
    }

    /// Re-encodes a decoded message with its frame's version; it must decode to an equal message.
    static func expectRoundTrip(_ m: Message, version: UInt8, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = m.encoded(version: version)
        let again = try decodeFrameBytes(bytes)
        #expect(again == m, sourceLocation: sourceLocation)
        #expect(again.encoded(version: version) == bytes, "canonical encoding", sourceLocation: sourceLocation)
    }

    // MARK: - FrameDecoder and chunking

    @Test func anyChunkingGivesTheSameFrames() throws {
        var messages = try Self.samples()
        // Many frames, including ones longer than most chunks, and an empty payload at the end.
        messages += messages.reversed()
        var stream = messages.flatMap { $0.encoded() }
        var expected = messages.map { $0.frame() }
        let big = Self.paddedMove(cell: 7, payloadLength: 5000)
        stream += big + Message.leave.encoded()
        expected += [try Frame.decodeDatagram(big), Message.leave.frame()]

        let oneByOne = try Self.decode(stream, chunks: repeatElement(1, count: stream.count))
        #expect(oneByOne.frames == expected)
        #expect(oneByOne.decoder.bufferedCount == 0)

        for seed in UInt64(1)...25 {
            var rng = Rng(seed: seed)
            let maxChunk = [2, 7, 13, 64, 1000, 6000][Int(seed) % 6]
            let sizes = (0..<stream.count).map { _ in Int.random(in: 1...maxChunk, using: &rng) }
            let chunked = try Self.decode(stream, chunks: sizes)
            #expect(chunked.frames == expected, "seed \(seed)")
            #expect(chunked.decoder.bufferedCount == 0, "seed \(seed)")
        }

        let atOnce = try Self.decode(stream, chunks: [stream.count])
        #expect(atOnce.frames == expected)
        #expect(atOnce.decoder.bufferedCount == 0)
        #expect(try atOnce.frames.map { try Message(frame: $0) } == messages + [.move(cell: 7), .leave])
    }

    @Test func partialHeaderNeedsMoreData() throws {
        let bytes = Message.move(cell: 4).encoded()
        for n in 0..<Frame.headerLength {
            var d = FrameDecoder()
            d.feed(bytes[..<n])
            #expect(try d.next() == nil, "\(n) header bytes")
            #expect(try d.next() == nil, "asking again")
            #expect(d.bufferedCount == n)
        }
        // Header complete, payload not: still "need more", then the frame.
        var d = FrameDecoder()
        d.feed(bytes[..<(bytes.count - 1)])
        #expect(try d.next() == nil)
        #expect(d.bufferedCount == bytes.count - 1)
        d.feed(bytes[(bytes.count - 1)...])
        #expect(try d.next() == Message.move(cell: 4).frame())
        #expect(try d.next() == nil)
        #expect(d.bufferedCount == 0)
        // Nothing fed at all.
        var empty = FrameDecoder()
        #expect(try empty.next() == nil)
        #expect(empty.bufferedCount == 0)
    }

    @Test func tooLargeFailsAsSoonAsTheHeaderIsIn() throws {
        let tooLarge = Self.header(type: Message.Kind.move.rawValue, length: UInt32(Frame.maxPayloadLength + 1))
        var d = FrameDecoder()
        d.feed(tooLarge[..<11])
        #expect(try d.next() == nil)
        d.feed(tooLarge[11...]) // the 12th byte, and no payload at all
        let error = Self.wireError { _ = try d.next() }
        #expect(error == .frameTooLarge(declared: 16385, limit: 16384))
        #expect(error?.code == .frameTooLarge)
        // The decoder stays failed, whatever comes next.
        #expect(Self.wireError { _ = try d.next() } == error)
        d.feed(Message.leave.encoded())
        #expect(Self.wireError { _ = try d.next() } == error)

        // The largest declarable length does not overflow anything.
        var huge = FrameDecoder()
        huge.feed(Self.header(type: 0x24, length: .max))
        #expect(Self.wireError { _ = try huge.next() } == .frameTooLarge(declared: .max, limit: 16384))
        #expect(Self.wireError { _ = try Message(datagram: Self.header(type: 0x30, length: 16385)) }
            == .frameTooLarge(declared: 16385, limit: 16384))
    }

    @Test func maximalPayloadIsAccepted() throws {
        let bytes = Self.paddedMove(cell: 3, payloadLength: Frame.maxPayloadLength)
        #expect(bytes.count == Frame.headerLength + 16384)
        var d = FrameDecoder()
        d.feed(bytes[..<Frame.headerLength])
        #expect(try d.next() == nil, "a 16384-byte payload is allowed: wait for it")
        d.feed(bytes[Frame.headerLength..<(bytes.count - 1)])
        #expect(try d.next() == nil)
        #expect(d.bufferedCount == bytes.count - 1)
        d.feed(bytes[(bytes.count - 1)...])
        let frame = try #require(try d.next())
        #expect(frame.payload.count == 16384)
        #expect(d.bufferedCount == 0)
        #expect(try Message(frame: frame) == .move(cell: 3))
        #expect(try Self.decodeFrameBytes(bytes) == .move(cell: 3))
    }

    @Test func badMagicFailsAtOnce() throws {
        let bad = Self.header(magic: Array("XXXX".utf8), type: 0x24, length: 5) + Self.field(1, [0, 4])
        var d = FrameDecoder()
        d.feed(bad[..<Frame.headerLength]) // no payload needed to know
        let error = Self.wireError { _ = try d.next() }
        #expect(error == .badMagic([0x58, 0x58, 0x58, 0x58]))
        #expect(error?.code == .badMagic)
        d.feed(bad[Frame.headerLength...])
        #expect(Self.wireError { _ = try d.next() } == error)

        // After good frames: those come out first, then the bad header fails.
        var after = FrameDecoder()
        after.feed(Message.ping(nonce: 1).encoded() + Message.reset.encoded() + bad)
        #expect(try after.next() == Message.ping(nonce: 1).frame())
        #expect(try after.next() == Message.reset.frame())
        #expect(Self.wireError { _ = try after.next() } == .badMagic(Array("XXXX".utf8)))
        #expect(Self.wireError { _ = try after.next() } == .badMagic(Array("XXXX".utf8)))

        // Magic that is off by one byte, anywhere.
        for i in 0..<4 {
            var header = Message.leave.encoded()
            header[i] ^= 0x20
            var one = FrameDecoder()
            one.feed(header)
            #expect(Self.wireError { _ = try one.next() }?.code == .badMagic, "byte \(i)")
            #expect(Self.wireError { _ = try Message(datagram: header) }?.code == .badMagic, "datagram, byte \(i)")
        }
    }

    @Test func bufferStaysBoundedOverAMegabyte() throws {
        var rng = Rng(seed: 42)
        var stream: [UInt8] = []
        var expected = 0
        while stream.count < 1 << 20 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: stream += Self.paddedMove(cell: UInt16(expected & 0xffff), payloadLength: Frame.maxPayloadLength)
            case 1: stream += Self.paddedMove(cell: UInt16(expected & 0xffff), payloadLength: Int.random(in: 8...9000, using: &rng))
            default: stream += Message.move(cell: UInt16(expected & 0xffff)).encoded()
            }
            expected += 1
        }
        let chunk = 1024
        let bound = Frame.headerLength + Frame.maxPayloadLength + chunk
        var d = FrameDecoder()
        var cells: [UInt16] = []
        var highest = 0
        var offset = 0
        while offset < stream.count {
            let n = min(chunk, stream.count - offset)
            d.feed(stream[offset..<(offset + n)])
            offset += n
            highest = max(highest, d.bufferedCount)
            #expect(d.bufferedCount <= bound)
            // The storage behind it is compacted too (consumed bytes are dropped): at most twice
            // an incomplete frame, plus the read just appended.
            #expect(Self.storageCount(d) <= 2 * (Frame.headerLength + Frame.maxPayloadLength) + chunk)
            while let f = try d.next() {
                guard case let .move(cell) = try Message(frame: f) else {
                    Issue.record("not a move")
                    continue
                }
                cells.append(cell)
            }
            #expect(d.bufferedCount < Frame.headerLength + Frame.maxPayloadLength)
        }
        #expect(cells == (0..<expected).map { UInt16($0 & 0xffff) })
        #expect(d.bufferedCount == 0)
        #expect(highest <= bound)
        #expect(highest > Frame.maxPayloadLength, "the stream had maximal frames")
    }

    /// The byte count of the decoder's private storage (its one [UInt8] property), read by
    /// reflection so the test sees consumed bytes the decoder has not dropped yet.
    static func storageCount(_ d: FrameDecoder) -> Int {
        let storage = Mirror(reflecting: d).children.compactMap { $0.value as? [UInt8] }
        #expect(storage.count == 1, "FrameDecoder keeps its bytes in one [UInt8]")
        return storage.first?.count ?? 0
    }
}
