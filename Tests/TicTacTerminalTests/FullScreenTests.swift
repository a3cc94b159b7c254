import Testing
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
@testable import TicTacTerminal
import TicTacTime

// Pure tests of the full-screen front: the key parser, and the model's keys and events in the
// lobby (its invitations: FullScreenInvitationTests.swift). FullScreenGameTests and
// FullScreenLayoutTests hold the game and the rendered lines.

/// One key, or a few, as a fresh parser reads them in one go.
struct KeyCase: Sendable, CustomTestStringConvertible {
    let what: String
    let bytes: [UInt8]
    let keys: [Key]
    init(_ what: String, _ bytes: [UInt8], _ keys: [Key]) { (self.what, self.bytes, self.keys) = (what, bytes, keys) }
    init(_ what: String, _ text: String, _ keys: [Key]) { self.init(what, Array(text.utf8), keys) }
    var testDescription: String { what }
}

@Suite struct KeyParserTests {
    static let cases: [KeyCase] = [
        KeyCase("CSI arrows", "\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D", [.up, .down, .right, .left]),
        KeyCase("SS3 arrows", "\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD", [.up, .down, .right, .left]),
        KeyCase("Ctrl+Right: parameters ignored", "\u{1B}[1;5C", [.right]),
        KeyCase("Shift+Down", "\u{1B}[1;2B", [.shiftDown]),
        KeyCase("CR", [0x0D], [.enter]),
        KeyCase("the LF of a CRLF is the same Enter", [0x0D, 0x0A], [.enter]),
        KeyCase("LF alone", [0x0A, 0x0A], [.enter, .enter]),
        KeyCase("keypad Enter", [0x1B, 0x4F, 0x4D], [.enter]),
        KeyCase("Ctrl-C", [0x03], [.interrupt]),
        KeyCase("printable characters, space included", "5 y", [.char("5"), .char(" "), .char("y")]),
        KeyCase("NUL, UTF-8 and Tab are ignored", [0x00, 0xC3, 0xA9, 0x09], []),
        KeyCase("DEL and Ctrl-H", [0x7F, 0x08], [.backspace, .backspace]),
        KeyCase("ESC then a character", "\u{1B}q", [.escape, .char("q")]),
        KeyCase("a control byte inside a CSI ends it and is still a key", [0x1B, 0x5B, 0x31, 0x03], [.interrupt]),
    ]

    @Test(arguments: cases) func bytesReadInOneGo(_ c: KeyCase) {
        var p = KeyParser()
        #expect(p.feed(c.bytes) == c.keys)
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
        #expect(p.feed(Array("2B".utf8)) == [.shiftDown])
        #expect(!p.hasPending)
    }

    @Test func aLoneEscapeWaitsForTheFlush() {
        var p = KeyParser()
        #expect(p.feed([0x1B]).isEmpty)
        #expect(p.hasPending)
        #expect(p.flush() == [.escape])
        #expect(!p.hasPending)
    }

    @Test func aSequenceThatNeverEndsIsDroppedAndWhatFollowsCounts() {
        var p = KeyParser()
        #expect(p.feed(Array(("\u{1B}[" + String(repeating: "1;", count: 20)).utf8)).isEmpty)
        #expect(!p.hasPending)
        #expect(p.feed([0x03]) == [.interrupt])
    }
}

/// Quitting and leaving: from the lobby, in a networked game (asked first), between games, in a
/// local game, and Ctrl-C (never asked about).
@Suite struct FullScreenQuitTests {
    @Test func qQuitsFromTheLobby() {
        var m = FullScreenModel(color: false)
        #expect(m.key(.char("q")) == .quit)
    }

    @Test func ctrlCQuitsFromTheLobbyAsAnInterrupt() {
        var m = FullScreenModel(color: false)
        #expect(m.key(.interrupt) == .interrupt)
    }

    @Test func inAGameQAsksAndAnyOtherKeyPlaysOn() {
        var g = gameModel()
        #expect(g.key(.char("q")) == nil)
        #expect(screen(g).contains { $0 == "  Quit and adjourn this game? q or y: yes, any other key: no" })
        #expect(g.key(.char("x")) == nil && g.notice?.text == "Not quitting: play on")
        #expect(g.confirm == nil, "the question is gone")
    }

