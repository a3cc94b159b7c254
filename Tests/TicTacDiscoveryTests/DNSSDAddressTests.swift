@testable import TicTacDiscovery
@testable import TicTacDiscoveryCore
import Testing

/// A and AAAA record data as the addresses a sighting carries.
@Suite struct DNSSDAddressTests {
    private func text(_ rrtype: UInt16, _ bytes: [UInt8], interface: UInt32 = 3) -> String? {
        bytes.withUnsafeBytes { AvahiDNSSDAgent.address(rrtype: rrtype, $0, interface: interface) }
    }

    @Test func ipv4AndIPv6() {
        #expect(text(1, [198, 18, 200, 1]) == "198.18.200.1")
        let global: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [1]
        #expect(text(28, global) == "2001:db8::1") // no scope outside link-local
    }

    @Test func linkLocalCarriesItsInterfaceAsScope() {
        let ll: [UInt8] = [0xfe, 0x80] + Array(repeating: 0, count: 13) + [1]
        #expect(text(28, ll) == "fe80::1%3")
        #expect(text(28, ll, interface: 0) == "fe80::1") // no interface known: none made up
        let febf: [UInt8] = [0xfe, 0xbf] + Array(repeating: 0, count: 14)
        #expect(text(28, febf, interface: 7) == "febf::%7") // fe80::/10 ends at febf
        let fec0: [UInt8] = [0xfe, 0xc0] + Array(repeating: 0, count: 14)
        #expect(text(28, fec0) == "fec0::")
    }

    @Test func recordsOfTheWrongSizeOrTypeAreSkipped() {
        #expect(text(1, [1, 2, 3]) == nil)
        #expect(text(1, [1, 2, 3, 4, 5]) == nil)
        #expect(text(28, [UInt8](repeating: 0, count: 4)) == nil)
        #expect(text(16, [1, 2, 3, 4]) == nil) // a TXT record is no address
        #expect(text(1, []) == nil)
    }
}
