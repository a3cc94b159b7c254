import Foundation
import Glibc
import Testing
import TicTacField
import TicTacFieldCore
import TicTacTime
import TicTacWire
@testable import TicTacTTY
@testable import TicTacTerminal

private func at(_ ms: Int64) -> Instant { Instant(nanoseconds: ms * 1_000_000) }
private let bobKey = SphereKey.peer(ID128(high: 2, low: 2))
private func bob(x: Int32 = 500, y: Int32 = 500) -> FieldSphere {
    FieldSphere(key: bobKey, name: "bob", x: x, y: y, color: RGB(0, 0, 255))
}

@Suite struct FieldCommandTests {
    @Test func parsesTheFieldsCommands() throws {
        #expect(try FieldCommand.parse("move 10 -20") == .move(dx: 10, dy: -20))
        #expect(try FieldCommand.parse("  GOTO 0 999 ") == .goto(x: 0, y: 999))
        #expect(try FieldCommand.parse("color 255 128 0") == .color(RGB(255, 128, 0)))
        #expect(try FieldCommand.parse("quit") == .quit)
        #expect(try FieldCommand.parse("Stats") == .stats && FieldCommand.parse("lobby") == .lobby)
        for bad in ["stats now", "goto 1000 0", "goto -1 5", "color 256 0 0", "move 1", "move 1 2 3", "move 99999999999999999999 0",
                    "fly", "quit now", "color a b c"] {
            #expect(throws: Command.ParseError.self, "\(bad)") { try FieldCommand.parse(bad) }
        }
        #expect(FieldCommand.parseColor("255,128,0") == RGB(255, 128, 0))
        #expect(FieldCommand.parseColor("255,128") == nil && FieldCommand.parseColor("1,2,300") == nil)
    }

    @Test func statsNameEveryDropAsProtocolSection11Does() {
        var c = FieldCounters()
        c.received = 9
        c.sent = 4
        c.malformed = 2
        c.spoofedOwn = 1
        c.stale = 3
        #expect(FieldFormatter(json: true).stats(c) == #"{"event":"field-stats","received":9,"sent":4,"dropped":6,"rate-limited":0,"malformed":2,"unexpected":0,"spoofed-own":1,"unknown-sender":0,"wrong-source":0,"stale":3}"#)
        #expect(FieldFormatter(json: false).stats(c) == "field-stats received 9 sent 4 dropped 6 (rate-limited 0, malformed 2, unexpected 0, spoofed-own 1, unknown-sender 0, wrong-source 0, stale 3)")
    }

    @Test func shiftArrowsAreBigStepsAndPlainArrowsStayArrows() {
        var p = KeyParser()
        #expect(p.feed(Array("\u{1B}[1;2A\u{1B}[1;2D\u{1B}[A\u{1B}[1;5B".utf8)) == [.shiftUp, .shiftLeft, .up, .down])
    }
}

@Suite struct SphereLineThrottleTests {
    @Test func atMostTenLinesASecondPerSphereAndTheNewestWins() {
        var t = SphereLineThrottle()
        var printed: [FieldSphere] = []
        // Thirty changes a second for two seconds, timers served as the front would.
        for i in 0..<60 {
            let now = at(Int64(i) * 33)
            while let d = t.nextDeadline(), d <= now { printed += t.due(now: d) } // the front's timer
            if let s = t.offer(bob(x: Int32(i)), now: now) { printed.append(s) }
        }
        if let d = t.nextDeadline() { printed += t.due(now: d) }
        #expect(printed.count >= 18 && printed.count <= 21, "\(printed.count) lines for 2 s")
        #expect(printed.last?.x == 59)
        // Another sphere is not held back by the first.
        let other = FieldSphere(key: .peer(ID128(high: 3, low: 3)), name: "c", x: 1, y: 1, color: RGB(1, 1, 1))
        #expect(t.offer(other, now: at(2000)) == other)
        // A sphere that left has nothing pending.
        _ = t.offer(bob(x: 1), now: at(2001))
        t.forget(bobKey)
        #expect(t.due(now: at(5000)).isEmpty)
    }
}

