import TicTacAPI
import TicTacEngine
import TicTacWire

/// Everything the full-screen front shows, as a plain value: events go in through `apply(_:)`,
/// key presses through `key(_:)` (which may answer with a command for the daemon), and
/// `lines(width:height:)` (FullScreenRender.swift) draws it. No I/O, so tests drive it directly.
package struct FullScreenModel {
    /// Who we are (from `.ready`).
    struct Me: Equatable {
        var name: String
        var id: ID128
        var port: UInt16
    }

    /// Where the current game stands.
    enum Phase: Equatable {
        /// Deciding who moves first (a new game after `n`, or a tied roll).
        case rolling
        case yourTurn
        case opponentTurn
        /// `line`: the winning cells, empty on a draw or a resignation.
        case over(GameResult, line: [Int], resigned: Bool)
    }

    /// The game on screen.
    struct Game: Equatable {
        var opponent: Opponent
        var piece: Piece
        var board: Board
        var phase: Phase
        /// The opponent's last move (marked on the board, named under it).
        var lastMove: Int?
        /// Why the game ended, when a time-up or a player leaving said so before its game-over.
        var ending: GameEnding?
        /// The agreed seconds per move (0: no clock) and the seconds left on the running one.
        var moveTime = 0
        var clockLeft: Int?
        /// The rolls that decided who moves first ("You rolled 4, ben rolled 9; ...").
        var rolls: String?
        /// Set once the opponent is gone while the finished game stays on screen: why.
        var gone: String?
        var size: BoardSize { board.size }
    }

    /// How a notice is shown: information, a refused command, or one of the seed's alerts.
    enum Tone: Equatable { case info, error, alert }

    /// The status message: an optional title line (an alert's "Peer Disconnected!") and a text.
    /// A notice belongs to the state it tells of and goes with it: one `about` a peer goes when
    /// that peer is found again or lost, and any goes when a new prompt or game takes the screen.
    struct Notice: Equatable {
        var title: String?
        var text: String
        var tone: Tone
        /// The peer the notice tells of, if any.
        var about: ID128? = nil
    }

    /// The seed's alert, split into its title and its message.
    static let disconnectedTitle = "Peer Disconnected!"
    static let disconnectedText = "Your opponent has disconnected, or the connection has been lost"

    /// ANSI colours (false with NO_COLOR or --no-color).
    var color: Bool
    /// Box-drawing characters, arrows and ellipses; ASCII when the locale is not UTF-8.
    var unicode: Bool
    var me: Me?
    /// This host's addresses for the title line (the front fills them in; may stay empty).
    package var addresses: [String] = []
    /// Peers sorted A-Z by name, case-insensitive (then by id).
    private(set) var peers: [PeerInfo] = []
    /// The order each listed peer was first seen in (to tell an earlier instance of a peer).
    private(set) var foundOrder: [ID128: Int] = [:]
    private var foundCount = 0
    /// Index of the selected peer in `peers` (0 when the list is empty).
    private(set) var selected = 0
    /// The daemon serves the collaborative field too: `f` in the lobby opens it.
    package var offersField = false
    /// A front of `tictac daemon` (docs/control.md): leaving ends nothing, so `q` asks nothing.
    package var attached = false
    /// The attached front's daemon closed the connection: it stopped.
    package var daemonStopped = false
    /// An invitation waiting for y / n.
    var incoming: (peer: PeerInfo, size: BoardSize)?
    /// Invitations held behind `incoming`, asked in this order (Protocol.md §8).
    var held: [ID128] = []
    /// Our invitation waiting for an answer.
    var outgoing: PeerInfo?
    var notice: Notice?
    /// The rolls of the game about to start, shown once it has.
    var rolls: String?
    /// The agreed seconds per move of the game about to start (its `rolls` event says it).
    var pendingMoveTime = 0
    /// Nil: the lobby is on screen.
    var game: Game?
    /// The board cursor (0-based cell).
    var cursor = 0
    /// Score against the current opponent.
    var score = Score()
    /// How many watch our games now (the daemon says when it changes).
    var watchers = 0
    /// Whose score `score` is: the daemon keeps it per peer while that peer stays connected.
    var scoreOpponent: ID128?

    package init(color: Bool, unicode: Bool = true) {
        self.color = color
        self.unicode = unicode
    }

    /// "…" or "..." for the terminal at hand.
    var ellipsis: String { unicode ? "…" : "..." }

    /// The selected peer, if any.
    var selectedPeer: PeerInfo? { peers.indices.contains(selected) ? peers[selected] : nil }

    // MARK: - Events

    /// Updates the model from one event.
    package mutating func apply(_ event: DaemonEvent) {
        switch event {
        case let .ready(name, id, port):
            me = Me(name: name, id: id, port: port)
        case let .peers(list):
            let keep = selectedPeer?.id
            peers = []
            for p in list where !peers.contains(where: { $0.id == p.id }) { peers.append(p) }
            sortPeers(keeping: keep)
        case let .peerFound(p), let .peerUpdated(p):
            if case .peerFound = event, notice?.about == p.id { notice = nil } // back: old news
            let keep = selectedPeer?.id
            peers.removeAll { $0.id == p.id }
            peers.append(p)
            sortPeers(keeping: keep)
        case let .peerLost(p, reason):
            let keep = selectedPeer?.id
            let index = selected
            peers.removeAll { $0.id == p.id }
            held.removeAll { $0 == p.id }
            foundOrder[p.id] = nil
            // "ben declined" means nothing once ben is gone; "Peer Disconnected!" is why the game
            // vanished, and a peer that quits is lost right after it: that one stays until ben is back.
            if notice?.about == p.id, notice?.tone != .alert { notice = nil }
            // Gone: a new match starts from the daemon's score; a finished game left on screen keeps its own.
            if scoreOpponent == p.id, game?.opponent.id != p.id { score = Score() }
            if keep == p.id {
                selected = min(index, max(0, peers.count - 1))
            } else {
                sortPeers(keeping: keep)
            }
            if incoming?.peer.id == p.id {
                incoming = nil
                notice = Notice(text: "\(p.name) is gone (\(reason)): the invitation lapsed", tone: .info, about: p.id)
            }
            if outgoing?.id == p.id {
                outgoing = nil
                notice = Notice(text: "\(p.name) is gone (\(reason))", tone: .info, about: p.id)
            }
        case let .invited(p, size):
            if game?.gone != nil { game = nil } // the answer keys are in the lobby
            incoming = (p, size)
            held.removeAll { $0 == p.id }
            notice = nil // a new prompt: what came before is over
        case let .inviteSent(p):
            outgoing = p
            notice = nil
        case let .inviteHeld(p, size, ahead):
            held.append(p.id)
            notice = Notice(text: OutputFormatter.inviteHeldText(p, size: size, ahead: ahead), tone: .info, about: p.id)
        case let .heldInviteDeclined(p):
            held.removeAll { $0 == p.id }
            notice = Notice(text: OutputFormatter.heldInviteDeclinedText(p), tone: .info, about: p.id)
        case let .inviteCancelled(p):
            held.removeAll { $0 == p.id }
            if incoming?.peer.id == p.id { incoming = nil }
            notice = Notice(text: "\(p.name) withdrew the invitation", tone: .info, about: p.id)
        case let .inviteExpired(p):
            held.removeAll { $0 == p.id }
            if incoming?.peer.id == p.id { incoming = nil }
            notice = Notice(text: OutputFormatter.inviteExpiredText(p), tone: .info, about: p.id)
        case let .declined(p, reason):
            if outgoing?.id == p.id { outgoing = nil }
            let text = switch reason {
            case .declined: "\(p.name) declined"
            case .busy: "\(p.name) is busy"
            case .noAnswer: "No answer from \(p.name)"
            case .unsupported: "\(p.name) cannot play that board"
            }
            notice = Notice(text: text, tone: .info, about: p.id)
        case let .disconnected(p, reason):
            let left = reason == DaemonEvent.leftReason(p.name) // it said goodbye: not a fault
            let text = left ? reason : OutputFormatter.disconnectedText(p, reason: reason)
            if !opponentGone(p, reason: text), game == nil || game?.opponent.id == p.id { game = nil }
            if incoming?.peer.id == p.id { incoming = nil }
            if outgoing?.id == p.id { outgoing = nil }
            notice = Notice(title: left ? nil : Self.disconnectedTitle, text: text, tone: .alert, about: p.id)
        case let .gameInterrupted(p, window, reason):
            // The board stays: the game is kept, and goes on if the peer comes back. No move
            // clock runs meanwhile; the wait counts down instead (`tick`).
            game?.clockLeft = nil
            waiting = (p, OutputFormatter.seconds(window), reason)
            notice = nil
            showWaiting()
        case let .gameResumed(p, resigned, _):
            waiting = nil
            notice = Notice(text: resigned ? "\(p.name) resigned the game while you were apart" : "\(p.name) is back: the game goes on",
                            tone: .info, about: p.id)
            // Its start follows and would clear the notice: the resume is said over the board.
            if !resigned { carriedNote = notice?.text }
        case let .gameAdjourned(p):
            waiting = nil
            if game?.opponent.id == p.id { game = nil }
            notice = Notice(text: OutputFormatter.adjournedText(p), tone: .info, about: p.id)
        case let .gameAbandoned(p, reason):
            waiting = nil
            notice = Notice(text: OutputFormatter.abandonedText(p, reason), tone: .info, about: p.id)
        case let .gameClaimed(p, won, reason):
            waiting = nil
            if game?.opponent.id == p.id { game = nil }
            notice = Notice(text: OutputFormatter.claimedText(p, won: won, reason), tone: .info, about: p.id)
        case let .claimWithdrawn(p, reason):
            notice = Notice(text: OutputFormatter.withdrawnText(p, reason), tone: .info, about: p.id)
        case let .gameVoid(p, reason):
            waiting = nil
            if game?.opponent.id == p.id { game = nil }
            notice = Notice(title: "Game void", text: "The game with \(p.name) cannot go on and counts for nobody: \(reason)", tone: .alert, about: p.id)
        case let .matchEnded(p, byUs):
            var text = byUs ? "You left the match with \(p.name)" : "\(p.name) left the match"
            if byUs, let note = carriedNote { text = "\(note). \(text)" }
            if byUs { carriedNote = nil }
            if byUs || !opponentGone(p, reason: text), game?.opponent.id == p.id { game = nil }
            notice = Notice(text: text, tone: byUs ? .info : .alert, about: p.id)
        case let .error(_, message):
            notice = Notice(text: message, tone: .error)
        case .protocolError, .connectFailed:
            notice = Notice(text: OutputFormatter.errorText(event) ?? "", tone: .error)
        case let .opponentSpectators(p, allowed):
            notice = Notice(text: OutputFormatter.spectatorsText(p, allowed: allowed), tone: .info)
        case let .watched(_, p):
            notice = Notice(text: OutputFormatter.watchedText(p), tone: .info)
        case let .help(text), let .notice(text):
            notice = Notice(text: text, tone: .info)
        case let .watchers(n):
            watchers = n // on the score line; a notice only where it hides no lasting state
            let lasting = waiting != nil || notice?.about != nil || notice?.tone == .alert
            if !lasting { notice = Notice(text: OutputFormatter.watchersText(n, undo: "w in the lobby"), tone: .info) }
        case .rematch, .moveClock:
            break // plain mode's line; the screen counts down from game-over itself
        case let .game(g, p):
            apply(g, opponent: Opponent(id: p.id, name: p.name))
        }
    }

    private mutating func sortPeers(keeping id: ID128?) {
        for p in peers where foundOrder[p.id] == nil {
            foundCount += 1
            foundOrder[p.id] = foundCount
        }
        if foundOrder.count > peers.count { // some went (a new list): forget them
            let listed = Set(peers.map(\.id))
            foundOrder = foundOrder.filter { listed.contains($0.key) }
        }
        peers.sort { a, b in
            let x = a.name.lowercased(), y = b.name.lowercased()
            return x != y ? x < y : a.id < b.id
        }
        if let id, let i = peers.firstIndex(where: { $0.id == id }) {
            selected = i
        } else {
            selected = min(selected, max(0, peers.count - 1))
        }
    }

    // MARK: - Status (its words: FullScreenStatus.swift)

    /// Two people at one keyboard (`play --local --hotseat`): the screen speaks of "Player 1"
    /// (our side) and "Player 2" instead of "you" and "the opponent".
    package var hotSeat = false
    package var playerOne = "Player 1"

    /// The address being typed after `a` in the lobby (nil when not typing one).
    var addressEntry: String?

    /// A cell's name being typed in a game (`c`, `c1`, `c12`; CellName), nil when none is.
    var cellEntry: String?

    /// A key that gives the game away, waiting to be confirmed (the same key again, or y):
    /// r and n in any game in progress; q and l in a networked one (the peer wins it).
    enum Confirm: Equatable { case resign, newGame, quit, lobby }
    var confirm: Confirm?
    /// Said once the next game has started: how the last one ended, if the player ended it.
    var carriedNote: String?

    /// Seconds until the next game starts by itself (shown under a finished game), nil when
    /// none is coming. The front calls `tick()` each second.
    var countdown: Int?
    /// Seconds between games (GameSession's rematch delay: 3 s in the seed).
    var rematchSeconds = 3

    /// One second has passed.
    package mutating func tick() {
        if let w = waiting, w.left > 0 {
            waiting = (w.peer, w.left - 1, w.reason)
            showWaiting()
        }
        if let countdown, countdown > 0 { self.countdown = countdown - 1 }
        if let left = game?.clockLeft, left > 0 { game?.clockLeft = left - 1 }
    }

    /// Whether `tick()` has anything to count down.
    package var ticking: Bool { (countdown ?? 0) > 0 || (game?.clockLeft ?? 0) > 0 || (waiting?.left ?? 0) > 0 }

    /// An interrupted game's peer and the seconds it is still waited for.
    private(set) var waiting: (peer: PeerInfo, left: Int, reason: String)?

    /// The interrupted game's notice, with the time left; only while that notice is up, or
    /// `again`: back in place of another.
    mutating func showWaiting(again: Bool = false) {
        guard let w = waiting else { return }
        if !again, let notice, notice.about != w.peer.id || notice.title != Self.waitingTitle { return }
        notice = Notice(title: Self.waitingTitle, text: OutputFormatter.interruptedText(w.peer, seconds: w.left, reason: w.reason,
                                                                                          keys: "l adjourns, r resigns"),
                        tone: .alert, about: w.peer.id)
    }

    static let waitingTitle = "Connection lost"

    /// The line left in the shell once the screen is gone: a networked game in play, or waiting
    /// for its peer, is adjourned by quitting (Protocol.md §13), and this says how it comes back.
    package var farewell: String? {
        if attached, daemonStopped, game == nil { return "tictac daemon stopped (tictac daemon starts it again)" }
        guard me != nil, !hotSeat, let game else { return nil }
        if attached { return attachedFarewell(game) }
        switch game.phase {
        case .yourTurn, .opponentTurn: break
        case .rolling, .over: return nil
        }
        // A peer that keeps no games (no `resume` capability) takes a game left as given up (§8).
        let kept = waiting != nil || peers.first { $0.id == game.opponent.id }?.capabilities.contains(.resume) == true
        guard kept else { return "You left your game with \(game.opponent.name): it counts as a loss (its tictac keeps no games)." }
        return "Your game with \(game.opponent.name) is adjourned: it goes on the next time you both run tictac play"
            + " (tictac history lists it)."
    }

    /// An attached front's last line: its daemon stopped (the game is adjourned), or the game
    /// goes on without this front.
    private func attachedFarewell(_ game: Game) -> String? {
        switch game.phase {
        case .yourTurn, .opponentTurn:
            if daemonStopped { return "tictac daemon stopped: your game with \(game.opponent.name) is adjourned until it runs again" }
            guard case .yourTurn = game.phase else { return nil }
            return "Your game with \(game.opponent.name) goes on in tictac daemon, your clock running: tictac play takes it up."
        case .rolling, .over:
            return daemonStopped ? "tictac daemon stopped (tictac daemon starts it again)" : nil
        }
    }

    /// Moves the selection one peer up (-1) or down (+1), within the list.
    mutating func select(step: Int) {
        selected = max(0, min(peers.count - 1, selected + step))
    }
}

/// Who the player faces, as a game on the screen keeps it.
struct Opponent: Equatable {
    var id: ID128
    var name: String
}
