import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
@testable import TicTacTerminal
import TicTacTime

// Pure tests of the full-screen front: the key parser, the model's key handling and events,
// and the rendered lines (escape codes stripped, widths counted in columns).

private func peer(_ name: String, _ n: UInt64, bot: Bool = false) -> PeerInfo {
    PeerInfo(id: ID128(high: 0xABCD, low: n), name: name, address: "192.168.1.\(n)", port: 50000,
             capabilities: bot ? [.tictactoe, .bot] : [.tictactoe])
}

private let bob = peer("bob", 7)
private let bobOpponent = Opponent(id: bob.id, name: bob.name)

/// The text a terminal would show: CSI sequences (`ESC [ ... final`) removed.
private func visible(_ s: String) -> String {
    var out = ""
    var it = s.makeIterator()
    while let c = it.next() {
        guard c == "\u{1B}" else { out.append(c); continue }
        guard it.next() == "[" else { continue }
        while let d = it.next(), !(d.isASCII && d.isLetter) {}
    }
    return out
}

private func screen(_ model: FullScreenModel, _ width: Int = 80, _ height: Int = 24) -> [String] {
    model.lines(width: width, height: height).map(visible)
}

private func expectFits(_ model: FullScreenModel, width: Int, height: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    let lines = model.lines(width: width, height: height)
    #expect(lines.count <= height, sourceLocation: sourceLocation)
    for line in lines {
        let text = visible(line)
        #expect(model.textWidth(text) <= width, "too wide: \(text)", sourceLocation: sourceLocation)
        #expect(!text.contains("\u{1B}"), sourceLocation: sourceLocation)
    }
}

private func gameModel(size: BoardSize = .classic, color: Bool = false) -> FullScreenModel {
    var m = FullScreenModel(color: color, unicode: true)
    m.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
    m.apply(.peerFound(bob))
    m.apply(.game(.gameStarted(piece: .o, first: true, size: size), opponent: bobOpponent))
    m.apply(.game(.yourTurn, opponent: bobOpponent))
    return m
}

private func board(_ size: BoardSize = .classic, o: [Int], x: [Int]) throws -> Board {
    var b = Board(size: size)
    for c in o { try b.place(.o, at: c) }
    for c in x { try b.place(.x, at: c) }
    return b
}

@Suite struct KeyParserTests {
    @Test func arrowsInBothForms() {
        var p = KeyParser()
        #expect(p.feed(Array("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D".utf8)) == [.up, .down, .right, .left])
        #expect(p.feed(Array("\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD".utf8)) == [.up, .down, .right, .left])
        #expect(p.feed(Array("\u{1B}[1;5C".utf8)) == [.right]) // Ctrl+Right: parameters ignored
        #expect(!p.hasPending)
    }

    @Test func sequencesSplitAcrossReads() {
        var p = KeyParser()
        #expect(p.feed([0x1B]).isEmpty)
        #expect(p.hasPending)
        #expect(p.feed(Array("[".utf8)).isEmpty)
        #expect(p.feed(Array("Aq".utf8)) == [.up, .char("q")])
        #expect(p.feed(Array("x\u{1B}O".utf8)) == [.char("x")])
        #expect(p.feed(Array("D".utf8)) == [.left])
        #expect(p.feed(Array("\u{1B}[1;".utf8)).isEmpty)
        #expect(p.feed(Array("2B".utf8)) == [.shiftDown]) // Shift+Down; the board front reads it as Down
        #expect(!p.hasPending)
    }

    @Test func enterCtrlCAndCharacters() {
        var p = KeyParser()
        #expect(p.feed([0x0D]) == [.enter])
        #expect(p.feed([0x0A]) == []) // the LF of a CRLF is the same Enter
        #expect(p.feed([0x0A, 0x0A]) == [.enter, .enter])
        #expect(p.feed([0x03]) == [.interrupt])
        #expect(p.feed(Array("5 y".utf8)) == [.char("5"), .char(" "), .char("y")])
        #expect(p.feed([0x1B, 0x4F, 0x4D]) == [.enter]) // keypad Enter
        #expect(p.feed([0x00, 0xC3, 0xA9, 0x09]) == []) // NUL, UTF-8, Tab: ignored
        #expect(p.feed([0x7F, 0x08]) == [.backspace, .backspace]) // DEL and Ctrl-H
    }

    @Test func loneEscapeAndJunk() {
        var p = KeyParser()
        #expect(p.feed([0x1B]).isEmpty)
        #expect(p.flush() == [.escape])
        #expect(!p.hasPending)
        #expect(p.feed(Array("\u{1B}q".utf8)) == [.escape, .char("q")])
        // A sequence that never ends is dropped once it is too long; what follows still counts.
        #expect(p.feed(Array(("\u{1B}[" + String(repeating: "1;", count: 20)).utf8)).isEmpty)
        #expect(!p.hasPending)
        #expect(p.feed([0x03]) == [.interrupt])
        // A control byte inside a CSI ends it; the byte itself is still a key.
        #expect(p.feed([0x1B, 0x5B, 0x31, 0x03]) == [.interrupt])
    }
}

