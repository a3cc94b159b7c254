import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

/// Protocol.md §4, duplicate links: two daemons that dial each other, in every order of the two
/// handshakes and of an INVITE from each side, end with one link, the peer found once on each
/// side and never lost, and the invitation (or the game) intact. Sans-I/O, on virtual time.
@Suite struct DuplicateLinkTests {
    /// One hop of a link: whatever is in flight towards `core` on `link` arrives.
    struct Hop: Equatable { let core: Int, link: LinkID }
    enum Step: Equatable { case hop(Hop), invite(Int) }

    /// Every interleaving of two sequences (order within each kept).
    static func interleavings<T>(_ a: [T], _ b: [T]) -> [[T]] {
        if a.isEmpty { return [b] }
        if b.isEmpty { return [a] }
        return interleavings(Array(a.dropFirst()), b).map { [a[0]] + $0 }
            + interleavings(a, Array(b.dropFirst())).map { [b[0]] + $0 }
    }

    /// A link's handshake, hop by hop: the dialler gets the acceptor's HELLO (and proves), the
    /// acceptor gets HELLO and PROOF (ready, proves), the dialler gets that PROOF (ready); with
    /// `extra`, one more hop towards the acceptor for what the dialler sent once ready.
    static func handshake(_ link: LinkID, dialler: Int, extra: Bool = true) -> [Step] {
        (extra ? [dialler, 1 - dialler, dialler, 1 - dialler] : [dialler, 1 - dialler, dialler])
            .map { .hop(Hop(core: $0, link: link)) }
    }

    /// Every order of both handshakes (each side gets ready on each link at every point
    /// relative to the other link), with `ann` and `ben` each inviting at every point or never:
    /// 20 interleavings x 8 x 8. (The signatures make each run cost milliseconds in a debug build.)
    static let orders: [[Step]] = {
        var all: [[Step]] = []
        for base in interleavings(handshake(1, dialler: 0, extra: false), handshake(2, dialler: 1, extra: false)) {
            for a in 0...base.count + 1 {
                for b in 0...base.count + 1 {
                    var steps = base
                    // count + 1: that side never invites.
                    if b <= steps.count { steps.insert(.invite(1), at: b) }
                    if a <= base.count { steps.insert(.invite(0), at: a) }
                    all.append(steps)
                }
            }
        }
        return all
    }()

    /// The same identity with a fresh random source (far apart seeds: SplitMix64 streams of
    /// neighbouring seeds overlap).
    static func fresh(_ c: DaemonConfig, seed: UInt64) -> DaemonConfig {
        var c = c
        let randoms = SeededRandoms(seed)
        c.makeRandom = { randoms.make() }
        return c
    }

    private func isPlaying(_ g: GameSession?) -> Bool { g?.state == .myTurn || g?.state == .opponentTurn }

