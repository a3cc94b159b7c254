#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacNet
import TicTacTestSupport
import TicTacTime
import TicTacWire

/// tools/test (as root) gives the test namespace a private dbus-daemon and avahi-daemon on a
/// link of its own, and says so with TICTAC_TEST_AVAHI=1.
private enum PrivateAvahi {
    static let env = ProcessInfo.processInfo.environment
    static let present = env["TICTAC_TEST_AVAHI"] == "1"
    /// Under CI a missing Avahi fails these tests instead of skipping them.
    static let required = env["CI"] == "true"
    static let pidFile = "/run/avahi-daemon/pid"

    static func currentPid() -> pid_t? {
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8) else { return nil }
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Runs a program to its end; returns its standard output.
    @discardableResult
    static func run(_ path: String, _ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Stops the namespace's avahi-daemon (by the pid it wrote) and waits until it is gone.
    static func stop() throws {
        let pid = try #require(currentPid(), "no \(pidFile): avahi-daemon is not running")
        kill(pid, SIGTERM)
        var waited = 0
        while FileManager.default.fileExists(atPath: pidFile), waited < 100 { usleep(50_000); waited += 1 }
        #expect(!FileManager.default.fileExists(atPath: pidFile), "avahi-daemon did not stop")
    }

    /// Starts it again with the configuration tools/test wrote; returns once it answers.
    static func start() throws {
        let conf = try #require(env["TICTAC_TEST_AVAHI_CONF"])
        try run("/usr/sbin/avahi-daemon", ["-f", conf, "--daemonize", "--no-chroot", "--no-rlimits"])
        var waited = 0
        while currentPid() == nil, waited < 50 { usleep(100_000); waited += 1 }
    }
}

/// Events an agent reported, in order.
private final class EventLog {
    var events: [DNSSDEvent] = []

    func sighting(of id: ID128) -> DNSSDSighting? {
        events.reversed().lazy.compactMap { if case let .up(s) = $0, s.instanceID == id { s } else { nil } }.first
    }

    var registeredNames: [String] { events.compactMap { if case let .registered(n) = $0 { n } else { nil } } }
    var unavailableLines: [String] { events.compactMap { if case let .unavailable(l) = $0 { l } else { nil } } }
}

/// Two agents on one reactor, each with its own instance id, and what each saw.
private final class Pair {
    let reactor: Reactor
    let a: AvahiDNSSDAgent, b: AvahiDNSSDAgent
    let logA = EventLog(), logB = EventLog()
    let idA: ID128, idB: ID128

    init(service: DNSSDService = .tictactoe) throws {
        var rng = SystemRandomNumberGenerator()
        idA = ID128.random(using: &rng)
        idB = ID128.random(using: &rng)
        reactor = try Reactor()
        a = AvahiDNSSDAgent(reactor: reactor, service: service)
        b = AvahiDNSSDAgent(reactor: reactor, service: service)
        a.onEvent = { [logA] in logA.events.append($0) }
        b.onEvent = { [logB] in logB.events.append($0) }
    }

    /// Runs the loop until `done` holds or `limit` passes (real Avahi: real time).
    func pump(_ limit: Duration = .seconds(15), until done: () -> Bool) throws -> Bool {
        try run(reactor, for: limit, until: done)
    }

    func stop() {
        a.stop()
        b.stop()
    }
}

/// A name no earlier test left behind.
private func uniqueName(_ base: String) -> String { "\(base)-\(UInt16.random(in: 1000...9999))" }

@Suite(.serialized, .enabled(if: PrivateAvahi.present || PrivateAvahi.required,
                             "no private avahi-daemon: run tools/test as root (it sets TICTAC_TEST_AVAHI=1)"))
struct DNSSDAvahiTests {
    init() throws {
        try #require(PrivateAvahi.present, "CI=true but tools/test could not start a private avahi-daemon")
    }

    @Test func twoAgentsSeeEachOtherWithPortTXTAndAddress() throws {
        let p = try Pair()
        defer { p.stop() }
        let nameA = uniqueName("Ann"), nameB = uniqueName("Bob")
        p.a.start(name: nameA, port: 40001, txt: DNSSDTXT(instanceID: p.idA, state: .idle, games: [.tictactoe]))
        p.b.start(name: nameB, port: 40002, txt: DNSSDTXT(instanceID: p.idB, state: .busy, games: [.tictactoe, .field]))
        // A sighting is reported with its first address and again as more arrive (A and AAAA
        // answer separately): wait for the IPv4 one.
        let seen = try p.pump {
            p.logA.sighting(of: p.idB)?.addresses.contains("198.18.200.1") == true && p.logB.sighting(of: p.idA) != nil
        }
        #expect(seen, "events: A \(p.logA.events), B \(p.logB.events)")
        let b = try #require(p.logA.sighting(of: p.idB))
        #expect(b.instanceName == nameB)
        #expect(b.port == 40002)
        #expect(b.state == .busy)
        #expect(b.games == [.tictactoe, .field])
        #expect(b.versions == ProtocolVersion.supported)
        #expect(b.addresses.contains("198.18.200.1"))
        let a = try #require(p.logB.sighting(of: p.idA))
        #expect(a.port == 40001 && a.state == .idle && a.games == [.tictactoe])
        #expect(p.logA.registeredNames == [nameA])
        // The self-filter: neither reports itself.
        #expect(p.logA.sighting(of: p.idA) == nil)
        #expect(p.logB.sighting(of: p.idB) == nil)
        p.stop()
        #expect(p.a.openRefCount == 0 && p.b.openRefCount == 0)
        #expect(p.reactor.registeredCount == 0)
    }

