import Foundation
import Glibc
import Testing
import TicTacAPI
import TicTacDaemonCore
import TicTacDiscoveryCore
import TicTacEngine
@testable import TicTacTTY
@testable import TicTacTerminal
import TicTacTime
import TicTacWire

/// Lines a plain front writes for `events`, read back from a pipe.
func plainLines(json: Bool, _ events: [DaemonEvent]) throws -> [String] {
    var fds: [Int32] = [0, 0]
    try #require(pipe(&fds) == 0)
    do { // the front's writer holds a descriptor of its own on the pipe until it goes
        let front = PlainFront(json: json, outputFD: fds[1])
        for e in events { front.show(e) }
        front.stop()
    }
    close(fds[1])
    var data = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(fds[0], &buffer, buffer.count)
        guard n > 0 else { break }
        data += buffer[0..<n]
    }
    close(fds[0])
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}

/// Plain mode says a peer changed only when something it shows changed, and tells an earlier
/// instance of a peer (same name, same address, an old id still listed) from a second player.
@Suite struct PlainEchoTests {
    let ben = PeerInfo(id: ID128(high: 0x9a76_0000_0000_0000, low: 1), name: "ben", addresses: ["198.18.0.2", "fe80::2%2"],
                       port: 41237, capabilities: [.tictactoe], state: .idle, via: [.broadcast])

    @Test func anUpdateThatShowsNothingNewIsNotPrinted() throws {
        var reordered = ben
        reordered.addresses.reverse() // freshest first: not a change
        reordered.capabilities = [.tictactoe, .field] // not shown
        var playing = ben
        playing.state = .playing
        var viaBoth = ben
        viaBoth.via = [.broadcast, .dnssd]
        let events: [DaemonEvent] = [.peerFound(ben), .peerUpdated(ben), .peerUpdated(reordered), .peerUpdated(playing),
                                     .peerUpdated(playing), .peerUpdated(viaBoth)]
        let json = try plainLines(json: true, events)
        #expect(json.filter { $0.contains("peer-updated") }.count == 2, "playing, then idle via both ways: \(json)")
        #expect(Set(json).count == json.count, "no two identical lines: \(json)")
        let text = try plainLines(json: false, events)
        #expect(text == ["Peer found: ben (9a760000) at 198.18.0.2, idle",
                         "Peer updated: ben (9a760000) at 198.18.0.2, playing",
                         "Peer updated: ben (9a760000) at 198.18.0.2, idle"], "text shows no via: \(text)")
    }

    @Test func aPeerFoundAgainAfterItWasLostIsFoundAgain() throws {
        let text = try plainLines(json: false, [.peerFound(ben), .peerLost(ben, reason: "ben left"), .peerUpdated(ben)])
        #expect(text.count == 3)
    }

    @Test func anEarlierInstanceIsSaidToBeOne() throws {
        var restarted = ben
        restarted.id = ID128(high: 0x1234_5678_0000_0000, low: 2)
        restarted.port = 45555
        var other = ben
        other.id = ID128(high: 0x5555_0000_0000_0000, low: 3)
        other.addresses = ["198.18.0.9"] // another host: another player named ben
        let text = try plainLines(json: false, [.peerFound(ben), .peerFound(restarted), .peerFound(other)])
        #expect(text[1] == "Peer found: ben (12345678) at 198.18.0.2, idle (an earlier instance of ben at this address (9a760000) is still listed until it expires)")
        #expect(text[2] == "Peer found: ben (55550000) at 198.18.0.9, idle")
        let json = try plainLines(json: true, [.peerFound(ben), .peerFound(restarted), .peerFound(other)])
        #expect(json[1].hasSuffix(#""earlier":["\#(ben.id)"]}"#), "\(json[1])")
        #expect(!json[0].contains("earlier") && !json[2].contains("earlier"))

        var m = FullScreenModel(color: false)
        m.apply(.peerFound(ben))
        m.apply(.peerFound(restarted))
        m.apply(.peerFound(other))
        let rows = screen(m).filter { $0.contains("ben") }
        #expect(rows.count == 3)
        #expect(rows.filter { $0.contains("earlier instance") }.count == 1, "\(rows)")
        #expect(m.isEarlierInstance(ben) && !m.isEarlierInstance(restarted) && !m.isEarlierInstance(other))
        m.apply(.peerLost(ben, reason: "no announcement for 6 s"))
        #expect(!screen(m).contains { $0.contains("earlier instance") })
    }
}

/// Plain mode's move clock: the turn says how long a move has when under a minute, and a line
/// comes once when 10 s are left (the full screen counts them down).
@Suite struct PlainMoveClockTests {
    let bob = PeerInfo(id: ID128(high: 7, low: 7), name: "bob")
    func at(_ s: Int64) -> Instant { Instant(nanoseconds: s * 1_000_000_000) }