@Suite struct FieldScreenTests {
    func screen(_ depth: ColorDepth) -> FieldScreen {
        var s = FieldScreen(depth: depth, unicode: false)
        s.apply(.ready(FieldSphere(key: .peer(ID128(high: 1, low: 1)), name: "alice", x: 0, y: 0, color: RGB(255, 0, 0)), port: 1))
        s.apply(.event(.joined(bob(x: 999, y: 999))))
        return s
    }

    @Test func mapsTheFieldOntoAnySizeWithColoursOrInitials() {
        let plain = screen(.none)
        for (w, h) in [(80, 24), (40, 12), (200, 60)] {
            let lines = plain.lines(width: w, height: h)
            #expect(lines.count == h)
            let (cols, rows) = plain.fieldSize(width: w, height: h)
            // Alice at the upper left, Bob at the lower right of the field, inside the frame.
            #expect(lines[2].hasPrefix("|A"), "\(lines[2])")
            #expect(lines[1 + rows].hasSuffix("B|"), "\(lines[1 + rows])")
            #expect(lines[2].count == cols + 2)
        }
        let legend = plain.lines(width: 80, height: 24)[22]
        #expect(legend.contains("A alice (you)") && legend.contains("B bob"))
        let colour = screen(.trueColor).lines(width: 80, height: 24)
        #expect(colour[2].contains("\u{1B}[1;38;2;255;0;0mO"))
        #expect(screen(.palette256).lines(width: 80, height: 24)[2].contains("38;5;196m"))
        #expect(screen(.ansi16).lines(width: 80, height: 24)[2].contains("\u{1B}[1;31mO"))
    }

    @Test func theKeyHelpKeepsHowToLeaveAtAnyWidth() {
        let s = screen(.none)
        for w in [80, 40, 39, 30, 20, 12] {
            let help = s.lines(width: w, height: 14).last ?? ""
            #expect(help.contains("q quit") || help.contains("q: quit"), "\(w): \(help)")
            #expect(help.count <= w)
        }
    }

    @Test func ourSphereIsDrawnOnTopAndStepsMoveOneCell() {
        var s = screen(.none)
        s.apply(.event(.joined(FieldSphere(key: .peer(ID128(high: 0, low: 9)), name: "zed", x: 0, y: 0, color: RGB(1, 1, 1)))))
        #expect(s.status == "zed joined")
        #expect(s.lines(width: 80, height: 24)[2].hasPrefix("|A"))
        let (dx, dy) = s.steps(width: 80, height: 24)
        let (cols, rows) = s.fieldSize(width: 80, height: 24)
        #expect(Int(dx) * cols >= 1000 && Int(dx - 1) * cols < 1000)
        #expect(Int(dy) * rows >= 1000 && Int(dy - 1) * rows < 1000)
        s.apply(.event(.left(bobKey, name: "bob", reason: .timeout)))
        #expect(s.others.count == 1 && s.status == "bob timed out")
        // Opened again (from tictac play's lobby): the old status goes, the spheres stay.
        s.apply(.stats(FieldCounters()))
        s.apply(.ready(FieldSphere(key: .peer(ID128(high: 0, low: 1)), name: "ann", x: 1, y: 1, color: RGB(9, 9, 9)), port: 5))
        #expect(s.status == "" && s.others.count == 1)
        var c = FieldCounters()
        c.received = 7
        c.malformed = 2
        c.stale = 1
        s.apply(.stats(c))
        #expect(s.status == "datagrams: received 7, sent 0, dropped 3 (malformed 2, stale 1)")
    }

