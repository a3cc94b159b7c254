import Testing
import TicTacAPI
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// A peer that has our reveal knows who moves first before it reveals or acknowledges; ending the
/// match or the link then, by any route, is its loss by forfeit (Protocol.md §8).
@Suite struct RollForfeitTests {
    /// Every way a peer can end the match or the link.
    enum Route: CaseIterable { case leave, close, cancel, resign, cancelThenInvite, error }

    /// ann (core 0) invited ben (core 1) on `link`; ben accepted and committed, and ann's reveal
    /// is on its way to ben: what a cheating ben reads before choosing to stay.
    static func annRevealed(bot: Bool = false) throws -> (CoreNet, link: LinkID, gameID: ID128) {
        var n = CoreNet(config("ann", seed: 41, bot: bot ? .good : nil), config("ben", seed: 42))
        let link = n.connect(dialler: bot ? 1 : 0) // a bot invites the peers it dials itself
        n.settle()
        let gameID: ID128
        if bot {
            try n.command(1, .invite("ann")) // the bot accepts at once
            n.deliver(to: 0)
            n.deliver(to: 1) // ben's game starts on the bot's ACCEPT: its RESET and commitment
            n.deliver(to: 0)
            gameID = try inviteID(n.sent(1))
        } else {
            try n.command(0, .invite("ben"))
            n.settle()
            try n.command(1, .accept) // ACCEPT, RESET, ROLL_COMMIT on their way to ann
            n.deliver(to: 0)
            gameID = try inviteID(n.sent(0))
        }
        #expect(n.sent(0).contains { if case .roll = $0 { true } else { false } }, "ann revealed")
        return (n, link, gameID)
    }

    /// The game id of the last INVITE among `sent`.
    static func inviteID(_ sent: [Message]) throws -> ID128 {
        try #require(sent.lazy.compactMap { if case let .invite(i) = $0 { i } else { nil } }.last).gameID
    }

    static func quit(_ route: Route, _ n: inout CoreNet, link: LinkID, gameID: ID128) {
        switch route {
        case .leave: n.inject(.leave, to: 0, link: link)
        case .close: n.close(link)
        case .cancel: n.inject(.cancel(gameID: gameID), to: 0, link: link)
        case .resign: n.inject(.resign, to: 0, link: link)
        case .cancelThenInvite:
            n.inject(.cancel(gameID: gameID), to: 0, link: link)
            n.inject(.invite(Invite(gameID: ID128(high: 9, low: 9))), to: 0, link: link)
        case .error: n.inject(.error(code: ErrorCode.internalError.rawValue, message: "gone"), to: 0, link: link)
        }
    }

    static func forfeits(_ events: [DaemonEvent]) -> Int {
        events.count { if case .game(.left(yours: false, inRoll: true), _) = $0 { true } else { false } }
    }

    static func wins(_ events: [DaemonEvent]) -> Int {
        events.count { if case .game(.gameOver(.won, nil, false), _) = $0 { true } else { false } }
    }

    @Test(arguments: Route.allCases)
    func quittingAfterOurRevealIsALoss(route: Route) throws {
        var (n, link, gameID) = try Self.annRevealed()
        Self.quit(route, &n, link: link, gameID: gameID)
        #expect(Self.forfeits(n.events[0]) == 1)
        #expect(Self.wins(n.events[0]) == 1)
        #expect(n.events[0].contains { if case .game(.score(Score(won: 1)), _) = $0 { true } else { false } })
        if route == .cancelThenInvite {
            try n.command(0, .accept) // the next match carries the score on
            #expect(n.game(0)?.score == Score(won: 1))
        }
    }

    @Test(arguments: Route.allCases)
    func theBotCountsItToo(route: Route) throws {
        var (n, link, gameID) = try Self.annRevealed(bot: true)
        let sentBefore = n.sent(0).count
        Self.quit(route, &n, link: link, gameID: gameID)
        #expect(Self.forfeits(n.events[0]) == 1)
        #expect(Self.wins(n.events[0]) == 1)
        // No rematch on a match that ended (a new INVITE is a new match, which the bot accepts).
        let resets = n.sent(0).dropFirst(sentBefore).count { if case .reset = $0 { true } else { false } }
        #expect(resets == (route == .cancelThenInvite ? 1 : 0))
    }

    @Test(arguments: Route.allCases)
    func quittingBeforeOurRevealCostsNothing(route: Route) throws {
        var n = CoreNet(config("ann", seed: 41), config("ben", seed: 42))
        let link = n.connect(dialler: 0)
        n.settle()
        try n.command(1, .invite("ann"))
        n.settle()
        try n.command(0, .accept) // ann commits; ben's commitment has not reached her
        #expect(!n.sent(0).contains { if case .roll = $0 { true } else { false } })
        Self.quit(route, &n, link: link, gameID: try Self.inviteID(n.sent(1)))
        #expect(Self.forfeits(n.events[0]) == 0)
        #expect(!n.events[0].contains { if case .game(.gameOver, _) = $0 { true } else { false } })
    }

    @Test func leavingAGameInPlayIsCountedTheSameOnBothSides() throws {
        var n = CoreNet(config("ann", seed: 41), config("ben", seed: 42))
        try n.startMatch()
        try n.command(0, .leaveMatch) // gives the game up: RESIGN, then CANCEL
        n.settle()
        #expect(n.events[0].contains { if case .game(.gameOver(.lost, nil, true), _) = $0 { true } else { false } })
        #expect(n.events[1].contains { if case .game(.gameOver(.won, nil, true), _) = $0 { true } else { false } })
        #expect(n.events[0].contains { if case .game(.score(Score(lost: 1)), _) = $0 { true } else { false } })
        #expect(n.events[1].contains { if case .game(.score(Score(won: 1)), _) = $0 { true } else { false } })
        #expect(n.errors.isEmpty, "\(n.errors)")
    }
}