    @Test func inAGameQThenYGivesItUp() {
        var g = gameModel()
        #expect(g.key(.char("q")) == nil)
        #expect(g.key(.char("y")) == .quit)
    }

    @Test func inAGameQThenQGivesItUp() {
        var g = gameModel()
        #expect(g.key(.char("q")) == nil)
        #expect(g.key(.char("Q")) == .quit)
    }

    @Test func inAGameLAsksAndLAgainLeavesForTheLobby() {
        var g = gameModel()
        #expect(g.key(.char("l")) == nil)
        #expect(g.key(.char("l")) == .lobby)
    }

    @Test func betweenGamesLLeavesAtOnce() {
        var over = gameModel()
        over.apply(.game(.gameOver(result: .won, line: nil, resigned: false), opponent: bobOpponent))
        #expect(over.key(.char("l")) == .lobby)
    }

    @Test func betweenGamesQQuitsAtOnce() {
        var over = gameModel()
        over.apply(.game(.gameOver(result: .won, line: nil, resigned: false), opponent: bobOpponent))
        #expect(over.key(.char("q")) == .quit)
    }

    @Test func inALocalGameQQuitsAtOnce() {
        var local = FullScreenModel(color: false)
        local.apply(.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bobOpponent))
        local.apply(.game(.yourTurn, opponent: bobOpponent))
        #expect(local.key(.char("q")) == .quit) // no peer loses anything
    }

    @Test func ctrlCInAGameIsNotAskedAbout() {
        var g = gameModel()
        #expect(g.key(.interrupt) == .interrupt)
    }

    @Test func ctrlCAtTheQuitQuestionIsNotAskedAbout() {
        var g = gameModel()
        _ = g.key(.char("q"))
        #expect(g.key(.interrupt) == .interrupt)
    }
}

/// `f` opens the collaborative field from the lobby, when the daemon serves it.
@Suite struct FullScreenFieldKeyTests {
    @Test func fDoesNothingWhenTheDaemonDoesNotServeTheField() {
        var m = FullScreenModel(color: false)
        #expect(m.key(.char("f")) == nil)
        #expect(!screen(m).joined().contains("f field"))
    }

    @Test func fOrShiftFOpensTheFieldAndTheLobbySaysSo() {
        var m = FullScreenModel(color: false)
        m.offersField = true
        #expect(screen(m).last?.contains("f field") == true)
        #expect(m.key(.char("f")) == .field)
        #expect(m.key(.char("F")) == .field)
    }

    @Test func whatTheLobbySaidBeforeTheFieldIsGoneWhenItComesBack() {
        var m = FullScreenModel(color: false)
        m.offersField = true
        m.apply(.matchEnded(bob, byUs: true))
        #expect(screen(m).contains { $0.contains("You left the match with bob") })
        #expect(m.key(.char("f")) == .field)
        #expect(!screen(m).contains { $0.contains("You left the match") })
    }

    @Test func fDoesNotOpenTheFieldDuringAGame() {
        var g = gameModel()
        g.offersField = true
        #expect(g.key(.char("f")) != .field)
    }
}

/// The lobby's list of peers: sorted by name, one selected, Enter invites it.
@Suite struct FullScreenPeerListTests {
    let zed = peer("zed", 3), alice = peer("Alice", 2), carol = peer("carol", 4), aaron = peer("Aaron", 9)

    /// A lobby that found zed, bob and Alice, in that order.
    func lobby() -> FullScreenModel {
        var m = FullScreenModel(color: false)
        for p in [zed, bob, alice] { m.apply(.peerFound(p)) }
        return m
    }

    @Test func peersAreSortedByNameAndTheSelectionStaysOnItsPeer() {
        let m = lobby()
        #expect(m.peers.map(\.name) == ["Alice", "bob", "zed"])
        #expect(m.selectedPeer == zed) // the first found, though others sorted in above it
    }