    @Test func aNameConflictEndsWithTwoDistinctNames() throws {
        let p = try Pair()
        defer { p.stop() }
        let same = uniqueName("Same")
        p.a.start(name: same, port: 40003, txt: DNSSDTXT(instanceID: p.idA))
        p.b.start(name: same, port: 40004, txt: DNSSDTXT(instanceID: p.idB))
        try #require(try p.pump { !p.logA.registeredNames.isEmpty && !p.logB.registeredNames.isEmpty }, "both registered")
        let names = Set(p.logA.registeredNames + p.logB.registeredNames)
        #expect(names == [same, same + " #2"])
        // And each sees the other under the other's final name.
        try #require(try p.pump { p.logA.sighting(of: p.idB) != nil && p.logB.sighting(of: p.idA) != nil }, "each sees the other")
        #expect(p.logA.sighting(of: p.idB)?.instanceName == p.logB.registeredNames.last)
        #expect(p.logB.sighting(of: p.idA)?.instanceName == p.logA.registeredNames.last)
    }

    @Test func aStoppedAgentGoesDownAtTheOther() throws {
        let p = try Pair()
        defer { p.stop() }
        let nameB = uniqueName("Bob")
        p.a.start(name: uniqueName("Ann"), port: 40005, txt: DNSSDTXT(instanceID: p.idA))
        p.b.start(name: nameB, port: 40006, txt: DNSSDTXT(instanceID: p.idB))
        try #require(try p.pump { p.logA.sighting(of: p.idB) != nil })
        p.b.stop()
        let reportedByB = p.logB.events.count
        let down = DNSSDEvent.down(instanceName: nameB, instanceID: p.idB)
        #expect(try p.pump { p.logA.events.contains(down) }, "events: \(p.logA.events)")
        #expect(p.logB.events.count == reportedByB) // a stopped agent reports nothing more
    }

    @Test func anUpdatedTXTIsSeenByTheOther() throws {
        let p = try Pair()
        defer { p.stop() }
        p.a.start(name: uniqueName("Ann"), port: 40007, txt: DNSSDTXT(instanceID: p.idA))
        p.b.start(name: uniqueName("Bob"), port: 40008, txt: DNSSDTXT(instanceID: p.idB, state: .idle))
        try #require(try p.pump { p.logA.sighting(of: p.idB)?.state == .idle })
        p.b.update(txt: DNSSDTXT(instanceID: p.idB, state: .playing, games: [.tictactoe, .field]))
        let updated = try p.pump { p.logA.sighting(of: p.idB)?.state == .playing }
        #expect(updated, "events: \(p.logA.events)")
        #expect(p.logA.sighting(of: p.idB)?.games == [.tictactoe, .field])
    }

