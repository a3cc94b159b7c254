import TicTacField

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
