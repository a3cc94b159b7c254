import Testing
import TicTacAPI
import TicTacWire
@testable import TicTacDaemonCore

/// A player is told of the watchers its opponent's daemon serves (SPECTATORS field 2, Protocol.md
/// §14): ben never sees ann's watchers' links, yet hears how many watch their game.
@Suite struct SpectatorCountTests {
    let s = SpectatorTests()

    /// Time passes, and what it made the cores send is delivered.
    func wait(_ n: inout CoreNet, _ ms: Int64) {
        n.advance(by: .milliseconds(ms))
        n.settle()
    }

    func counts(_ n: CoreNet, _ i: Int) -> [Int] {
        n.events[i].compactMap { if case let .watchers(c) = $0 { c } else { nil } }
    }

    @Test func theOpponentsWatchersAreCounted() throws {
        var n = try s.net(watchers: 2)
        try s.watch(&n, 2)
        wait(&n, 10)
        #expect(counts(n, 0).last == 1, "ann serves one")
        #expect(counts(n, 1).last == 1, "ben is told of it")
        try s.watch(&n, 3)
        wait(&n, 600) // one round of counts each 500 ms
        #expect(counts(n, 0).last == 2 && counts(n, 1).last == 2)
        try n.command(2, .watch("ann", Watch(.stop)))
        n.settle()
        wait(&n, 600)
        #expect(counts(n, 1).last == 1)
        // ann's link to ben closes: what ann served goes from ben's count with it.
        let link = try #require(n.wires.first { $0.value.0 == 0 && $0.value.1 == 1 || $0.value.0 == 1 && $0.value.1 == 0 }?.key)
        n.close(link)
        n.settle()
        #expect(counts(n, 1).last == 0, "\(counts(n, 1))")
        // Nothing but players hears a count: the watchers' cores got none.
        #expect(counts(n, 2).isEmpty && counts(n, 3).isEmpty)
    }

    @Test func countsComeAtMostTwiceASecond() throws {
        var n = try s.net(watchers: 6)
        for i in 2..<8 {
            try s.watch(&n, i)
            wait(&n, 50)
        }
        wait(&n, 600)
        #expect(counts(n, 1).last == 6)
        #expect(counts(n, 1).count <= 3, "six changes in 300 ms make at most three rounds: \(counts(n, 1))")
    }

    /// §14's message set is taken by its parts through DaemonCore's one list (MessagePart): each
    /// kind by one part, none of the core's own.
    @Test func everySpectatingKindHasOnePart() {
        let core = DaemonCore(config: config("ann", seed: 5))
        let taken = core.messageParts.all.flatMap(\.kinds)
        #expect(Set(taken).count == taken.count, "no kind taken twice")
        #expect(Set(taken) == Set(Message.Kind.allCases.filter(\.isSpectating)))
        #expect(core.messageParts.part(for: .watch) === core.spectators)
        #expect(core.messageParts.part(for: .games) === core.watching)
        #expect(core.messageParts.part(for: .move) == nil)
    }
}
