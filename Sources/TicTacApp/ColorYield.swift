import TicTacField
import TicTacFieldCore
import TicTacTTY
import TicTacTerminal

/// Two spheres of one colour cannot be told apart, and a colour picked at random at start often
/// repeats (8 in the palette). So while the player has not chosen a colour (`--color`, the `c`
/// key, `color R G B`), a sphere that shows ours makes us move to a free palette colour, but
/// only if its id is lower than ours: the lower one keeps its colour, so the two never change in
/// turn, and a third that arrives settles the same way.
public struct ColorYield: Sendable {
    /// The player chose the colour: it never changes by itself.
    public var chosen: Bool

    public init(chosen: Bool) { self.chosen = chosen }

    /// The colour to switch to after `event`, nil to keep ours.
    public func color(after event: FieldEvent, local: FieldSphere, others: [FieldSphere]) -> RGB? {
        guard !chosen else { return nil }
        let sphere: FieldSphere
        switch event {
        case let .joined(s), let .changed(s): sphere = s
        default: return nil
        }
        guard case .peer = sphere.key, sphere.color == local.color, sphere.key < local.key else { return nil }
        let taken = Set(others.map(\.color))
        let next = FullScreenFieldFront.nextColor(after: local.color, avoiding: taken)
        return taken.contains(next) ? nil : next // every colour taken: keep ours
    }
}

extension FieldShell {
    /// Shows a field event on `front` and, when the event shows our colour, gives way
    /// (`ColorYield`): the one place both `tictac spheres` and play's field handle events.
    func show(_ event: FieldEvent, on front: FieldFront, colors: ColorYield) {
        front.show(.event(event))
        guard let c = colors.color(after: event, local: core.local, others: core.spheres) else { return }
        setColor(c)
        front.show(.local(core.local))
    }

    /// Carries out a command that moves or colours our sphere and shows the result; false for
    /// any other command (the caller's own: quit, lobby, help, stats). A colour the player
    /// sets is theirs from then on.
    func carryOut(_ command: FieldCommand, on front: FieldFront, colors: inout ColorYield) -> Bool {
        switch command {
        case let .move(dx, dy): move(dx: dx, dy: dy)
        case let .goto(x, y): moveTo(x: x, y: y)
        case let .color(c):
            colors.chosen = true
            setColor(c)
        case .quit, .interrupt, .lobby, .help, .stats: return false
        }
        front.show(.local(core.local))
        return true
    }
}
