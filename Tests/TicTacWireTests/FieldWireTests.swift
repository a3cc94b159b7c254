import Testing
@testable import TicTacWire

/// The field's messages beyond the round-trip vectors: the original packet, short names, ranges.
@Suite struct FieldWireTests {
    static let seedExample: [UInt8] = ProtocolVectorTests.hexBytes("5370486e706f736e000000a0000000f0ff8000")

    @Test func originalPacketDecodesFromTheSeedsBytes() throws {
        let p = try LegacySphere(datagram: Self.seedExample)
        #expect(p == LegacySphere(x: 160, y: 240, red: 255, green: 128, blue: 0))
        #expect(p.bytes == Self.seedExample)
        #expect(LegacySphere.looksLegacy(Self.seedExample))
    }

    @Test func protocolMdCarriesTheSeedsExample() throws {
        let v = try #require(try ProtocolVectorTests.vectors().first { $0.attributes["legacy"] == "position" })
        #expect(v.bytes == Self.seedExample)
        #expect(try LegacySphere(datagram: v.bytes).x == 160)
    }

    @Test func originalPacketChecksLengthThenMagicThenType() throws {
        var longer = Self.seedExample
        longer.append(0)
        #expect(throws: LegacySphere.DecodeError.length(20)) { try LegacySphere(datagram: longer) }
        #expect(throws: LegacySphere.DecodeError.length(18)) { try LegacySphere(datagram: Array(Self.seedExample.dropLast())) }
        var magic = Self.seedExample
        magic[0] = 0x54
        #expect(throws: LegacySphere.DecodeError.magic) { try LegacySphere(datagram: magic) }
        var type = Self.seedExample
        type[4...7] = [0x71, 0x75, 0x69, 0x74] // 'quit': a type this decoder does not know
        #expect(throws: LegacySphere.DecodeError.unknownType) { try LegacySphere(datagram: type) }
        #expect(!LegacySphere.looksLegacy([0x53, 0x70]))
        let negative = LegacySphere(x: -5, y: .max, red: 1, green: 2, blue: 3)
        #expect(try LegacySphere(datagram: negative.bytes) == negative)
    }

    @Test func sphereRefusesOffFieldCoordinatesAndLongNames() throws {
        let id = ID128(high: 1, low: 2)
        let name = try DisplayName("bob")
        for (x, y) in [(Int32(-1), Int32(0)), (0, 1000), (1000, 0), (.min, .max)] {
            let bytes = Message.sphere(Sphere(instanceID: id, sequence: 1, x: x, y: y, red: 0, green: 0, blue: 0, name: name)).encoded()
            #expect(throws: WireError.self) { try Message(datagram: bytes) }
        }
        let long = try DisplayName(String(repeating: "n", count: 25))
        let bytes = Message.sphere(Sphere(instanceID: id, sequence: 1, x: 0, y: 0, red: 0, green: 0, blue: 0, name: long)).encoded()
        #expect(throws: WireError.self) { try Message(datagram: bytes) }
    }

    @Test func shortNameCutsBetweenCharactersAndStaysAName() throws {
        #expect(Sphere.shortName(try DisplayName("alice")).value == "alice")
        let cut = Sphere.shortName(try DisplayName(String(repeating: "é", count: 20))) // 2 bytes each
        #expect(cut.value == String(repeating: "é", count: 12))
        // A cut that ends on a space drops it (a name has no trailing white space).
        let spaced = Sphere.shortName(try DisplayName(String(repeating: "a", count: 23) + " bcd"))
        #expect(spaced.value == String(repeating: "a", count: 23))
        for n in [try DisplayName(String(repeating: "😀", count: 10)), try DisplayName("a" + String(repeating: "漢", count: 21))] {
            #expect(Sphere.shortName(n).value.utf8.count <= Sphere.maxNameBytes)
        }
    }
}