    @Test func cStepsToTheNextColourNoOtherSphereShows() {
        let p = FullScreenFieldFront.palette
        #expect(FullScreenFieldFront.nextColor(after: p[0], avoiding: []) == p[1])
        #expect(FullScreenFieldFront.nextColor(after: p[0], avoiding: [p[1], p[2]]) == p[3])
        #expect(FullScreenFieldFront.nextColor(after: p[7], avoiding: []) == p[0], "wraps around")
        #expect(FullScreenFieldFront.nextColor(after: RGB(1, 2, 3), avoiding: [p[0]]) == p[1], "a --color outside the palette")
        #expect(FullScreenFieldFront.nextColor(after: p[2], avoiding: Set(p)) == p[3], "all taken: the next one")
    }

    @Test func colourDepthFromTheEnvironment() {
        #expect(ColorDepth.detect(noColor: true, colorterm: "truecolor", term: "xterm-256color") == .none)
        #expect(ColorDepth.detect(noColor: false, colorterm: "24bit", term: "xterm") == .trueColor)
        #expect(ColorDepth.detect(noColor: false, colorterm: nil, term: "screen-256color") == .palette256)
        #expect(ColorDepth.detect(noColor: false, colorterm: nil, term: "vt100") == .ansi16)
        #expect(ColorDepth.ansi16.foreground(RGB(0, 0, 0)) == "1;90")
    }
}

/// `tictac spheres` processes in the test's network namespace (tools/test), found by broadcast
/// discovery on loopback.
@Suite(.serialized) struct SpheresProcessTests {
    @Test func twoPlayersSeeEachOtherMoveAndAQuitGoesAtOnce() throws {
        let port = ["--discovery-port", "52301", "--announce-interval", "0.5", "--no-dnssd"]
        let a = try TicTacProcess(["spheres", "--plain", "--json", "--name", "ann", "--color", "255,0,0"] + port)
        let b = try TicTacProcess(["spheres", "--plain", "--json", "--name", "ben"] + port)
        let readyA = try #require(a.await("ready"))
        let readyB = try #require(b.await("ready"))
        let idA = try #require(readyA["id"] as? String), idB = try #require(readyB["id"] as? String)
        #expect(readyA["color"] as? [Int] == [255, 0, 0])
        let seen = b.awaitSphere(idA)
        #expect(seen?["name"] as? String == "ann")
        a.send("goto 123 456")
        var moved: [String: Any]?
        let end = Date().addingTimeInterval(5)
        while Date() < end, let s = b.awaitSphere(idA, timeout: 5) {
            if s["x"] as? Int == 123, s["y"] as? Int == 456 { moved = s; break }
        }
        #expect(moved != nil, "ben never saw ann at 123,456")
        #expect(a.awaitSphere(idB) != nil)
        b.send("stats")
        let stats = b.await("field-stats", timeout: 3)
        #expect((stats?["received"] as? Int ?? 0) > 0 && (stats?["sent"] as? Int ?? 0) > 0, "\(stats ?? [:])")
        a.send("quit")
        let left = b.await("sphere-left", timeout: 3)
        #expect(left?["id"] as? String == idA && left?["reason"] as? String == "left")
        #expect(a.await("field-stats", timeout: 3)?["dropped"] as? Int != nil, "ann prints its counters at exit")
        #expect(a.waitExit() == 0)
        b.closeInput()
        #expect(b.waitExit() == 0)
    }
}