@Suite struct FullScreenModelTests {
    @Test func quitKeys() {
        var m = FullScreenModel(color: false)
        #expect(m.key(.char("q")) == .quit)
        #expect(m.key(.interrupt) == .interrupt) // quits with the status of an interrupt
        var g = gameModel()
        #expect(g.key(.interrupt) == .interrupt)
        // A networked game in progress: q and l would give it to the peer, so they ask first.
        #expect(g.key(.char("q")) == nil)
        #expect(screen(g).contains { $0 == "  Quit and give this game up? q or y: yes, any other key: no" })
        #expect(g.key(.char("x")) == nil && g.notice?.text == "Not quitting: play on")
        _ = g.key(.char("q"))
        #expect(g.key(.char("y")) == .quit)
        var h = gameModel()
        #expect(h.key(.char("l")) == nil)
        #expect(h.key(.char("l")) == .lobby)
        var k = gameModel()
        _ = k.key(.char("q"))
        #expect(k.key(.char("Q")) == .quit)
        // Between games, q and l act at once; in a local game q does (no peer loses anything).
        var over = gameModel()
        over.apply(.game(.gameOver(result: .won, line: nil, resigned: false), opponent: bobOpponent))
        #expect(over.key(.char("l")) == .lobby)
        #expect(over.key(.char("q")) == .quit)
        var local = FullScreenModel(color: false)
        local.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        local.apply(.game(.yourTurn, opponent: bobOpponent))
        #expect(local.key(.char("q")) == .quit)
        // Ctrl-C is never asked about.
        var c = gameModel()
        _ = c.key(.char("q"))
        #expect(c.key(.interrupt) == .interrupt)
    }

    @Test func fOpensTheFieldFromTheLobbyOnlyWhenTheDaemonServesIt() {
        var m = FullScreenModel(color: false)
        #expect(m.key(.char("f")) == nil)
        #expect(!screen(m).joined().contains("f field"))
        m.offersField = true
        #expect(m.key(.char("f")) == .field && m.key(.char("F")) == .field)
        #expect(screen(m).last?.contains("f field") == true)
        // What the lobby said before the field opened is not there when it comes back.
        m.apply(.matchEnded(bob, byUs: true))
        #expect(screen(m).contains { $0.contains("You left the match with bob") })
        #expect(m.key(.char("f")) == .field)
        #expect(!screen(m).contains { $0.contains("You left the match") })
        var g = gameModel()
        g.offersField = true
        #expect(g.key(.char("f")) != .field, "not during a game")
    }

    @Test func peersSortedAndSelectionInvites() {
        var m = FullScreenModel(color: false)
        let zed = peer("zed", 3), alice = peer("Alice", 2), carol = peer("carol", 4)
        m.apply(.peerFound(zed))
        m.apply(.peerFound(bob))
        m.apply(.peerFound(alice))
        #expect(m.peers.map(\.name) == ["Alice", "bob", "zed"])
        #expect(m.selectedPeer == zed) // the selection stays on its peer as others sort in
        #expect(m.key(.up) == nil)
        #expect(m.selectedPeer == bob)
        // A new peer sorted in above keeps the selection on bob.
        m.apply(.peerFound(peer("Aaron", 9)))
        #expect(m.peers.map(\.name) == ["Aaron", "Alice", "bob", "zed"])
        #expect(m.selectedPeer == bob)
        #expect(m.key(.enter) == .invite(bob.id.description))
        // Clamped at both ends.
        for _ in 0..<10 { _ = m.key(.down) }
        #expect(m.selectedPeer == zed)
        for _ in 0..<10 { _ = m.key(.up) }
        #expect(m.selectedPeer?.name == "Aaron")
        // Losing the selected peer moves the selection, never out of range.
        m.apply(.peerLost(peer("Aaron", 9), reason: "gone"))
        #expect(m.selectedPeer == alice)
        m.apply(.peerFound(carol))
        m.apply(.peerLost(zed, reason: "gone"))
        let lines = screen(m)
        let names = lines.compactMap { line in ["Alice", "bob", "carol", "zed"].first { line.contains(" \($0) ") } }
        #expect(names == ["Alice", "bob", "carol"])
        #expect(lines.contains { $0.contains("Available Peers") })
        #expect(lines.last?.contains("select  Enter invite  q quit") == true)
    }

    @Test func emptyLobbyEnterDoesNothing() {
        var m = FullScreenModel(color: false)
        #expect(m.key(.enter) == nil)
        #expect(m.key(.down) == nil)
        #expect(m.key(.up) == nil)
        #expect(m.selectedPeer == nil)
        m.apply(.peerFound(bob))
        m.apply(.peerLost(bob, reason: "left"))
        #expect(m.key(.enter) == nil)
    }

