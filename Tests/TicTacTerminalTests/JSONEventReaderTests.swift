import Testing
import TicTacAPI
import TicTacDiscoveryCore
import TicTacEngine
import TicTacJSON
@testable import TicTacTerminal
import TicTacWire

/// Plain mode's JSON lines read back (JSONEventReader, for the full screen attached to
/// `tictac daemon`): each event the screen uses comes back as it went out.
@Suite struct JSONEventReaderTests {
    let ben = PeerInfo(id: ID128(high: 0xAB, low: 0xCD), name: "ben \"the\" bot")
    let formatter = OutputFormatter(style: .json)

    func roundTrip(_ events: [DaemonEvent]) -> [DaemonEvent?] {
        var reader = JSONEventReader()
        var f = formatter
        return events.map { event in
            f.note(event)
            let line = f.lines(for: event).joined()
            return reader.event(from: line)
        }
    }

    @Test func theLobbyAndTheInvitationsComeBack() throws {
        let listed = PeerInfo(id: ben.id, name: ben.name, addresses: ["198.18.0.2", "fe80::1%eth0"], port: 41_237,
                              capabilities: [], state: .playing, via: [.broadcast, .dnssd], program: "pbrain-tiny 1.0")
        let size = try BoardSize(rows: 15, cols: 15, k: 5)
        let events: [DaemonEvent] = [
            .ready(name: "ann", id: ID128(high: 1, low: 2), port: 50_000),
            .peerFound(listed), .peerUpdated(listed), .peerLost(listed, reason: "ben left"), .peers([listed]),
            .invited(by: ben, size: size), .inviteSent(to: ben), .inviteCancelled(by: ben), .inviteExpired(by: ben),
            .inviteHeld(by: ben, size: .classic, ahead: 2), .heldInviteDeclined(by: ben), .declined(by: ben, reason: .noAnswer),
            .disconnected(ben, reason: "no answer for 5.0 seconds"), .gameInterrupted(ben, window: .seconds(600), reason: "cut"),
            .gameResumed(ben, resigned: true), .gameAdjourned(ben), .gameVoid(ben, reason: "r"), .gameAbandoned(ben, reason: "r"),
            .gameClaimed(ben, won: true, reason: "r"), .claimWithdrawn(ben, reason: "r"), .matchEnded(ben, byUs: false),
            .error(code: "busy", message: "finish the current game first"), .help("commands: ..."), .notice("Network: ..."),
            .watchers(3),
        ]
        let back = roundTrip(events)
        for (sent, got) in zip(events, back) { #expect(got == sent) }
    }

    @Test func aGameComesBackWithItsOpponentAndBoard() throws {
        let size = try BoardSize(rows: 5, cols: 6, k: 4)
        var board = Board(size: size)
        try board.place(.o, at: 0)
        try board.place(.x, at: 29)
        let game: [GameEvent] = [
            .rolls(yours: 790_923, theirs: 204_709, moveTime: 120), .gameStarted(piece: .o, first: true, size: size),
            .score(Score(won: 1, lost: 2, drawn: 3)), .board(board), .yourTurn, .turnClock(seconds: 18), .opponentTurn,
            .opponentMoved(cell: 29), .timeUp(yours: true, clock: .move), .left(yours: false, inRoll: true),
            .gameOver(result: .won, line: [0, 7, 14, 21], resigned: false), .gameOver(result: .draw, line: nil, resigned: true),
        ]
        let events = [DaemonEvent.inviteSent(to: ben)] + game.map { DaemonEvent.game($0, opponent: ben) }
        let back = roundTrip(events)
        for (sent, got) in zip(events, back) { #expect(got == sent) }
    }

    @Test func whatTheScreenDoesNotUseOrCannotReadIsNil() {
        var reader = JSONEventReader()
        for line in [#"{"event":"rematch","seconds":3,"commands":["new"]}"#, #"{"event":"clock","who":"you","seconds":10}"#,
                     #"{"event":"output-dropped","count":4}"#, #"{"event":"from-the-future"}"#, "not json", "",
                     #"{"event":"board","cells":"O.X"}"#, #"{"event":"invited","from":{"id":"zz","name":"x"}}"#,
                     String(repeating: "[", count: 10_000)] {
            #expect(reader.event(from: line) == nil, "\(line.prefix(40))")
        }
    }

    @Test func jsonIsParsedAsRFC8259Says() {
        #expect(JSON.parse(#" {"a" : [1, -2, true, false, null, "x\"\\\/\n\u00e9\ud83d\ude00"]} "#)
            == .object([("a", .array([.int(1), .int(-2), .bool(true), .bool(false), .null, .string("x\"\\/\né😀")]))]))
        for bad in [#"{"a":1,}"#, #"[1 2]"#, #"{"a"}"#, #""\x""#, "\"\u{1}\"", "01x", "{} {}", #""\ud83d"#] {
            #expect(JSON.parse(bad) == nil, "\(bad)")
        }
        #expect(JSON.parse(String(repeating: "[", count: 16) + String(repeating: "]", count: 16)) != nil)
        #expect(JSON.parse(String(repeating: "[", count: 17) + String(repeating: "]", count: 17)) == nil, "depth is bounded")
    }
}
