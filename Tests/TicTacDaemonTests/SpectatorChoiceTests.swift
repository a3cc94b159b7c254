import Testing
import TicTacAPI
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// A player's change of mind reaches the other player's daemon (SPECTATORS, Protocol.md §14),
/// and one source address holds a bounded share of a daemon's watchers. ann (core 0) and ben
/// (core 1) play; watchers (cores 2...) follow ann's game through ann's daemon.
@Suite struct SpectatorChoiceTests {
    let s = SpectatorTests()

    func isGame(_ u: WatchUpdate?) -> Bool { if case .game = u { true } else { false } }
    func moves(_ n: CoreNet, _ i: Int) -> Int { s.updates(n, i).count { if case .move = $0 { true } else { false } } }

    @Test func anOpponentWhoTurnsWatchingOffIsNoLongerWatchedHereThenOnAgainIs() throws {
        var n = try s.net(watchers: 2)
        try n.play(moves: 1)
        try s.watch(&n, 2)
        #expect(isGame(s.updates(n, 2).first))

        try n.command(1, .spectators(false)) // ben, mid-game
        n.settle()
        #expect(s.updates(n, 2).last == .stopped(.off), "ann's daemon stops its watcher of ben's game")
        #expect(n.cores[0].watcherCount == 0)
        #expect(n.logs[0].contains { $0.hasPrefix("ben turned spectators off") }, "ann's operator log says why")
        let told = n.events[0].compactMap { if case let .opponentSpectators(p, allowed) = $0 { (p.name, allowed) } else { nil } }
        #expect(told.count == 1 && told.first?.0 == "ben" && told.first?.1 == false, "ann's player is told who said no: \(told)")
        try s.watch(&n, 3)
        #expect(s.updates(n, 3) == [.stopped(.off)], "a new WATCH is refused")
        try s.watch(&n, 3, Watch(.list))
        #expect(s.updates(n, 3).last == .games([]), "and the game is not listed")
        let seen = moves(n, 2)
        try n.play(moves: 2)
        #expect(moves(n, 2) == seen, "no move told after the stop")

        try n.command(1, .spectators(true))
        n.settle()
        #expect(n.events[0].contains { if case .opponentSpectators(_, true) = $0 { true } else { false } })
        try s.watch(&n, 3, Watch(.list))
        let ben = WatchPlayer(id: n.cores[1].config.instanceID, name: n.cores[1].config.name)
        #expect(s.updates(n, 3).last == .games([ListedGame(opponent: ben, rows: 3, cols: 3, k: 3, moves: 3)]))
        try s.watch(&n, 3)
        guard case let .game(g) = s.updates(n, 3).last else { Issue.record("served again: \(s.updates(n, 3))"); return }
        #expect(g.moves.map(Int.init) == n.game(0)?.moves)
        try n.play(moves: 1)
        #expect(moves(n, 3) == 1)
        #expect(n.errors.isEmpty && n.closed.isEmpty, "\(n.errors)")
    }

    /// The choice goes on every link to a player, not only a game's: made before a link exists
    /// (told right after its handshake) or while it is idle, it holds for the match that follows.
    @Test func aChoiceMadeBeforeTheMatchHoldsForIt() throws {
        for before in [true, false] {
            var n = try s.net(match: false)
            if before {
                try n.command(1, .spectators(false))
                n.settle()
                // A second link ben dials to ann, set up after the choice: its HELLO still has the bit.
                n.close(1)
                _ = n.connect(dialler: 1, to: 0)
                n.settle()
            } else {
                try n.command(1, .spectators(false))
                n.settle()
            }
            try n.command(0, .invite("ben"))
            n.settle()
            try n.command(1, .accept)
            n.settle()
            #expect(n.game(0) != nil)
            try s.watch(&n, 2)
            #expect(s.updates(n, 2) == [.stopped(.off)], before ? "a link made after the choice" : "an idle link")
            #expect(n.errors.isEmpty, "\(n.errors)")
        }
    }