/// The field opened from tictac play's lobby: the same daemon serves both games.
@Suite(.serialized) struct PlayFieldProcessTests {
    @Test func playOpensTheFieldGoesBackToTheLobbyAndOpensItAgain() throws {
        let port = ["--discovery-port", "52302", "--announce-interval", "0.5", "--no-dnssd"]
        let player = try TicTacProcess(["play", "--plain", "--json", "--name", "pat"] + port)
        let watcher = try TicTacProcess(["spheres", "--plain", "--json", "--name", "wes"] + port)
        let id = try #require(player.await("ready")?["id"] as? String)
        _ = watcher.await("ready")
        // wes offers the field alone: it is no one to invite, so not in the lobby (Protocol.md §11).
        #expect(player.await("peer-found", timeout: 2) == nil, "a field-only daemon showed up in the lobby")
        // In the lobby the daemon does not announce the field: wes gets no sphere of pat's.
        #expect(watcher.awaitSphere(id, timeout: 1.5) == nil)
        player.send("field")
        let opened = player.await("field", timeout: 5)
        #expect(opened?["id"] as? String == id && opened?["port"] as? Int != nil, "\(opened ?? [:])")
        #expect((player.await("notice", timeout: 3)?["message"] as? String)?.hasPrefix("in the field: lobby goes back") == true)
        #expect(watcher.awaitSphere(id, timeout: 5)?["name"] as? String == "pat")
        player.send("goto 10 20")
        var moved = false
        let end = Date().addingTimeInterval(5)
        while Date() < end, let s = watcher.awaitSphere(id, timeout: 5) {
            if s["x"] as? Int == 10, s["y"] as? Int == 20 { moved = true; break }
        }
        #expect(moved, "wes never saw pat at 10,20")
        #expect(player.await("sphere", timeout: 5)?["name"] as? String == "wes", "pat sees wes")
        player.send("move 1")  // a field command here: wrong arguments, an error, not a tic-tac-toe move
        #expect(player.await("error", timeout: 3)?["code"] as? String == "bad-command")
        player.send("lobby")
        let left = watcher.await("sphere-left", timeout: 3)
        #expect(left?["id"] as? String == id && left?["reason"] as? String == "left")
        #expect(player.await("field-stats", timeout: 3) != nil)
        #expect(player.await("notice", timeout: 3)?["message"] as? String == "back in the lobby")
        player.send("peers")  // tic-tac-toe's commands again; wes is still not someone to invite
        #expect((player.await("peers", timeout: 3)?["peers"] as? [Any])?.isEmpty == true)
        // Again within the 10 s a FIELD_LEAVE is remembered: the sequence carries on, so it counts.
        player.send("field")
        #expect(player.await("field", timeout: 5) != nil)
        #expect(watcher.awaitSphere(id, timeout: 5)?["x"] as? Int == 10)
        player.send("quit")
        #expect(watcher.await("sphere-left", timeout: 3)?["reason"] as? String == "left")
        #expect(player.waitExit() == 0)
        watcher.closeInput()
        #expect(watcher.waitExit() == 0)
    }
}

extension TicTacProcess {
    /// The next `sphere` event about `id`, or nil.
    func awaitSphere(_ id: String, timeout: Double = 10) -> [String: Any]? {
        let end = Date().addingTimeInterval(timeout)
        while let e = next(timeout: max(0, end.timeIntervalSinceNow)) {
            if e["event"] as? String == "sphere", e["id"] as? String == id { return e }
        }
        return nil
    }
}

/// `spheres --plain` text lines lead with the name and colour; the id comes last, short.
@Suite struct FieldTextLineTests {
    @Test func linesLeadWithTheName() {
        let f = FieldFormatter(json: false)
        let id = ID128(high: 0x5f0c1a2b_00000000, low: 0x1234)
        let ann = FieldSphere(key: .peer(id), name: "ann", x: 160, y: 240, color: RGB(255, 128, 0))
        #expect(f.sphere(ann) == "sphere ann at 160,240 color 255,128,0 (5f0c1a2b)")
        #expect(f.left(.peer(id), name: "ann", reason: .timeout) == "sphere-left ann: timeout (5f0c1a2b)")
        #expect(f.ready(ann, port: 4000) == "ready ann at 160,240 color 255,128,0, field port 4000 (5f0c1a2b)")
        for line in [f.sphere(ann), f.left(.peer(id), name: "ann", reason: .left), f.ready(ann, port: 4000)] {
            #expect(!line.contains(id.description), "no 32-digit id: \(line)")
        }
        let original = FieldSphere(key: .original(FieldEndpoint(address: "198.18.0.5", port: 4000)), name: "198.18.0.5",
                                   x: 1, y: 2, color: RGB(1, 2, 3))
        #expect(f.sphere(original) == "sphere 198.18.0.5 at 1,2 color 1,2,3 (from 198.18.0.5:4000)")
    }
}
