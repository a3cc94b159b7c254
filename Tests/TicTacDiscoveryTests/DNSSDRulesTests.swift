import Testing
import TicTacTestSupport
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacTime
import TicTacWire

/// Protocol.md §10's one-sentence rules, each with its code: a repeated key, one version or a
/// range with nothing in common, the case of values, SRV port 0, why a record is dropped, why
/// our name is not the one asked for.
@Suite struct DNSSDRulesTests {
    static let id = ID128(high: 0x0011_2233_4455_6677, low: 0x8899_aabb_ccdd_eeff)

    static func record(_ strings: [String]) -> [UInt8] {
        strings.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
    }

    @Test func ofARepeatedKeyTheFirstOnTheWireCountsThroughAvahiToo() throws {
        let wire = ["txtvers=1", "id=\(Self.id)", "v=1-1", "st=playing", "ST=busy"]
        #expect(try DNSSDTXT(decoding: Self.record(wire)).state == .playing)
        // Avahi 0.8's library hands the strings over reversed: read as they came, the last wins.
        let fromAvahi = Self.record(wire.reversed())
        #expect(try DNSSDTXT(decoding: fromAvahi).state == .busy)
        #expect(DNSSDTXT.avahiWireOrder(fromAvahi) == Self.record(wire))
        #expect(try DNSSDTXT(decoding: DNSSDTXT.avahiWireOrder(fromAvahi)).state == .playing)
        // A record that cannot be split is left as it is (and refused by the decoder).
        #expect(DNSSDTXT.avahiWireOrder([5, 1]) == [5, 1])
    }

    @Test func oneVersionIsAcceptedByBothServicesAndARangeWithNothingInCommonIsStillAPeer() throws {
        let one = Self.record(["txtvers=1", "id=\(Self.id)", "v=1"])
        #expect(try DNSSDTXT(decoding: one).versions == 1...1)
        #expect(try DNSSDTXT(decodingField: one).versions == 1...1)
        let later = try DNSSDTXT(decoding: Self.record(["txtvers=1", "id=\(Self.id)", "v=2-3"]))
        #expect(later.versions == 2...3, "reported with its versions; the handshake refuses it if dialled")
        for bad in ["v=3-2", "v=1-", "v=-1", "v=0", "v=1-2-3"] {
            #expect(throws: DNSSDTXTError.invalid("v")) { try DNSSDTXT(decoding: Self.record(["txtvers=1", "id=\(Self.id)", bad])) }
        }
    }

    @Test func stateAndGameValuesReadInAnyCase() throws {
        let txt = try DNSSDTXT(decoding: Self.record(["txtvers=1", "id=\(Self.id)", "v=1-1", "st=Playing", "g=TTT,Field"]))
        #expect(txt.state == .playing && txt.games == [.tictactoe, .field])
    }

    @Test func aDroppedRecordSaysWhyOnceAndPortZeroIsNotAPeer() {
        var core = DNSSDCore()
        let now = Instant(nanoseconds: 1_000_000_000)
        func feed(_ input: DNSSDInput) -> [DNSSDEvent] {
            core.handle(input, now: now)
            return core.pollActions().compactMap { if case let .emit(e) = $0 { e } else { nil } }
        }
        _ = feed(.start(name: "Ann", port: 4000, txt: DNSSDTXT(instanceID: ID128(high: 1, low: 1))))
        _ = feed(.browsed(instance: "Bob", added: true, moreComing: false))
        let v2 = Self.record(["txtvers=2", "id=\(Self.id)", "v=1-1"])
        #expect(feed(.resolved(instance: "Bob", host: "h.local.", port: 5000, txt: v2))
            == [.dropped(instanceName: "Bob", reason: "TXT key txtvers invalid")])
        #expect(feed(.resolved(instance: "Bob", host: "h.local.", port: 5000, txt: v2)) == [], "said once")
        let good = DNSSDTXT(instanceID: Self.id).encoded()
        #expect(feed(.resolved(instance: "Bob", host: "h.local.", port: 0, txt: good))
            == [.dropped(instanceName: "Bob", reason: "SRV port 0")])
        #expect(feed(.address(instance: "Bob", ip: "198.18.200.2", added: true)) == [])
        let up = feed(.resolved(instance: "Bob", host: "h.local.", port: 5000, txt: good))
        #expect(up.count == 1 && { if case .up = up.first { true } else { false } }())
    }

    @Test func theRenameNoticeSaysWhetherTheNameWasCutOrTaken() {
        let long = String(repeating: "é", count: 40) // 80 bytes
        let cut = DNSSDCore.instanceName(long)
        #expect(DNSSDCore.renameReason(requested: "ann", registered: "ann") == nil)
        #expect(DNSSDCore.renameReason(requested: "ann", registered: "ann #2") == "the name was taken")
        #expect(DNSSDCore.renameReason(requested: long, registered: cut) == "the name is cut to 63 bytes, the most a DNS label holds")
        #expect(DNSSDCore.renameReason(requested: long, registered: "é #2") == "the name is cut to fit DNS, and was taken")
    }

    @Test func theTXTSaysWhatTheAnnounceSays() {
        var local = LocalPresence(id: Self.id, name: "ann".display,
                                  port: 1, capabilities: [.tictactoe, .field, .bot], state: .playing)
        #expect(DNSSDTXT(local) == DNSSDTXT(instanceID: Self.id, state: .playing, games: [.tictactoe, .field]))
        local.capabilities = [.tictactoe]
        #expect(DNSSDTXT(local).games == [.tictactoe])
    }
}
