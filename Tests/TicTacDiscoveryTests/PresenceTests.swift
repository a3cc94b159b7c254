import Testing
import TicTacDiscovery
import TicTacDiscoveryCore

@Suite struct PresenceTests {
    @Test func stateNamesRoundTrip() {
        for s in [PresenceState.idle, .playing, .busy] {
            #expect(PresenceState(name: s.description) == s)
        }
        #expect(PresenceState(name: "sleeping") == nil)
    }

    @Test func sourceNamesAreTheJSONContract() {
        #expect(PeerSources([.broadcast, .dnssd]).names == ["broadcast", "dns-sd"])
        #expect(PeerSources.manual.names == ["manual"])
    }
}