    @Test func everyOrderOfTwoHandshakesAndTwoInvitesEndsWithOneLinkAndAGame() throws {
        var failures: [String] = []
        let ann = config("ann", seed: 31), ben = config("ben", seed: 32) // key pairs made once
        for steps in Self.orders {
            var n = CoreNet(Self.fresh(ann, seed: 31), Self.fresh(ben, seed: 5_032))
            _ = n.connect(dialler: 0)
            _ = n.connect(dialler: 1)
            var invited = false
            for step in steps {
                switch step {
                case let .hop(h): n.deliver(to: h.core, link: h.link)
                case let .invite(i):
                    // Before the peer is in the lobby the command is refused: nothing was sent.
                    if (try? n.command(i, .invite(i == 0 ? "ben" : "ann"))) != nil { invited = true }
                }
            }
            n.settle()
            if let problem = check(&n, invited: invited) {
                failures.append("\(steps): \(problem)")
                if failures.count >= 5 { break }
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// What must hold once all is delivered; nil when it does.
    private func check(_ n: inout CoreNet, invited: Bool) -> String? {
        if !n.errors.isEmpty { return "errors \(n.errors)" }
        if n.cores[0].linkCount != 1 || n.cores[1].linkCount != 1 || n.closed.count != 1 {
            return "links \(n.cores[0].linkCount), \(n.cores[1].linkCount), closed \(n.closed)"
        }
        for i in 0..<2 {
            let found = n.count(i) { if case .peerFound = $0 { true } else { false } }
            let lost = n.count(i) { if case .peerLost = $0 { true } else { false } }
            let gone = n.count(i) {
                switch $0 {
                case .inviteCancelled, .declined, .disconnected: true
                default: false
                }
            }
            if found != 1 || lost != 0 { return "core \(i): peer found \(found), lost \(lost)" }
            if gone != 0 { return "core \(i): an invitation or game ended: \(n.events[i])" }
            if n.count(i, { if case .invited = $0 { true } else { false } }) > 1 { return "core \(i) invited twice" }
        }
        guard invited else { return nil }
        if !isPlaying(n.game(0)) {
            // One invitation stands: its invitee accepts.
            guard let invitee = (0..<2).first(where: { i in n.count(i) { if case .invited = $0 { true } else { false } } == 1 }) else {
                return "an invitation went out and nobody was invited: \(n.events)"
            }
            do { try n.command(invitee, .accept) } catch { return "accept: \(error)" }
            n.settle()
        }
        if !isPlaying(n.game(0)) || !isPlaying(n.game(1)) { return "no game: \(n.events)" }
        if !n.errors.isEmpty { return "errors \(n.errors)" }
        return nil
    }

    /// A running game on one link; a dial from either side lands late (as after a lost SYN),
    /// its handshake interleaved with the players' moves. The game goes on, on the old link.
    @Test(arguments: [0, 1])
    func aLateDialNeverEndsARunningGame(lateDialler: Int) throws {
        let late = Self.handshake(2, dialler: lateDialler)
        for cut in 0...late.count {
            var n = CoreNet(config("ann", seed: 31), config("ben", seed: 32))
            _ = n.connect(dialler: 1 - lateDialler)
            n.settle()
            try n.command(0, .invite("ben"))
            n.settle()
            try n.command(1, .accept)
            n.settle()
            #expect(isPlaying(n.game(0)) && isPlaying(n.game(1)))
            _ = n.connect(dialler: lateDialler)
            for (i, step) in late.enumerated() {
                if i == cut { try move(&n) }
                if case let .hop(h) = step { n.deliver(to: h.core, link: h.link) }
            }
            n.settle()
            try move(&n)
            n.settle()
            #expect(n.errors.isEmpty, "\(n.errors)")
            #expect(n.cores[0].linkCount == 1 && n.cores[1].linkCount == 1 && n.closed == [2], "cut \(cut)")
            #expect(n.game(0)?.board == n.game(1)?.board && n.game(0)?.board.isEmpty == false)
            for i in 0..<2 {
                #expect(n.count(i) { if case .disconnected = $0 { true } else { false } } == 0)
                #expect(n.count(i) { if case .peerLost = $0 { true } else { false } } == 0)
                #expect(n.count(i) { if case .peerFound = $0 { true } else { false } } == 1)
            }
        }
    }

    /// Whoever is to move takes the first free cell.
    private func move(_ n: inout CoreNet) throws {
        for i in 0..<2 {
            guard let g = n.game(i), g.state == .myTurn,
                  let cell = (0..<g.board.size.cellCount).first(where: { g.board[$0] == .empty }) else { continue }
            try n.command(i, .move(cell))
        }
    }

    /// Two bots that `--connect` each other, in every order of the two handshakes: a game
    /// always starts (measured before: none at all in 5 of 20 trials).
    @Test func twoBotsDiallingEachOtherAlwaysPlay() throws {
        var failures: [String] = []
        for steps in Self.interleavings(Self.handshake(1, dialler: 0, extra: false), Self.handshake(2, dialler: 1, extra: false)) {
            var n = CoreNet(config("ann", seed: 31, bot: .random), config("ben", seed: 32, bot: .random))
            _ = n.connect(dialler: 0)
            _ = n.connect(dialler: 1)
            for case let .hop(h) in steps { n.deliver(to: h.core, link: h.link) }
            n.settle()
            let started = (0..<2).map { i in n.count(i) { if case .game(.gameStarted, _) = $0 { true } else { false } } }
            if !n.errors.isEmpty || n.cores[0].linkCount != 1 || n.cores[1].linkCount != 1 || started.contains(0) {
                failures.append("\(steps): links \(n.cores[0].linkCount) \(n.cores[1].linkCount), started \(started), \(n.errors)")
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
