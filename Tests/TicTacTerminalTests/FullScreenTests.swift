import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
@testable import TicTacTerminal
import TicTacTime

// Pure tests of the full-screen front: the key parser, and the model's keys and events in the
// lobby. FullScreenGameTests and FullScreenLayoutTests hold the game and the rendered lines.

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
    @Test func qAndCtrlCQuitFromTheLobby() {
        var m = FullScreenModel(color: false)
        #expect(m.key(.char("q")) == .quit)
        #expect(m.key(.interrupt) == .interrupt) // quits with the status of an interrupt
    }

    @Test func aNetworkedGameInProgressAsksBeforeQOrLGiveItAway() {
        var g = gameModel()
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
    }

    @Test func betweenGamesAndInALocalGameQAndLActAtOnce() {
        var over = gameModel()
        over.apply(.game(.gameOver(result: .won, line: nil, resigned: false), opponent: bobOpponent))
        #expect(over.key(.char("l")) == .lobby)
        #expect(over.key(.char("q")) == .quit)
        var local = FullScreenModel(color: false)
        local.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        local.apply(.game(.yourTurn, opponent: bobOpponent))
        #expect(local.key(.char("q")) == .quit) // no peer loses anything
    }

    @Test func ctrlCIsNeverAskedAbout() {
        var g = gameModel()
        #expect(g.key(.interrupt) == .interrupt)
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
}