    @Test func tenSecondsLeftIsSaidOncePerTurn() {
        var clock = MoveClockAnnouncer()
        clock.after(.game(.rolls(yours: 1, theirs: 2, moveTime: 30), opponent: bob), now: at(0))
        clock.after(.game(.gameStarted(piece: .x, first: false, size: .classic), opponent: bob), now: at(0))
        clock.after(.game(.opponentTurn, opponent: bob), now: at(0))
        #expect(clock.deadline == at(20))
        clock.after(.peerUpdated(peer("zed", 9)), now: at(5)) // lobby news does not stop the clock
        #expect(clock.due(now: at(19)) == nil)
        #expect(clock.due(now: at(20)) == .moveClock(bob, yours: false, seconds: 10))
        #expect(clock.due(now: at(21)) == nil, "once")
        clock.after(.game(.yourTurn, opponent: bob), now: at(22))
        #expect(clock.deadline == at(42), "each turn's clock starts afresh")
        clock.after(.game(.gameOver(result: .lost, line: nil, resigned: false), opponent: bob), now: at(30))
        #expect(clock.deadline == nil && clock.due(now: at(50)) == nil)
    }

    /// A resumed turn counts from what was left (`turnClock`), on plain lines, JSON and the full screen.
    @Test func aResumedTurnCountsWhatWasLeft() {
        var clock = MoveClockAnnouncer()
        clock.after(.game(.rolls(yours: 1, theirs: 2, moveTime: 30), opponent: bob), now: at(0))
        clock.after(.game(.yourTurn, opponent: bob), now: at(100))
        clock.after(.game(.turnClock(seconds: 18), opponent: bob), now: at(100))
        #expect(clock.deadline == at(108), "10 s before the 18 left, not 20 s into a whole 30")
        clock.after(.game(.turnClock(seconds: 7), opponent: bob), now: at(200))
        #expect(clock.deadline == nil, "under 10 s left: the line said it")
        var resumed = OutputFormatter(style: .text)
        for event in [DaemonEvent.gameResumed(bob, resigned: false), .game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bob)] {
            resumed.note(event)
        }
        #expect(resumed.lines(for: .game(.turnClock(seconds: 18), opponent: bob))
                == ["18 s left to move: the clock goes on from where the link was lost"])
        #expect(OutputFormatter(style: .text).lines(for: .game(.turnClock(seconds: 18), opponent: bob)) == ["18 s left to move"],
                "outside a resume: a front that attached mid-turn (docs/control.md)")
        #expect(OutputFormatter(style: .json).lines(for: .game(.turnClock(seconds: 18), opponent: bob)).joined()
                    .contains(#""event":"turn-clock","seconds":18"#))
        var m = FullScreenModel(color: false)
        m.apply(.ready(name: "ann", id: ID128(high: 1, low: 1), port: 50000))
        m.apply(.game(.rolls(yours: 4, theirs: 9, moveTime: 30), opponent: bob))
        m.apply(.game(.gameStarted(piece: .x, first: true, size: .classic), opponent: bob))
        m.apply(.game(.yourTurn, opponent: bob))
        #expect(m.clockText == "30 s")
        m.apply(.game(.turnClock(seconds: 18), opponent: bob))
        #expect(m.clockText == "18 s")
    }

    /// A resumed game's start is said as going on, not as a new game; the next one is new.
    @Test func aResumedGameIsNotSaidNew() {
        let ben = PeerInfo(id: ID128(high: 7, low: 7), name: "bob", address: "198.18.0.2", port: 1, capabilities: [.tictactoe])
        let start = DaemonEvent.game(.gameStarted(piece: .o, first: true, size: .classic), opponent: bob)
        var text = OutputFormatter(style: .text), json = OutputFormatter(style: .json)
        for event in [DaemonEvent.gameResumed(ben, resigned: false), start] {
            text.note(event)
            json.note(event)
        }
        #expect(text.lines(for: start) == ["The game against bob goes on (3x3, 3 in a row): you play O, you moved first"])
        #expect(json.lines(for: start).joined().contains(#""resumed":true"#))
        text.note(start)
        json.note(start)
        #expect(text.lines(for: start) == ["New game against bob on 3x3, 3 in a row: you play O, you move first"])
        #expect(json.lines(for: start).joined().contains(#""resumed":false"#))
    }

    @Test func noClockNoLine() {
        var clock = MoveClockAnnouncer()
        clock.after(.game(.rolls(yours: 1, theirs: 2, moveTime: 0), opponent: bob), now: at(0))
        clock.after(.game(.yourTurn, opponent: bob), now: at(0))
        #expect(clock.deadline == nil)
    }

    @Test func theLinesSayIt() throws {
        let events: [DaemonEvent] = [.game(.rolls(yours: 1, theirs: 2, moveTime: 15), opponent: bob),
                                     .game(.yourTurn, opponent: bob), .moveClock(bob, yours: true, seconds: 10),
                                     .game(.opponentTurn, opponent: bob), .moveClock(bob, yours: false, seconds: 10)]
        let text = try plainLines(json: false, events)
        #expect(Array(text.dropFirst()) == ["Your Turn (15 s to move)", "10 s left to move", "Opponent's Turn (15 s to move)",
                                            "bob has 10 s left to move"])
        let json = try plainLines(json: true, events)
        #expect(Array(json.dropFirst()) == [#"{"event":"your-turn","seconds":15}"#, #"{"event":"clock","who":"you","seconds":10}"#,
                                            #"{"event":"opponent-turn","seconds":15}"#, #"{"event":"clock","who":"opponent","seconds":10}"#])
        // A clock of a minute or more is said only near its end, as on the full screen.
        let long = try plainLines(json: false, [.game(.rolls(yours: 1, theirs: 2, moveTime: 120), opponent: bob), .game(.yourTurn, opponent: bob)])
        #expect(long.last == "Your Turn")
    }
}
