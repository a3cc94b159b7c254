import Testing
import TicTacAPI
import TicTacEngine
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
@testable import TicTacTerminal
import TicTacTime

// What the full-screen front's tests share: peers, the visible text of a screen (escape codes
// stripped, widths counted in columns), a started game.

func peer(_ name: String, _ n: UInt64, bot: Bool = false) -> PeerInfo {
    PeerInfo(id: ID128(high: 0xABCD, low: n), name: name, address: "192.168.1.\(n)", port: 50000,
             capabilities: bot ? [.tictactoe, .bot] : [.tictactoe])
}

let bob = peer("bob", 7)
let bobOpponent = PeerInfo(id: bob.id, name: bob.name)

/// The text a terminal would show: CSI sequences (`ESC [ ... final`) removed.
func visible(_ s: String) -> String {
    var out = ""
    var it = s.makeIterator()
    while let c = it.next() {
        guard c == "\u{1B}" else { out.append(c); continue }
        guard it.next() == "[" else { continue }
        while let d = it.next(), !(d.isASCII && d.isLetter) {}
    }
    return out
}

func screen(_ model: FullScreenModel, _ width: Int = 80, _ height: Int = 24) -> [String] {
    model.lines(width: width, height: height).map(visible)
}

func expectFits(_ model: FullScreenModel, width: Int, height: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    let lines = model.lines(width: width, height: height)
    #expect(lines.count <= height, sourceLocation: sourceLocation)
    for line in lines {
        let text = visible(line)
        #expect(model.textWidth(text) <= width, "too wide: \(text)", sourceLocation: sourceLocation)
        #expect(!text.contains("\u{1B}"), sourceLocation: sourceLocation)
    }
}

func gameModel(size: BoardSize = .classic, color: Bool = false) -> FullScreenModel {
    var m = FullScreenModel(color: color, unicode: true)
    m.apply(.ready(name: "alice", id: ID128(high: 1, low: 1), port: 50123))
    m.apply(.peerFound(bob))
    m.apply(.game(.gameStarted(piece: .o, first: true, size: size), opponent: bobOpponent))
    m.apply(.game(.yourTurn, opponent: bobOpponent))
    return m
}

func board(_ size: BoardSize = .classic, o: [Int], x: [Int]) throws -> Board {
    var b = Board(size: size)
    for c in o { try b.place(.o, at: c) }
    for c in x { try b.place(.x, at: c) }
    return b
}
