/// The verbs every sans-I/O core of tictac speaks (quinn-proto's shape): inputs and the current
/// time in, actions out, and the time it next needs a call. A core does no I/O and reads no
/// clock; its shell (or a test, or a capture replay) does both and calls these.
///
/// | verb                      | what it means                                           |
/// |---------------------------|---------------------------------------------------------|
/// | `handle(_:now:)`          | something happened (bytes, a peer event): never throws; |
/// |                           | a remote fault becomes an action                        |
/// | `perform(_:now:)`         | a local command (where a core takes them): throws its   |
/// |                           | own error type, and changes nothing when it does        |
/// | `handleTimeout(now:)`     | the time `pollTimeout()` gave has come (early is fine)  |
/// | `pollTimeout()`           | when to call `handleTimeout` next; nil for never        |
/// | `pollActions(into:)`      | moves the queued actions out, in order                  |
public protocol SansIOCore {
    associatedtype Input
    associatedtype Action

    mutating func handle(_ input: Input, now: Instant)
    mutating func handleTimeout(now: Instant)
    mutating func pollTimeout() -> Instant?
    /// Moves the actions queued since the last poll into `out`, which must be empty.
    mutating func pollActions(into out: inout [Action])
}

extension SansIOCore {
    /// The queued actions, in a new array.
    public mutating func pollActions() -> [Action] {
        var out: [Action] = []
        pollActions(into: &out)
        return out
    }
}