    /// Toggling cannot flood: at most four rounds a second go out; the choice as it is when the
    /// second is over goes after it, so the other daemon ends with the player's last choice.
    @Test func togglingIsBoundedAndTheLastChoiceWins() throws {
        var n = try s.net()
        for i in 0..<9 { try n.command(1, .spectators(i % 2 == 1)) } // off, on, ... off: nine changes at once
        n.settle()
        let annSide = try #require(n.cores[0].links[1])
        #expect(annSide.watchChoice.peer == true, "four rounds went: off, on, off, on")
        #expect(n.errors.isEmpty && n.closed.isEmpty, "\(n.errors)")
        n.advance(by: .seconds(1))
        n.settle()
        #expect(annSide.watchChoice.peer == false, "the last choice, once the second is over")
        try s.watch(&n, 2)
        #expect(s.updates(n, 2) == [.stopped(.off)])
        #expect(n.errors.isEmpty && n.closed.isEmpty, "\(n.errors)")
    }

    /// A peer that sends SPECTATORS again and again is a flood: the ninth within a second closes.
    @Test func aSpectatorsFloodClosesTheLink() throws {
        var n = try s.net(watchers: 0)
        for i in 0..<8 { n.send(.spectators(i % 2 == 0), from: 1, link: 1) }
        n.settle()
        #expect(!n.closed.contains(1))
        n.send(.spectators(true), from: 1, link: 1)
        n.settle()
        #expect(n.closed.contains(1))
        #expect(n.count(0) { if case .protocolError(_, .unexpectedMessage, _, true) = $0 { true } else { false } } == 1)
    }

    /// On a watcher's link SPECTATORS is kept and changes nothing: no game goes on it.
    @Test func aWatchersSpectatorsChangesNothing() throws {
        var n = try s.net()
        try s.watch(&n, 2)
        n.send(.spectators(false), from: 2, link: 2)
        n.settle()
        #expect(!n.closed.contains(2) && n.errors.isEmpty)
        try n.play(moves: 1)
        #expect(moves(n, 2) == 1, "the watcher still follows")
    }

    /// Version 1 has no §14: SPECTATORS is never sent on a version-1 link, and one that comes is
    /// an unknown IGNORABLE type there, skipped.
    @Test func onAVersionOneLinkNothingIsToldAndSpectatorsIsSkipped() throws {
        var n = CoreNet(s.player("ann", seed: 81), s.player("ben", seed: 82))
        _ = n.connect(dialler: 0, to: 1)
        n.settle()
        try n.command(1, .spectators(false))
        n.settle()
        #expect(!n.sent(1).contains { if case .spectators = $0 { true } else { false } })
        n.send(.spectators(false), from: 1, link: 1)
        n.settle()
        #expect(n.cores[0].links[1]?.watchChoice.peer == nil)
        #expect(n.errors.isEmpty && n.closed.isEmpty)
    }

    /// One source address holds at most 8 of a daemon's watchers; another address is still served.
    @Test func watchersArePerAddressBounded() throws {
        let configs = [s.player("ann", seed: 81), s.player("ben", seed: 82)] + (0..<10).map(s.watcher)
        var n = CoreNet(configs, sealed: true)
        _ = n.connect(dialler: 0, to: 1)
        for w in 2...10 { _ = n.connect(dialler: w, to: 0, address: "198.18.0.200") } // nine links from one host
        _ = n.connect(dialler: 11, to: 0)
        n.settle()
        try n.command(0, .invite("ben"))
        n.settle()
        try n.command(1, .accept)
        n.settle()
        for w in 2...11 { try s.watch(&n, w) }
        #expect((2...9).allSatisfy { isGame(s.updates(n, $0).first) })
        #expect(s.updates(n, 10) == [.stopped(.full)], "the ninth from 198.18.0.200")
        #expect(isGame(s.updates(n, 11).first), "another host is served")
        #expect(n.cores[0].watcherCount == 9)
        // One of the host's watchers stops: its place is free again.
        try s.watch(&n, 2, Watch(.stop))
        try s.watch(&n, 10)
        #expect(isGame(s.updates(n, 10).last))
    }
}
