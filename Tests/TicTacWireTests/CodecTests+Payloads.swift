import Testing
@testable import TicTacWire

/// CodecTests' datagrams and TLV payloads.
extension CodecTests {
    // MARK: - Datagrams

    @Test func datagramLengthIsExact() throws {
        let announce = try Self.samples().first { $0.kind == .announce }!
        let bytes = announce.encoded()
        #expect(try Message(datagram: bytes) == announce)
        for kind in try Self.samples().filter(\.kind.isDatagram) {
            #expect(try Message(datagram: kind.encoded()) == kind)
        }
        #expect(Self.wireError { _ = try Message(datagram: Array(bytes.dropLast())) } == .truncated)
        #expect(Self.wireError { _ = try Message(datagram: Array(bytes.prefix(11))) } == .truncated)
        #expect(Self.wireError { _ = try Message(datagram: []) } == .truncated)
        #expect(Self.wireError { _ = try Message(datagram: bytes + [0]) } == .trailingBytes(1))
        #expect(Self.wireError { _ = try Message(datagram: bytes + bytes) } == .trailingBytes(bytes.count))
        #expect(WireError.truncated.code == .malformed)
        #expect(WireError.trailingBytes(1).code == .malformed)
    }

    @Test func tcpOnlyMessageInADatagramIsRefused() throws {
        for m in try Self.samples() where !m.kind.isDatagram {
            let error = Self.wireError { _ = try Message(datagram: m.encoded()) }
            #expect(error != nil, "\(m.kind) must not be accepted from UDP")
            // The same bytes are fine on TCP.
            #expect(try Self.decodeFrameBytes(m.encoded()) == m)
        }
        #expect(Self.wireError { _ = try Message(datagram: Message.move(cell: 4).encoded()) }
            == .wrongTransport(type: 0x24))
        #expect(WireError.wrongTransport(type: 0x24).code == .unexpectedMessage) // Protocol.md §5
    }

    // MARK: - TLV payloads

    @Test func unknownTagsAreSkipped() throws {
        let move = Message.Kind.move.rawValue
        let payload = Self.field(0, []) + Self.field(1, [0, 8]) + Self.field(9, [0xab, 0xcd]) + Self.field(255, [UInt8](repeating: 1, count: 300))
        #expect(try Self.decodeFrameBytes(Self.frame(type: move, payload)) == .move(cell: 8))
        // An unknown field of a datagram kind, too.
        let query = Self.field(1, Self.alice.bytes) + Self.field(2, [1, 2, 3])
        #expect(try Message(datagram: Self.frame(type: 0x31, query)) == .query(from: Self.alice))
        // Unknown fields on a message without fields.
        #expect(try Self.decodeFrameBytes(Self.frame(type: 0x05, Self.field(7, [7]))) == .leave)
    }

    @Test func tlvErrorsAreMalformed() throws {
        let move: UInt8 = 0x24
        let cases: [(String, [UInt8], WireError)] = [
            ("duplicate tag", Self.field(1, [0, 4]) + Self.field(1, [0, 5]), .duplicateField(type: move, tag: 1)),
            ("field past end", [1, 0, 5], .truncated),
            ("field value past end", [1, 0, 5, 0, 4], .truncated),
            ("half a field header", Self.field(1, [0, 4]) + [9, 0], .truncated),
            ("lone tag", Self.field(1, [0, 4]) + [9], .truncated),
            ("u16 as u8", Self.field(1, [4]), .badFieldLength(type: move, tag: 1, length: 1)),
            ("u16 as u32", Self.field(1, [0, 0, 0, 4]), .badFieldLength(type: move, tag: 1, length: 4)),
            ("missing field", [], .missingField(type: move, tag: 1)),
            ("only unknown fields", Self.field(2, [0, 4]), .missingField(type: move, tag: 1)),
        ]
        for (what, payload, expected) in cases {
            let error = Self.wireError { _ = try Self.decodeFrameBytes(Self.frame(type: move, payload)) }
            #expect(error == expected, "\(what)")
            #expect(error?.code == .malformed, "\(what)")
        }

        // Fixed sizes of the other kinds, and ranges.
        let others: [(String, UInt8, [UInt8], WireError)] = [
            ("id of 15 bytes", 0x11, Self.field(1, [UInt8](repeating: 1, count: 15)), .badFieldLength(type: 0x11, tag: 1, length: 15)),
            ("id of 17 bytes", 0x31, Self.field(1, [UInt8](repeating: 1, count: 17)), .badFieldLength(type: 0x31, tag: 1, length: 17)),
            ("commitment of 31 bytes", 0x21, Self.field(1, [UInt8](repeating: 1, count: 31)), .badFieldLength(type: 0x21, tag: 1, length: 31)),
            ("u64 nonce of 7 bytes", 0x03, Self.field(1, [UInt8](repeating: 1, count: 7)), .badFieldLength(type: 0x03, tag: 1, length: 7)),
            ("rgb of 4 bytes", 0x40, Self.field(1, Self.alice.bytes) + Self.field(2, [0, 0, 0, 1]) + Self.field(3, [0, 0, 0, 0])
                + Self.field(4, [0, 0, 0, 0]) + Self.field(5, [1, 2, 3, 4]), .badFieldLength(type: 0x40, tag: 5, length: 4)),
            ("hello without a name", 0x01, Self.field(1, [1]) + Self.field(2, [1]) + Self.field(3, Self.alice.bytes)
                + Self.field(5, [0, 0, 0, 1]), .missingField(type: 0x01, tag: 4)),
            ("decline without a reason", 0x12, Self.field(1, Self.game.bytes), .missingField(type: 0x12, tag: 2)),
            ("signature of 63 bytes", 0x06, Self.field(1, [UInt8](repeating: 1, count: 63)), .badFieldLength(type: 0x06, tag: 1, length: 63)),
            ("signature of 65 bytes", 0x06, Self.field(1, [UInt8](repeating: 1, count: 65)), .badFieldLength(type: 0x06, tag: 1, length: 65)),
            ("hello with a 31-byte key", 0x01, Self.field(1, [1]) + Self.field(2, [1]) + Self.field(3, Self.alice.bytes)
                + Self.field(4, Array("bob".utf8)) + Self.field(5, [0, 0, 0, 1]) + Self.field(6, [UInt8](repeating: 1, count: 31))
                + Self.field(7, Self.game.bytes), .badFieldLength(type: 0x01, tag: 6, length: 31)),
            ("hello without a nonce", 0x01, Self.field(1, [1]) + Self.field(2, [1]) + Self.field(3, Self.alice.bytes)
                + Self.field(4, Array("bob".utf8)) + Self.field(5, [0, 0, 0, 1]) + Self.field(6, Self.key),
             .missingField(type: 0x01, tag: 7)),
        ]
        for (what, type, payload, expected) in others {
            let error = Self.wireError { _ = try Self.decodeFrameBytes(Self.frame(type: type, payload)) }
            #expect(error == expected, "\(what)")
            #expect(error?.code == .malformed, "\(what)")
        }

        let outOfRange: [(String, UInt8, [UInt8])] = [
            ("roll of 1,000,000", 0x22, Self.field(1, [0x00, 0x0f, 0x42, 0x40]) + Self.field(2, Self.alice.bytes)),
            ("roll ack of 2^32 - 1", 0x23, Self.field(1, [0xff, 0xff, 0xff, 0xff])),
            ("hello lowest version 0", 0x01, Self.field(1, [0]) + Self.field(2, [1]) + Self.field(3, Self.alice.bytes)
                + Self.field(4, Array("bob".utf8)) + Self.field(5, [0, 0, 0, 1])),
            ("hello inverted range", 0x01, Self.field(1, [3]) + Self.field(2, [2]) + Self.field(3, Self.alice.bytes)
                + Self.field(4, Array("bob".utf8)) + Self.field(5, [0, 0, 0, 1])),
            ("invite of 0 rows", 0x10, Self.field(1, Self.game.bytes) + Self.field(2, [0]) + Self.field(3, [3]) + Self.field(4, [3])),
        ]
        for (what, type, payload) in outOfRange {
            let error = Self.wireError { _ = try Self.decodeFrameBytes(Self.frame(type: type, payload)) }
            guard case .invalidValue(type, _, _)? = error else {
                Issue.record("\(what): \(String(describing: error))")
                continue
            }
            #expect(error?.code == .malformed, "\(what)")
        }
        // The edge of the roll range is fine.
        #expect(try Self.decodeFrameBytes(Self.frame(type: 0x23, Self.field(1, [0x00, 0x0f, 0x42, 0x3f]))) == .rollAck(value: 999_999))
    }
}
