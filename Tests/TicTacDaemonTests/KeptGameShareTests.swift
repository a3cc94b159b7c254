import Testing
import TicTacAPI
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// Throwaway ids that each start a game with a bot and vanish must not fill its kept games
/// (Protocol.md §13): each source address and each network prefix has a share, so an honest
/// peer's game is still kept when its link is lost.
@Suite struct KeptGameShareTests {
    /// Core `h` dials the bot from `address`, invites it, and its link is lost once the game is on.
    func playAndVanish(_ n: inout CoreNet, _ h: Int, from address: String) throws {
        let link = n.connect(dialler: h, to: 0, address: address)
        n.settle()
        try n.command(h, .invite("botty"))
        n.settle()
        try #require(n.game(h)?.key != nil, "the roll decided")
        n.close(link)
    }

    @Test func aFillFromTwoPrefixesLeavesRoomForAnHonestGame() throws {
        var bot = resuming("botty", seed: 90, bot: .perfect)
        bot.maxKeptGames = 12
        bot.maxKeptGamesPerAddress = 2
        bot.maxKeptGamesPerPrefix = 4
        let others = (1...13).map { resuming("p\($0)", seed: 90 + UInt64($0)) }
        var n = CoreNet([bot] + others, sealed: false)
        // Twelve from three addresses in each of two /24s: four kept per prefix.
        for h in 1...12 {
            try playAndVanish(&n, h, from: "198.18.\(h <= 6 ? 1 : 2).\((h - 1) % 3 + 1)")
        }
        #expect(n.cores[0].waitingGames == 8)
        // An honest player elsewhere: its game is kept, and goes on when it is back.
        try playAndVanish(&n, 13, from: "198.18.9.1")
        #expect(n.cores[0].waitingGames == 9)
        _ = n.connect(dialler: 13, to: 0, address: "198.18.9.1")
        n.settle()
        #expect(n.count(13) { if case .gameResumed(_, false, _) = $0 { true } else { false } } == 1)
        #expect(n.cores[0].waitingGames == 8)
    }

    @Test func oneAddressKeepsAtMostItsShare() throws {
        var bot = resuming("botty", seed: 80, bot: .perfect)
        bot.maxKeptGamesPerAddress = 3
        var n = CoreNet([bot] + (1...5).map { resuming("q\($0)", seed: 80 + UInt64($0)) }, sealed: false)
        for h in 1...5 { try playAndVanish(&n, h, from: "198.18.4.4") }
        #expect(n.cores[0].waitingGames == 3)
    }

    /// Games restored from the history (adjourned, their peers perhaps never back) do not count
    /// against the bound for games kept from live links: a restart cannot crowd out new games.
    @Test func restoredGamesLeaveRoomForLiveOnes() throws {
        var bot = resuming("botty", seed: 95, bot: .perfect)
        bot.maxKeptGames = 3
        bot.restored = try (1...3).map { i in
            let peer = PeerInfo(id: ID128(high: 9, low: UInt64(i)), name: "gone\(i)", addresses: [], port: nil,
                                capabilities: [.tictactoe, .resume])
            let game = try GameSession(restoring: .classic, key: ID128(high: 8, low: UInt64(i)), weMovedFirst: true, moves: [4],
                                       moveTime: 0, round: 1, score: Score(), rng: SplitMix64(seed: UInt64(i)))
            return RestoredGame(peer: peer, match: ID128(high: 7, low: UInt64(i)), game: game)
        }
        var n = CoreNet([bot, resuming("ann", seed: 96)], sealed: false)
        #expect(n.cores[0].waitingGames == 3)
        try playAndVanish(&n, 1, from: "198.18.6.6")
        #expect(n.cores[0].waitingGames == 4)
    }
}