    @Test func aPeerSortedInAboveKeepsTheSelection() {
        var m = lobby()
        #expect(m.key(.up) == nil)
        #expect(m.selectedPeer == bob)
        m.apply(.peerFound(aaron))
        #expect(m.peers.map(\.name) == ["Aaron", "Alice", "bob", "zed"])
        #expect(m.selectedPeer == bob)
    }

    @Test func enterInvitesTheSelectedPeer() {
        var m = lobby()
        _ = m.key(.up)
        #expect(m.key(.enter) == .invite(bob.id.description))
    }

    @Test func theSelectionIsClampedAtBothEnds() {
        var m = lobby()
        for _ in 0..<10 { _ = m.key(.down) }
        #expect(m.selectedPeer == zed)
        for _ in 0..<10 { _ = m.key(.up) }
        #expect(m.selectedPeer == alice)
    }

    @Test func losingTheSelectedPeerMovesTheSelectionInRange() {
        var m = lobby()
        m.apply(.peerFound(aaron))
        for _ in 0..<10 { _ = m.key(.up) }
        #expect(m.selectedPeer == aaron)
        m.apply(.peerLost(aaron, reason: "gone"))
        #expect(m.selectedPeer == alice)
        m.apply(.peerLost(zed, reason: "gone"))
        m.apply(.peerLost(bob, reason: "gone"))
        m.apply(.peerLost(alice, reason: "gone"))
        #expect(m.selectedPeer == nil)
    }

    @Test func theScreenListsThePeersAndTheKeys() {
        var m = lobby()
        m.apply(.peerFound(carol))
        m.apply(.peerLost(zed, reason: "gone"))
        let lines = screen(m)
        let names = lines.compactMap { line in ["Alice", "bob", "carol", "zed"].first { line.contains(" \($0) ") } }
        #expect(names == ["Alice", "bob", "carol"])
        #expect(lines.contains { $0.contains("Available Peers") })
        #expect(lines.last?.contains("select  Enter invite  ? help  q quit") == true)
    }

    @Test func anEmptyLobbyIgnoresEnterAndArrows() {
        var m = FullScreenModel(color: false)
        #expect(m.key(.enter) == nil)
        #expect(m.key(.down) == nil)
        #expect(m.key(.up) == nil)
        #expect(m.selectedPeer == nil)
    }

    @Test func aLobbyEmptiedAgainIgnoresEnter() {
        var m = FullScreenModel(color: false)
        m.apply(.peerFound(bob))
        m.apply(.peerLost(bob, reason: "left"))
        #expect(m.key(.enter) == nil)
    }
}

/// `a` in the lobby: a peer added by its address.
@Suite struct FullScreenAddressTests {
    func networked() -> FullScreenModel {
        var m = FullScreenModel(color: false)
        m.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
        return m
    }

    @Test func withoutANetworkThereIsNoAddressToAdd() {
        var local = FullScreenModel(color: false)
        #expect(local.key(.char("a")) == nil && local.addressEntry == nil)
    }

    @Test func aTypedAddressConnects() {
        var m = networked()
        #expect(m.key(.char("a")) == nil && m.addressEntry == "")
        for c in "198.18.1.7:50009" { #expect(m.key(.char(c)) == nil) }
        #expect(m.promptText?.contains("198.18.1.7:50009_") == true)
        #expect(m.key(.enter) == .connect("198.18.1.7:50009"))
        #expect(m.addressEntry == nil)
    }

    @Test func qIsTypedNotQuitWhileAnAddressIsTypedAndBackspaceTakesItBack() {
        var m = networked()
        _ = m.key(.char("a"))
        for c in "h1" { _ = m.key(.char(c)) }
        #expect(m.key(.char("q")) == nil)
        #expect(m.addressEntry == "h1q")
        #expect(m.key(.backspace) == nil)
        #expect(m.addressEntry == "h1")
    }

    @Test func escapeDropsATypedAddress() {
        var m = networked()
        _ = m.key(.char("a"))
        _ = m.key(.char("x"))
        #expect(m.key(.escape) == nil && m.addressEntry == nil && m.promptText == nil)
    }

    @Test func anEmptyAddressConnectsNowhere() {
        var m = networked()
        #expect(m.key(.char("a")) == nil)
        #expect(m.key(.enter) == nil)
    }
}