    @Test func anIndependentClientListsOurServiceWithTheDocumentedTXT() throws {
        let p = try Pair()
        defer { p.stop() }
        let name = uniqueName("Listed")
        p.a.start(name: name, port: 40009, txt: DNSSDTXT(instanceID: p.idA, state: .playing, games: [.field]))
        try #require(try p.pump { p.logA.registeredNames == [name] })
        // `avahi-browse -p` prints resolved lines as
        // =;IFACE;PROTO;NAME;TYPE;DOMAIN;HOST;ADDRESS;PORT;"key=value" ...
        var line: Substring?
        for _ in 0..<5 {
            if line != nil { break }
            let out = try PrivateAvahi.run("/usr/bin/avahi-browse", ["-r", "-t", "-p", "_tictactoe._tcp"])
            line = out.split(separator: "\n").first { $0.hasPrefix("=;") && $0.contains(";\(name);") }
        }
        let fields = try #require(line, "avahi-browse did not list \(name)").split(separator: ";")
        #expect(fields.count >= 10)
        #expect(fields[4] == "_tictactoe._tcp")
        // The host's address on the test interface: IPv4, or its IPv6 link-local one (avahi-browse
        // prints whichever address record it resolved first).
        #expect(fields[7] == "198.18.200.1" || fields[7].hasPrefix("fe80:"), "\(fields[7])")
        #expect(fields[8] == "40009")
        let txt = Set(fields[9].split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) })
        #expect(txt == ["txtvers=1", "id=\(p.idA)", "v=\(ProtocolVersion.supported.lowerBound)-\(ProtocolVersion.supported.upperBound)", "st=playing", "g=field"])
    }

    @Test func fieldAgentsPublishAndBrowseSpherenetWithTheFieldPortAndId() throws {
        let p = try Pair(service: .field)
        defer { p.stop() }
        let nameA = uniqueName("FieldAnn")
        p.a.start(name: nameA, port: 40021, txt: DNSSDTXT(instanceID: p.idA, games: [.field]))
        p.b.start(name: uniqueName("FieldBob"), port: 40022, txt: DNSSDTXT(instanceID: p.idB, games: [.field]))
        let seen = try p.pump { p.logA.sighting(of: p.idB) != nil && p.logB.sighting(of: p.idA) != nil }
        #expect(seen, "events: A \(p.logA.events), B \(p.logB.events)")
        let a = try #require(p.logB.sighting(of: p.idA))
        #expect(a.instanceName == nameA && a.port == 40021 && a.games == [.field])
        #expect(p.logA.sighting(of: p.idA) == nil)
        // An independent client lists it under the seed's type with the record of Protocol.md §11.
        var line: Substring?
        for _ in 0..<5 where line == nil {
            let out = try PrivateAvahi.run("/usr/bin/avahi-browse", ["-r", "-t", "-p", "_spherenet._udp"])
            line = out.split(separator: "\n").first { $0.hasPrefix("=;") && $0.contains(";\(nameA);") }
        }
        let fields = try #require(line, "avahi-browse did not list \(nameA)").split(separator: ";")
        #expect(fields.count >= 10 && fields[4] == "_spherenet._udp" && fields[8] == "40021")
        let txt = Set(fields[9].split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) })
        #expect(txt == ["txtvers=1", "id=\(p.idA)", "v=\(ProtocolVersion.supported.lowerBound)-\(ProtocolVersion.supported.upperBound)"])
    }

    @Test func withoutTheDaemonOneLineThenRecoveryWhenItReturns() throws {
        let p = try Pair()
        let c = AvahiDNSSDAgent(reactor: p.reactor)
        let logC = EventLog()
        c.onEvent = { logC.events.append($0) }
        let idC = ID128(high: p.idA.high, low: p.idA.low &+ 1)
        defer { p.stop(); c.stop() }
        var restarted = false
        defer { if !restarted, PrivateAvahi.currentPid() == nil { try? PrivateAvahi.start() } }
        // A and B see each other first: their resolves and address queries are open when the
        // daemon goes (Avahi 0.8's library crashed the process there without CDNSSD's fix).
        p.a.start(name: uniqueName("Ann"), port: 40011, txt: DNSSDTXT(instanceID: p.idA))
        p.b.start(name: uniqueName("Bob"), port: 40012, txt: DNSSDTXT(instanceID: p.idB))
        try #require(try p.pump { p.logA.sighting(of: p.idB) != nil && p.logB.sighting(of: p.idA) != nil })

        try PrivateAvahi.stop()
        #expect(try p.pump { !p.logA.unavailableLines.isEmpty && !p.logB.unavailableLines.isEmpty })
        // Peers seen through DNS-SD are reported gone with it.
        #expect(p.logA.events.contains(.down(instanceName: p.logB.registeredNames.last ?? "", instanceID: p.idB)))
        // An agent started while the daemon is absent says so too.
        c.start(name: uniqueName("Cat"), port: 40013, txt: DNSSDTXT(instanceID: idC))
        // Stay without it through several retries (after 1 s, 2 s): still one line each.
        try turn(p.reactor, for: .seconds(3.5))
        let line = "DNS-SD unavailable: avahi-daemon is not running; using broadcast discovery only"
        #expect(p.logA.unavailableLines == [line])
        #expect(p.logB.unavailableLines == [line])
        #expect(logC.unavailableLines == [line])
        #expect(logC.registeredNames.isEmpty)

        try PrivateAvahi.start()
        restarted = true
        let registeredBefore = p.logA.registeredNames.count
        #expect(try p.pump(.seconds(20)) { p.logA.registeredNames.count > registeredBefore && !logC.registeredNames.isEmpty },
                "events: A \(p.logA.events), C \(logC.events)")
        // Browsing works again too: A sees B again, and the newcomer.
        #expect(try p.pump { p.logA.events.filter { if case let .up(s) = $0 { s.instanceID == p.idB } else { false } }.count >= 2
                && p.logA.sighting(of: idC) != nil })
        #expect(p.logA.unavailableLines.count == 1 && p.logB.unavailableLines.count == 1 && logC.unavailableLines.count == 1)
        p.stop()
        c.stop()
        #expect(p.a.openRefCount == 0 && p.b.openRefCount == 0 && c.openRefCount == 0)
        #expect(p.reactor.registeredCount == 0)
    }
}
