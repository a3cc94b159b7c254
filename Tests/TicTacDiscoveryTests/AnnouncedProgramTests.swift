import Testing
import TicTacEngine
import TicTacDiscoveryCore
import TicTacWire

/// ANNOUNCE field 13 (Protocol.md §6): the program playing under a peer's name reaches the
/// lobby, signed, and no unsigned datagram changes a signed peer's.
@Suite struct AnnouncedProgramTests {
    /// A signing daemon that announces `program`.
    func engineBot(_ n: UInt8, program: String?) -> DiscoveryCore {
        let key = presenceKey(n)
        let local = LocalPresence(id: key.instanceID, name: "gomoku".display, port: 40000, capabilities: [.tictactoe, .bot],
                                  program: program?.display)
        return DiscoveryCore(local: local, key: key, wallClockMillis: 1_700_000_000_000, random: SplitMix64(seed: UInt64(n)))
    }

    @Test func aSignedAnnounceCarriesTheProgramToThePeer() throws {
        var a = core(1, "ann"), bot = engineBot(2, program: "pbrain-tiny 1.0")
        bot.handle(.start, now: at(0))
        let datagram = try #require(bot.drainRaw().sent.first)
        guard case let .announce(an)? = try? Message(datagram: datagram) else { Issue.record("not an ANNOUNCE"); return }
        #expect(an.program?.value == "pbrain-tiny 1.0")
        // Field 13 sits before the seal, whose signature stays the last field and verifies.
        let seal = try #require(try PresenceSeal.read(datagram))
        #expect(PresenceKey.verify(datagram, seal: seal, id: bot.local.id))
        a.handle(.datagram(datagram, from: "198.18.0.2"), now: at(1))
        let peer = try #require(a.peer(bot.local.id))
        #expect(peer.signed && peer.program == "pbrain-tiny 1.0")
        #expect(a.drain().events.contains(.found(peer)))
    }

    @Test func aDaemonWithoutAProgramSendsNoField13() throws {
        var bot = engineBot(3, program: nil)
        bot.handle(.start, now: at(0))
        let datagram = try #require(bot.drainRaw().sent.first)
        #expect(try Message(datagram: datagram).announceProgram == nil)
        var a = core(1, "ann")
        a.handle(.datagram(datagram, from: "198.18.0.3"), now: at(1))
        #expect(a.peer(bot.local.id)?.program == nil)
    }

    @Test func anUnsignedAnnounceNeverChangesASignedPeersProgram() throws {
        var a = core(1, "ann"), bot = engineBot(4, program: "pbrain-tiny 1.0")
        bot.handle(.start, now: at(0))
        a.handle(.datagram(try #require(bot.drainRaw().sent.first), from: "198.18.0.4"), now: at(1))
        let forged = Message.announce(Announce(instanceID: bot.local.id, name: "gomoku".display, tcpPort: 40000,
                                               capabilities: [.tictactoe, .bot], program: "world champion".display)).encoded()
        a.handle(.datagram(forged, from: "198.18.0.66"), now: at(2))
        #expect(a.peer(bot.local.id)?.program == "pbrain-tiny 1.0")
    }

    @Test func anUnsignedPeerShowsItsProgramAsAHint() throws {
        var a = core(1, "ann")
        let id = ID128(high: 9, low: 9)
        let datagram = Message.announce(Announce(instanceID: id, name: "old".display, tcpPort: 40000,
                                                 capabilities: [.tictactoe, .bot], program: "pbrain-x 2".display)).encoded()
        a.handle(.datagram(datagram, from: "198.18.0.9"), now: at(1))
        #expect(a.peer(id)?.program == "pbrain-x 2" && a.peer(id)?.signed == false)
    }
}

extension Message {
    var announceProgram: DisplayName? { if case let .announce(a) = self { a.program } else { nil } }
}
