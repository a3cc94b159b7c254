import Testing
import TicTacWire

/// Protocol.md §7: every datagram message fits well under a link's MTU (never fragmented);
/// the largest, an ANNOUNCE with a 64-byte name and a 64-byte program, is the bound the spec states.
@Suite struct DatagramSizeTests {
    @Test func theLargestDatagramIsTheBoundProtocolMdStates() throws {
        let id = ID128(high: .max, low: .max)
        let longest = try DisplayName(String(repeating: "x", count: DisplayName.maxBytes))
        let announce = Message.announce(Announce(instanceID: id, name: longest, tcpPort: .max, capabilities: Capabilities(rawValue: .max),
                                                 fieldPort: .max, state: 2, intervalMillis: Announce.intervalRange.upperBound,
                                                 program: longest))
        let sphereName = try DisplayName(String(repeating: "x", count: Sphere.maxNameBytes))
        let sphere = Message.sphere(Sphere(instanceID: id, sequence: .max, x: 999, y: 999, red: 255, green: 255, blue: 255,
                                           name: sphereName))
        let sizes = [announce, .query(from: id), .goodbye(id), sphere, .fieldLeave(id, sequence: .max)].map { $0.encoded().count }
        #expect(sizes.max() == announce.encoded().count)
        #expect(announce.encoded().count == 199) // Protocol.md §7
        // Signed: the seal's 113 bytes more (Protocol.md §6).
        #expect(announce.encoded().count + PresenceSeal.fieldsLength == 312)
    }
}