    @Test func aPeerAddedByAddressFromTheLobby() {
        var local = FullScreenModel(color: false)
        #expect(local.key(.char("a")) == nil && local.addressEntry == nil, "no network, no address to add")
        var m = FullScreenModel(color: false)
        m.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        #expect(m.key(.char("a")) == nil && m.addressEntry == "")
        for c in "198.18.1.7:50009" { #expect(m.key(.char(c)) == nil) }
        #expect(m.key(.char("q")) == nil, "q is typed, not quit, while an address is typed")
        #expect(m.key(.backspace) == nil)
        #expect(m.promptText?.contains("198.18.1.7:50009_") == true)
        #expect(m.key(.enter) == .connect("198.18.1.7:50009"))
        #expect(m.addressEntry == nil)
        _ = m.key(.char("a"))
        _ = m.key(.char("x"))
        #expect(m.key(.escape) == nil && m.addressEntry == nil && m.promptText == nil)
        #expect(m.key(.char("a")) == nil && m.key(.enter) == nil, "an empty address connects nowhere")
    }

    @Test func incomingInvitationYesNo() {
        var m = FullScreenModel(color: false)
        m.apply(.peerFound(bob))
        m.apply(.invited(by: bob, size: .classic))
        #expect(screen(m).contains { $0.contains("bob invites you to play: y / n") })
        #expect(m.key(.char("y")) == .accept)
        #expect(m.incoming == nil)
        #expect(m.key(.char("y")) == nil)

        m.apply(.invited(by: bob, size: .classic))
        #expect(m.key(.char("n")) == .decline)
        #expect(m.incoming == nil)
        #expect(!screen(m).contains { $0.contains("invites you") })

        m.apply(.invited(by: bob, size: .classic))
        m.apply(.inviteCancelled(by: bob))
        #expect(m.incoming == nil)
        #expect(screen(m).contains { $0.contains("bob withdrew the invitation") })
        #expect(m.key(.char("y")) == nil)
    }

    @Test func enterOnAnInvitationPromptAnswersOrSaysWhatToDo() {
        let cleo = peer("cleo", 9)
        var m = FullScreenModel(color: false)
        m.apply(.peerFound(bob))
        m.apply(.peerFound(cleo))
        m.apply(.invited(by: cleo, size: .classic))
        #expect(m.selectedPeer == bob)
        #expect(m.key(.enter) == nil) // bob is selected, cleo asks: nothing is sent
        let lines = screen(m)
        #expect(lines.contains { $0.contains("Answer cleo's invitation first: y / n") })
        #expect(!lines.contains { $0.contains("finish the current game") })
        _ = m.key(.down)
        #expect(m.key(.enter) == .accept) // Enter on the one who invites: yes
        #expect(m.incoming == nil)
    }

    @Test func outgoingInvitationCancel() {
        var m = FullScreenModel(color: false, unicode: true)
        m.apply(.peerFound(bob))
        #expect(m.key(.enter) == .invite(bob.id.description))
        m.apply(.inviteSent(to: bob))
        #expect(screen(m).contains { $0.contains("Waiting for bob… (c to cancel)") })
        #expect(m.key(.enter) == nil) // one invitation at a time
        #expect(m.key(.char("c")) == .cancel)
        #expect(m.outgoing == nil)
        #expect(!screen(m).contains { $0.contains("Waiting for") })

        m.apply(.inviteSent(to: bob))
        m.apply(.declined(by: bob, reason: .noAnswer))
        #expect(m.outgoing == nil)
        #expect(screen(m).contains { $0.contains("No answer from bob") })
    }

    @Test func cursorClampedAndEnterPlays() throws {
        var m = gameModel()
        #expect(m.cursor == 4) // the centre
        #expect(m.key(.enter) == .move(5))
        for _ in 0..<5 { #expect(m.key(.up) == nil) }
        for _ in 0..<5 { #expect(m.key(.left) == nil) }
        #expect(m.cursor == 0)
        #expect(m.key(.enter) == .move(1))
        for _ in 0..<5 { _ = m.key(.right) }
        #expect(m.cursor == 2)
        for _ in 0..<5 { _ = m.key(.down) }
        #expect(m.cursor == 8)
        #expect(m.key(.char(" ")) == .move(9))
        _ = m.key(.left)
        _ = m.key(.up)
        #expect(m.cursor == 4)

        var big = gameModel(size: try BoardSize(rows: 4, cols: 7, k: 4))
        for _ in 0..<30 { _ = big.key(.right) }
        for _ in 0..<30 { _ = big.key(.down) }
        #expect(big.cursor == 27)
        #expect(big.key(.enter) == .move(28))
    }

    @Test func digitsPlayOnClassicBoardOnly() throws {
        var m = gameModel()
        #expect(m.key(.char("7")) == .move(7))
        #expect(m.cursor == 6)
        #expect(m.key(.char("1")) == .move(1))
        #expect(m.key(.char("0")) == nil)
        var big = gameModel(size: try BoardSize(rows: 4, cols: 4, k: 3))
        #expect(big.key(.char("5")) == nil)
        #expect(screen(big).contains { $0.contains("column letter, then its row") })
    }

    @Test func aCellIsNamedByLetterAndRowOnEveryBoard() throws {
        // 15 x 15: c, 1, 2, Enter plays c12 (cell 168), not the cursor's cell, and shows what is typed.
        var m = gameModel(size: try BoardSize(rows: 15, cols: 15, k: 5))
        #expect(m.key(.char("c")) == nil)
        #expect(m.key(.char("1")) == nil)
        #expect(m.key(.char("2")) == nil)
        #expect(screen(m).contains { $0.contains("Cell: c12_") })
        #expect(m.key(.enter) == .move(11 * 15 + 2 + 1))
        #expect(!screen(m).contains { $0.contains("Cell:") })
        // 4 x 4: b3 is cell 10; Backspace and Esc edit and drop the name.
        var four = gameModel(size: try BoardSize(rows: 4, cols: 4, k: 3))
        _ = four.key(.char("b")); _ = four.key(.char("4")); _ = four.key(.backspace); _ = four.key(.char("3"))
        #expect(four.key(.enter) == .move(10))
        _ = four.key(.char("a")); _ = four.key(.escape)
        #expect(four.cellEntry == nil)
        #expect(four.key(.char("e")) == nil) // no column e on 4 x 4
        _ = four.key(.char("a")); _ = four.key(.char("5"))
        #expect(screen(four).contains { $0.contains("No cell a5") })
        #expect(four.key(.enter) != .move(17))
        // 4 x 4 draws big cells with their names; 3 x 3 keeps 1-9 and takes names too.
        #expect(screen(gameModel(size: try BoardSize(rows: 4, cols: 4, k: 3))).contains { $0.contains(" a1 ") && $0.contains(" d1 ") })
        var three = gameModel()
        _ = three.key(.char("b")); _ = three.key(.char("2"))
        #expect(three.key(.enter) == .move(5))
        #expect(three.key(.char("9")) == .move(9))
    }

    @Test func keyHelpSaysHowToNameACellAndKeepsQuit() throws {
        let big = gameModel(size: try BoardSize(rows: 15, cols: 15, k: 5))
        #expect(screen(big).last?.contains("c7 or Enter play") == true)
        #expect(screen(gameModel()).last?.contains("1-9 or Enter play") == true)
        for m in [big, gameModel(), FullScreenModel(color: false)] {
            for w in [40, 30, 20] { #expect(screen(m, w, 14).last?.contains("q quit") == true, "\(w)") }
        }
        #expect(screen(big, 40, 14).last == "  c7 or Enter play  r resign  q quit") // resign before lobby
        // Between games there is nothing to play or resign: the keys that work then.
        var over = gameModel()
        over.apply(.game(.gameOver(result: .won, line: [0, 1, 2], resigned: false), opponent: bobOpponent))
        #expect(screen(over).last == "  n new game now  l lobby  q quit")
    }

    @Test func resignAndNewGame() {
        var m = gameModel()
        #expect(m.key(.char("r")) == nil) // asks first
        #expect(screen(m).contains { $0.contains("Resign this game? r or y: yes") })
        #expect(m.key(.char("r")) == .resign)
        #expect(m.key(.char("n")) == nil)
        #expect(m.key(.char("n")) == .new)
        var lobby = FullScreenModel(color: false)
        #expect(lobby.key(.char("r")) == nil)
        #expect(lobby.key(.char("n")) == nil)
    }

    @Test func oneKeyNeverGivesAGameAway() {
        var m = gameModel()
        _ = m.key(.char("r"))
        #expect(m.key(.char("n")) == nil) // n: no
        #expect(screen(m).contains { $0.contains("Not resigned: play on") })
        _ = m.key(.char("r"))
        #expect(m.key(.escape) == nil)
        _ = m.key(.char("r"))
        #expect(m.key(.char("y")) == .resign)
        // The rolls, said until the first move, go when the game ends before any.
        var r = FullScreenModel(color: false, unicode: true)
        r.apply(.game(.rolls(yours: 5, theirs: 3, moveTime: 120), opponent: bobOpponent))
        r.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        #expect(screen(r).contains { $0.contains("You rolled 5") })
        r.apply(.game(.gameOver(result: .won, line: nil, resigned: true), opponent: bobOpponent))
        #expect(!screen(r).contains { $0.contains("You rolled 5") })
        // The earlier "Not resigned" does not stay under the game just resigned.
        m.apply(.game(.gameOver(result: .lost, line: nil, resigned: true), opponent: bobOpponent))
        #expect(!screen(m).contains { $0.contains("Not resigned") })
        // n mid-game asks, and the next game says the last one was given up.
        var n = gameModel()
        _ = n.key(.char("n"))
        #expect(screen(n).contains { $0.contains("Give up this game and start a new one?") })
        #expect(n.key(.char("y")) == .new)
        n.apply(.game(.gameOver(result: .lost, line: nil, resigned: true), opponent: bobOpponent))
        n.apply(.game(.gameStarted(piece: .x, first: false, size: .classic), opponent: bobOpponent))
        #expect(screen(n).contains { $0.contains("You gave up the last game: it counts as a loss") })
        // Once a game is over, n starts the next one at once and r has nothing to resign.
        var over = gameModel()
        over.apply(.game(.gameOver(result: .won, line: [0, 4, 8], resigned: false), opponent: bobOpponent))
        #expect(over.key(.char("r")) == nil)
        #expect(over.confirm == nil)
        #expect(over.key(.char("n")) == .new)
    }

    @Test func theRematchCountsDown() {
        var m = gameModel()
        m.apply(.game(.gameOver(result: .draw, line: nil, resigned: false), opponent: bobOpponent))
        #expect(screen(m).contains { $0.contains("Cat Wins!") })
        #expect(screen(m).contains { $0.contains("New game in 3…  n: now  l: lobby") })
        m.tick()
        #expect(screen(m).contains { $0.contains("New game in 2…") })
        m.tick(); m.tick(); m.tick()
        #expect(screen(m).contains { $0.contains("New game starting…") })
        m.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        #expect(!screen(m).contains { $0.contains("New game") })
        // A local game has no lobby to offer.
        var local = FullScreenModel(color: false, unicode: false)
        local.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        local.apply(.game(.gameOver(result: .won, line: [0, 1, 2], resigned: false), opponent: bobOpponent))
        #expect(local.lines(width: 80, height: 24).contains { $0.contains("New game in 3...  n: now") && !$0.contains("lobby") })
    }

    @Test func aNoticeGoesWithTheStateItTellsOf() {
        let ann = peer("ann", 3)
        var m = FullScreenModel(color: false)
        m.apply(.peerFound(ann))
        m.apply(.peerFound(bob))
        // "No answer from ann" goes when a new prompt comes.
        m.apply(.inviteSent(to: ann))
        m.apply(.declined(by: ann, reason: .noAnswer))
        #expect(screen(m).contains { $0.contains("No answer from ann") })
        m.apply(.invited(by: bob, size: .classic))
        #expect(!screen(m).contains { $0.contains("No answer from ann") })
        _ = m.key(.char("n"))
        // "Peer Disconnected!" goes when the peer is back.
        m.apply(.disconnected(bob, reason: "bob left"))
        #expect(screen(m).contains { $0.contains("Peer Disconnected!") })
        #expect(screen(m).contains { $0.hasSuffix("bob left") }) // said once, plainly
        m.apply(.peerLost(bob, reason: "bob left"))
        // A peer that quits mid-game is lost right after: the alert stays, it says why.
        #expect(screen(m).contains { $0.contains("Peer Disconnected!") })
        m.apply(.peerFound(bob))
        #expect(!screen(m).contains { $0.contains("Peer Disconnected!") })
        // "ann declined" goes when ann has quit.
        m.apply(.inviteSent(to: ann))
        m.apply(.declined(by: ann, reason: .declined))
        #expect(screen(m).contains { $0.contains("ann declined") })
        m.apply(.peerLost(ann, reason: "ann left"))
        #expect(!screen(m).contains { $0.contains("ann declined") })
    }

    @Test func statusStrings() throws {
        var m = gameModel()
        #expect(m.statusText == "Your Turn")
        #expect(screen(m).contains { $0 == "  Your Turn" })
        #expect(screen(m).contains { $0.contains("You: O") && $0.contains("Opponent: bob X") })
        m.apply(.game(.opponentTurn, opponent: bobOpponent))
        #expect(m.statusText == "Opponent's Turn")

        m.apply(.game(.board(try board(o: [0, 1, 2], x: [4, 5])), opponent: bobOpponent))
        m.apply(.game(.gameOver(result: .won, line: [0, 1, 2], resigned: false), opponent: bobOpponent))
        m.apply(.game(.score(Score(won: 1, lost: 0, drawn: 0)), opponent: bobOpponent))
        #expect(m.statusText == "You Won!")
        let won = screen(m)
        #expect(won.contains { $0.contains("You Won!") })
        #expect(won.contains { $0.contains("Score: won 1  lost 0  drawn 0") })

        m.apply(.game(.gameOver(result: .lost, line: [2, 4, 6], resigned: false), opponent: bobOpponent))
        #expect(m.statusText == "Opponent Won!")
        #expect(screen(m).contains { $0.contains("Opponent Won!") })
        m.apply(.game(.gameOver(result: .draw, line: nil, resigned: false), opponent: bobOpponent))
        #expect(m.statusText == "Cat Wins!")
        #expect(screen(m).contains { $0.contains("Cat Wins!") })
        m.apply(.game(.gameOver(result: .lost, line: nil, resigned: true), opponent: bobOpponent))
        #expect(m.statusText?.hasPrefix("Opponent Won!") == true)

        // `n` after the game: dice are rolled for the next one.
        #expect(m.key(.char("n")) == .new)
        #expect(m.statusText == "Rolling dice…")
        m.apply(.game(.rolls(yours: 12, theirs: 345, moveTime: 120), opponent: bobOpponent))
        m.apply(.game(.gameStarted(piece: .x, first: false, size: .classic), opponent: bobOpponent))
        #expect(m.statusText == "Opponent's Turn")
        #expect(m.score.won == 1) // same opponent: the score stays
        #expect(screen(m).contains { $0.contains("You rolled 12, bob rolled 345; 120 s per move") })
        // A clock that ran out is said, then the game over shows.
        m.apply(.game(.timeUp(yours: true, clock: .move), opponent: bobOpponent))
        m.apply(.game(.gameOver(result: .lost, line: nil, resigned: true), opponent: bobOpponent))
        #expect(screen(m).contains { $0.contains("Time's up: you did not move in time") })
        #expect(m.statusText?.hasPrefix("Opponent Won!") == true)
    }

    @Test func boardShowsPiecesNumbersAndCursor() throws {
        var m = gameModel()
        m.apply(.game(.board(try board(o: [0], x: [8])), opponent: bobOpponent))
        let text = screen(m).joined(separator: "\n")
        #expect(text.contains("O"))
        #expect(text.contains("X"))
        #expect(text.contains("[5]")) // the cursor on the empty centre
        for n in [2, 3, 4, 6, 7, 8] { #expect(text.contains(" \(n) ")) }
        #expect(!text.contains(" 1 ") && !text.contains(" 9 "))
    }

    @Test func winningLineHighlightedOnlyWithColor() throws {
        for color in [true, false] {
            var m = gameModel(color: color)
            m.apply(.game(.board(try board(o: [0, 4, 8], x: [1, 2])), opponent: bobOpponent))
            m.apply(.game(.gameOver(result: .won, line: [0, 4, 8], resigned: false), opponent: bobOpponent))
            let raw = m.lines(width: 80, height: 24).joined()
            #expect(raw.contains("\u{1B}[1;30;42mO") == color)
            #expect(raw.contains("\u{1B}[1;36m") == color) // O in its colour
            #expect(raw.contains("\u{1B}[1;33mX") == color) // X in another
            #expect(raw.contains("\u{1B}[2m") == color) // dim help and numbers
        }
        // A line that beat us is not green.
        var lost = gameModel(color: true)
        lost.apply(.game(.board(try board(o: [1, 2], x: [0, 4, 8])), opponent: bobOpponent))
        lost.apply(.game(.gameOver(result: .lost, line: [0, 4, 8], resigned: false), opponent: bobOpponent))
        let raw = lost.lines(width: 80, height: 24).joined()
        #expect(!raw.contains("\u{1B}[1;30;42m"))
        #expect(raw.contains("\u{1B}[1;37;41mX"))
    }

    @Test func errorKeepsTheGame() {
        var m = gameModel()
        m.apply(.error(code: "illegal-move", message: "cell 5 is already taken"))
        #expect(m.game != nil)
        #expect(m.statusText == "Your Turn")
        #expect(screen(m).contains { $0.contains("cell 5 is already taken") })
    }

    @Test func disconnectedReturnsToLobbyWithAlert() {
        var m = gameModel()
        m.apply(.disconnected(bob, reason: "no answer for 5 seconds"))
        #expect(m.game == nil)
        let lines = screen(m)
        #expect(lines.contains { $0.contains("Available Peers") })
        #expect(lines.contains { $0.contains("Peer Disconnected!") })
        // Said once, plainly: the reason, not the seed's sentence with the reason in brackets.
        #expect(lines.contains { $0.hasSuffix("bob: no answer for 5 seconds") })
        #expect(!lines.joined(separator: " ").contains("Your opponent has disconnected"))
        #expect(m.key(.enter) == .invite(bob.id.description)) // the lobby's keys again
        expectFits(m, width: 80, height: 24)
        expectFits(m, width: 40, height: 10)
    }

    /// The daemon keeps the score per peer while it stays: a new match with the same player
    /// shows it from its first game; a player who left starts again from nothing.
    @Test func theScoreCarriesAcrossMatchesWithTheSamePeer() {
        var m = gameModel()
        m.apply(.game(.score(Score(won: 1)), opponent: bobOpponent))
        m.apply(.matchEnded(bob, byUs: true))
        m.apply(.game(.gameStarted(piece: .x, first: false, size: .classic), opponent: bobOpponent))
        #expect(m.score == Score(won: 1))
        #expect(screen(m).contains { $0.contains("won 1") })
        m.apply(.peerLost(bob, reason: "bob left"))
        m.apply(.peerFound(bob))
        m.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        #expect(m.score == Score())
    }

    @Test func lobbyWithThirtyPeersFits() throws {
        var m = FullScreenModel(color: true)
        m.apply(.ready(name: String(repeating: "long name ", count: 6), id: ID128(high: 1, low: 1), port: 50123))
        m.addresses = ["192.168.1.10", "2001:db8::1234:5678:9abc:def0"]
        for i in 0..<30 {
            m.apply(.peerFound(peer("player \(String(UnicodeScalar(UInt8(90 - i % 26))))\(i) " + String(repeating: "x", count: i * 2), UInt64(i + 10), bot: i % 3 == 0)))
        }
        #expect(m.peers.count == 30)
        let names = m.peers.map { $0.name.lowercased() }
        #expect(names == names.sorted())
        m.apply(.invited(by: m.peers[3], size: try BoardSize(rows: 9, cols: 9, k: 5)))
        m.apply(.error(code: "x", message: String(repeating: "a very long error message ", count: 10)))
        expectFits(m, width: 80, height: 24)
        #expect(m.lines(width: 80, height: 24).count == 24)
        // The selection scrolls into view.
        for _ in 0..<29 { _ = m.key(.down) }
        let last = m.peers[29].name
        #expect(screen(m).contains { $0.contains(String(last.prefix(20))) })
        expectFits(m, width: 80, height: 24)
        for (w, h) in [(1, 1), (2, 3), (10, 5), (20, 8), (200, 60)] { expectFits(m, width: w, height: h) }
        // Our own address, as a friend types it after a, on its own line (also at 40 columns).
        #expect(screen(m, 40, 14)[1].hasPrefix("  Your address: 192.168.1.10:50123"))
        #expect(screen(m, 120, 24)[1].hasSuffix("[2001:db8::1234:5678:9abc:def0]:50123"))
        #expect(m.lines(width: 0, height: 24).isEmpty)
        #expect(m.lines(width: 80, height: -1).isEmpty)
    }

    @Test func bigBoardsDrawWhatFits() throws {
        for (rows, cols) in [(15, 15), (20, 20), (3, 20), (20, 3), (4, 4), (5, 5)] {
            var m = gameModel(size: try BoardSize(rows: rows, cols: cols, k: 3), color: true)
            m.apply(.game(.board(try board(try BoardSize(rows: rows, cols: cols, k: 3), o: [0, cols + 1], x: [rows * cols - 1])), opponent: bobOpponent))
            m.apply(.error(code: "x", message: "cell 1 is already taken"))
            expectFits(m, width: 80, height: 24)
            for (w, h) in [(1, 1), (10, 5), (30, 12), (120, 50)] { expectFits(m, width: w, height: h) }
            // The cursor stays on screen wherever it goes.
            for _ in 0..<25 { _ = m.key(.down); _ = m.key(.right) }
            #expect(m.cursor == rows * cols - 1)
            #expect(screen(m).contains { $0.contains("[X]") })
            expectFits(m, width: 80, height: 24)
        }
        // 15 x 15 and 20 x 20 both show lettered columns and numbered rows (CellName), not numbers
        // on one and dots on the other.
        for n in [15, 20] {
            let m = gameModel(size: try BoardSize(rows: n, cols: n, k: 5))
            let lines = screen(m)
            #expect(lines.contains { $0.contains(" a  b  c  d ") }, "\(n)")
            #expect(lines.contains { $0.hasPrefix("   1 ") || $0.hasPrefix("  10 ") || $0.contains(" 9  · ") }, "\(n)")
            #expect(lines.contains { $0.contains("[·]") }, "\(n)") // the cursor
            #expect(!lines.contains { $0.contains("[113]") })
            #expect(lines.contains { $0.contains("Your Turn") })
        }
    }

    /// A game as it starts: the rolls are the notice under the status.
    private func startedGame(rows: Int, cols: Int) throws -> FullScreenModel {
        var m = FullScreenModel(color: false, unicode: true)
        m.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        m.apply(.game(.rolls(yours: 773028, theirs: 385698, moveTime: 120), opponent: bobOpponent))
        m.apply(.game(.gameStarted(piece: .o, first: true, size: try BoardSize(rows: rows, cols: cols, k: 3)), opponent: bobOpponent))
        m.apply(.game(.yourTurn, opponent: bobOpponent))
        return m
    }

    /// The board rows on screen: lines whose first word is a row number followed by cells.
    private func boardRowNumbers(_ lines: [String]) -> [Int] {
        lines.compactMap { line in
            let words = line.split(separator: " ")
            guard words.count > 1, words[1].contains("·") || words[1].contains("O") || words[1].contains("X") else { return nil }
            return Int(words[0])
        }
    }

    /// The screen's text as words separated by single blanks (wrapped lines joined).
    private func words(_ lines: [String]) -> String {
        lines.flatMap { $0.split(separator: " ") }.joined(separator: " ")
    }

    @Test func everyBoardThatFitsAt40By14ShowsAllItsRows() throws {
        // 2 + 3 columns a cell + the row labels fit 11 columns in 40; the column letters, 11
        // rows, the status and the key help fit 14 lines.
        for rows in 4...11 {
            for cols in [3, 4, 7, 11] {
                let m = try startedGame(rows: rows, cols: cols)
                expectFits(m, width: 40, height: 14)
                let lines = screen(m, 40, 14)
                #expect(lines.count == 14)
                #expect(boardRowNumbers(lines) == Array(1...rows), "\(rows)x\(cols): \(lines)")
                #expect(lines.contains { $0.contains(" a  b  c") }, "\(rows)x\(cols)")
                #expect(lines.contains { $0 == "  Your Turn" }, "\(rows)x\(cols)")
                #expect(lines[13].hasSuffix("q quit"), "\(rows)x\(cols)")
                #expect(!lines.contains { $0.contains("enlarge") })
            }
        }
        // A confirmation's line on 11 x 11 costs the column letters, not rows.
        var confirming = try startedGame(rows: 11, cols: 11)
        _ = confirming.key(.char("r"))
        let asking = screen(confirming, 40, 14)
        #expect(boardRowNumbers(asking) == Array(1...11), "\(asking)")
        #expect(asking.contains { $0 == "  Resign this game? r/y: yes, other: no" }, "\(asking)")
        // Both questions fit 40 columns whole; 80 keeps the long wording.
        #expect(screen(confirming).contains { $0 == "  Resign this game? r or y: yes, any other key: no" })
        var renewing = try startedGame(rows: 7, cols: 7)
        _ = renewing.key(.char("n"))
        #expect(screen(renewing, 40, 14).contains { $0 == "  Give up, new game? n/y: yes, other: no" })
        #expect(!asking.contains { $0.contains(" a  b  c") })
        // 7 x 7 leaves room for the pieces line, the score and the start of the notice.
        let seven = screen(try startedGame(rows: 7, cols: 7), 40, 14)
        #expect(seven[0].hasPrefix(" tictac"))
        #expect(seven.contains { $0 == "  You: O  bob: X  7x7, 3 in a row" }, "\(seven)") // the short form
        #expect(screen(try startedGame(rows: 7, cols: 7)).contains { $0 == "  You: O    Opponent: bob X    7x7, 3 in a row" })
        // A long name is clipped in the short form, so that the goal still shows whole.
        var longName = FullScreenModel(color: false, unicode: true)
        let bot = Opponent(id: bob.id, name: "bot (perfect)")
        longName.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bot))
        longName.apply(.game(.yourTurn, opponent: bot))
        #expect(screen(longName, 40, 14).contains { $0 == "  You: O  bot (perf…: X  3x3, 3 in a row" }, "\(screen(longName, 40, 14))")
        #expect(screen(longName).contains { $0 == "  You: O    Opponent: bot (perfect) X    3x3, 3 in a row" })
        #expect(seven.contains { $0.hasPrefix("  Score: won 0") })
        #expect(seven.contains { $0.hasPrefix("  You rolled 773028") })
        // 3 x 3 at 40 x 14: all nine numbered cells, as one line per row.
        let classic = screen(try startedGame(rows: 3, cols: 3), 40, 14)
        for row in ["1  2  3", "4 [5] 6", "7  8  9"] { #expect(classic.contains { $0.contains(row) }, "\(classic)") }
    }

    @Test func aBoardThatCannotFitSaysHowLargeAWindowItNeeds() throws {
        // 12 columns need 41 columns; 12 rows need 16 lines (letters, rows, pieces, status, help).
        let m = try startedGame(rows: 12, cols: 12)
        let lines = screen(m, 40, 14)
        expectFits(m, width: 40, height: 14)
        #expect(boardRowNumbers(lines).isEmpty, "\(lines)")
        #expect(words(lines).contains("enlarge the window to 41 x 16"), "\(lines)")
        #expect(lines.contains { $0 == "  Your Turn" })
        #expect(lines[13].hasSuffix("q quit"))
        // At the size it names, the whole board shows.
        #expect(boardRowNumbers(screen(m, 41, 16)) == Array(1...12))
        // 20 x 20 fits 80 x 24 whole (the title goes); 15 x 15 at 40 x 14 asks for more.
        let twenty = screen(try startedGame(rows: 20, cols: 20), 80, 24)
        #expect(boardRowNumbers(twenty) == Array(1...20), "\(twenty)")
        #expect(twenty.contains { $0.hasPrefix("  You: O") })
        let fifteen = words(screen(try startedGame(rows: 15, cols: 15), 40, 14))
        #expect(fifteen.contains("enlarge the window to 50 x 19"), "\(fifteen)")
    }

    @Test func at80By24TheScreenKeepsEverything() throws {
        // 3 x 3 in big cells with the title, score, spacers and the whole notice, as before.
        let classic = screen(try startedGame(rows: 3, cols: 3))
        #expect(classic[0].hasPrefix(" tictac"))
        #expect(classic[2].hasPrefix("  Score: won 0"))
        #expect(classic[3].isEmpty)
        #expect(classic[4].contains("│"))
        #expect(classic[5].contains("1  │  2  │  3"))
        #expect(classic[16] == "  Your Turn")
        #expect(classic[17] == "  You rolled 773028, bob rolled 385698; 120 s per move")
        #expect(classic[23].hasSuffix("q quit"))
        // 7 x 7: the board under a blank line, a blank line, the status, the notice.
        let seven = screen(try startedGame(rows: 7, cols: 7))
        #expect(seven[3].isEmpty)
        #expect(boardRowNumbers(seven) == Array(1...7))
        #expect(seven[12].isEmpty)
        #expect(seven[13] == "  Your Turn")
        #expect(seven[14].hasPrefix("  You rolled 773028"))
    }

    @Test func aLongNoticeIsShownWholeWhereThereIsRoomAndTheBoardKeepsItsSize() throws {
        let text = "DNS-SD unavailable: avahi-daemon is not running; using broadcast discovery only"
        // The lobby at 40 x 14 with one peer: three lines, nothing cut.
        var lobby = FullScreenModel(color: false, unicode: true)
        lobby.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        lobby.apply(.peerFound(bob))
        lobby.apply(.notice(text))
        let lines = screen(lobby, 40, 14)
        expectFits(lobby, width: 40, height: 14)
        #expect(words(lines).contains(text), "\(lines)")
        #expect(lines.contains { $0.contains("bob") } && lines[13].hasSuffix("q quit"))
        // A game at 80 x 24: 3 x 3 stays in big cells under a four-line notice.
        var game = try startedGame(rows: 3, cols: 3)
        let long = Array(repeating: text, count: 3).joined(separator: "; ")
        game.apply(.notice(long))
        let big = screen(game)
        expectFits(game, width: 80, height: 24)
        #expect(big.contains { $0.contains("1  │  2  │  3") }, "\(big)")
        #expect(big.filter { $0.contains("DNS-SD") || $0.contains("broadcast") }.count >= 3, "\(big)")
    }

    @Test func asciiFallback() {
        var m = gameModel()
        m.unicode = false
        m.apply(.game(.gameOver(result: .won, line: nil, resigned: false), opponent: bobOpponent))
        #expect(m.key(.char("n")) == .new)
        #expect(m.statusText == "Rolling dice...")
        let text = screen(m).joined()
        #expect(text.allSatisfy { $0.isASCII })
    }

    @Test func namesFromTheNetworkAreClippedAndSafe() {
        var m = FullScreenModel(color: false)
        let wide = peer(String(repeating: "名", count: 60), 5)
        m.apply(.peerFound(wide))
        m.apply(.error(code: "x", message: "bad\u{1B}[2Jdata"))
        expectFits(m, width: 80, height: 24)
        #expect(!m.lines(width: 80, height: 24).joined().contains("\u{1B}[2J"))
    }
}
