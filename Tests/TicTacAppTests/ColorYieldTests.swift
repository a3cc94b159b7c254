import Testing
import TicTacField
import TicTacFieldCore
import TicTacApp
import TicTacTTY
import TicTacTerminal
import TicTacWire

@Suite struct ColorYieldTests {
    let red = FullScreenFieldFront.palette[0]
    func sphere(_ n: UInt64, _ color: RGB) -> FieldSphere {
        FieldSphere(key: .peer(ID128(high: n, low: n)), name: "s\(n)", x: 0, y: 0, color: color)
    }

    @Test func theHigherIdGivesWayToAFreeColourTheLowerKeepsIts() {
        let yield = ColorYield(chosen: false)
        let me = sphere(5, red), lower = sphere(2, red), higher = sphere(9, red)
        // A lower id showing our colour: we move to the next free palette colour.
        let next = yield.color(after: .joined(lower), local: me, others: [lower])
        #expect(next == FullScreenFieldFront.palette[1])
        // A higher id showing our colour: it gives way, we keep ours.
        #expect(yield.color(after: .joined(higher), local: me, others: [higher]) == nil)
        // Taken colours are skipped.
        let green = sphere(3, FullScreenFieldFront.palette[1])
        #expect(yield.color(after: .changed(lower), local: me, others: [lower, green]) == FullScreenFieldFront.palette[2])
        // Another colour, a departure, or a colour the player chose: nothing changes.
        #expect(yield.color(after: .joined(green), local: me, others: [green]) == nil)
        #expect(yield.color(after: .left(lower.key, name: "s2", reason: .left), local: me, others: []) == nil)
        #expect(ColorYield(chosen: true).color(after: .joined(lower), local: me, others: [lower]) == nil)
        // Every colour taken: keep ours rather than take another's.
        let all = FullScreenFieldFront.palette.enumerated().map { sphere(1, $0.element) }
        #expect(yield.color(after: .joined(lower), local: me, others: all) == nil)
    }
}
