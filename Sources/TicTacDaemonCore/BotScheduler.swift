import TicTacEngine
import TicTacPbrain
import TicTacTime
import TicTacWire

/// When and where the bot thinks. A move on the classic board (or a random one) takes
/// microseconds: it is made at once, inside the input that asked for it. A search on a larger
/// board may use its whole node budget (about 200 ms): it is queued and handed to the shell as a
/// `think` action, one at a time (at most one core searches), the next going to the source
/// address served longest ago (round-robin). Its answer comes back through `searchDone`.
final class BotScheduler {
    /// Move choices: seeded from the core's generator, no system call per draw.
    private var random: SplitMix64
    /// The searches' generator: it travels with each search (nil while one is out), so a
    /// session draws the same whatever the timing.
    private var searchRandom: SplitMix64?
    /// Links whose game waits for a bot move, in the order they asked.
    private var turns: [LinkID] = []
    /// Moves waiting for a search, in the order they came.
    private var waiting: [LinkID] = []
    /// The search handed out and not yet answered: its link, ticket and position.
    private var searching: (link: LinkID, ticket: UInt64, board: Board)?
    private var nextTicket: UInt64 = 1
    /// The engine turns handed out and not yet answered, per link: ticket and position. Unlike
    /// searches these run side by side, each game's engine in a process of its own.
    private var engineOut: [LinkID: (ticket: UInt64, board: Board)] = [:]
    /// When each source address last had a search handed out (a ticket number).
    private var lastSearched: [String: UInt64] = [:]

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
        searchRandom = SplitMix64(seed: seed)
    }

    /// The game on `link` waits for a bot move.
    // The queues are changed while taken out (`takeOut`) and the generator through a copy, so
    // no access to them spans a call: no run-time exclusivity check (docs/performance.md).
    func turnDue(_ link: LinkID) {
        var all = takeOut(&turns)
        all.append(link)
        turns = all
    }

    /// The next link whose turn came, oldest first.
    func nextTurn() -> LinkID? {
        var all = takeOut(&turns)
        defer { turns = all }
        return all.isEmpty ? nil : all.removeFirst()
    }

    /// A move without a search, drawn from the bot's generator.
    func quickMove(_ bot: Bot, on board: Board, as piece: Piece) -> Int {
        var generator = random
        defer { random = generator }
        return bot.chooseMove(on: board, as: piece, using: &generator)
    }

    /// Queues a search for `link`'s move, unless it already waits or is being searched.
    func queueSearch(_ link: LinkID) {
        var all = takeOut(&waiting)
        if !all.contains(link), searching?.link != link { all.append(link) }
        waiting = all
    }

    /// Searches waiting for their turn (not counting the one out).
    var queued: Int { waiting.count }

    /// The next search to hand out, when none is out: the waiting move of the address served
    /// longest ago, oldest first within it. Links no longer waiting for a move are dropped.
    func nextSearch(_ bot: Bot, nodes: Int, links: LinkRegistry) -> BotSearchJob? {
        guard !waiting.isEmpty, searching == nil, let random = searchRandom else { return nil }
        var waiting = takeOut(&self.waiting) // the links' look-ups below do not read it
        defer { self.waiting = waiting }
        waiting.removeAll { links[$0]?.game?.state != .myTurn || links[$0]?.closing != false }
        let pick = waiting.indices.min { a, b in
            let x = lastSearched[links[waiting[a]]?.address ?? ""] ?? 0
            let y = lastSearched[links[waiting[b]]?.address ?? ""] ?? 0
            return (x, a) < (y, b)
        }
        guard let pick, let link = links[waiting[pick]], let game = link.game else { return nil }
        waiting.remove(at: pick)
        let ticket = nextTicket
        nextTicket += 1
        lastSearched[link.address] = ticket
        if lastSearched.count > 4 * links.count + 64 { // bounded by the links: forget the gone
            let live = Set(links.values.map(\.address))
            lastSearched = lastSearched.filter { live.contains($0.key) }
        }
        searching = (link.id, ticket, game.board)
        searchRandom = nil
        return BotSearchJob(link: link.id, ticket: ticket, address: link.address, bot: bot,
                            board: game.board, piece: game.piece, nodes: nodes, random: random)
    }

    /// An engine turn for `link`'s game, unless one is out for it already.
    func engineTurn(_ link: Link, opponentIsBot: Bool) -> EngineTurn? {
        guard engineOut[link.id] == nil, let game = link.game else { return nil }
        let ticket = nextTicket
        nextTicket += 1
        engineOut[link.id] = (ticket, game.board)
        return EngineTurn(link: link.id, ticket: ticket, round: game.round, size: game.size, moves: game.moves,
                          engineFirst: game.piece == .o, moveTime: Int(game.agreedMoveTime), opponentIsBot: opponentIsBot)
    }

    /// The engine turn out for `answer`'s link is answered: the position it was asked about, or
    /// nil for a stale answer.
    func engineDone(_ answer: EngineAnswer) -> Board? {
        guard let out = engineOut[answer.link], out.ticket == answer.ticket else { return nil }
        engineOut[answer.link] = nil
        return out.board
    }

    /// Forgets `link`'s engine turn (its game or match ended: a late answer is stale); true if
    /// one was out.
    @discardableResult
    func engineForget(_ link: LinkID) -> Bool { engineOut.removeValue(forKey: link) != nil }

    /// The search out is answered: the position it searched, or nil for a stale answer.
    func searchDone(_ result: BotSearchResult) -> Board? {
        guard let out = searching, out.ticket == result.ticket, out.link == result.link else { return nil }
        searching = nil
        searchRandom = result.random
        return out.board
    }
}
