/// One key press, decoded from the bytes a terminal in raw mode sends.
package enum Key: Sendable, Equatable {
    case up, down, left, right
    /// Shift with an arrow (`\e[1;2A`...): the field's big steps.
    case shiftUp, shiftDown, shiftLeft, shiftRight
    /// Return (`\r`, `\n`, or keypad Enter `\eOM`).
    case enter
    /// A lone ESC (or the ESC of an Alt+key pair).
    case escape
    /// Ctrl-C (0x03): raw mode turns off ISIG, so it arrives as a byte, not as SIGINT.
    case interrupt
    /// Ctrl-Z (0x1A): likewise a byte, not SIGTSTP; RawTerminal suspends on it.
    case suspend
    /// Backspace (DEL 0x7f, or Ctrl-H 0x08): the address being typed loses a character.
    case backspace
    /// A printable ASCII character, space included.
    case char(Character)
}

/// Turns raw tty bytes into keys. Pure: no I/O, no clock.
///
/// Understands CSI (`\e[A`, also with parameters such as `\e[1;5A`) and SS3 (`\eOA`) arrows.
/// An escape sequence cut between two reads is kept in `pending` until the rest arrives; a lone
/// ESC stays pending until `flush()` (the front calls it when no more bytes follow in time).
/// Sequences longer than `maxSequence` are dropped, so a stream of junk cannot grow the buffer.
/// Bytes that are not printable ASCII (UTF-8 included) and unknown sequences are ignored.
package struct KeyParser: Sendable {
    static let esc: UInt8 = 0x1B
    /// Longest escape sequence kept while waiting for its end.
    static let maxSequence = 16

    private var pending: [UInt8] = []
    /// The last byte was `\r`: a `\n` right after it (a pasted CRLF) is the same Enter.
    private var lastWasCR = false

    package init() {}

    /// True while an unfinished escape sequence waits for more bytes.
    package var hasPending: Bool { !pending.isEmpty }

    /// Feeds bytes as they were read; returns the keys they complete.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        return parse(final: false)
    }

    /// No more bytes are coming soon: a pending lone ESC is the Escape key; an unfinished
    /// sequence is dropped.
    package mutating func flush() -> [Key] {
        parse(final: true)
    }

    private mutating func parse(final: Bool) -> [Key] {
        var keys: [Key] = []
        var i = 0
        let bytes = pending
        loop: while i < bytes.count {
            let b = bytes[i]
            guard b == Self.esc else {
                if let key = single(b) { keys.append(key) }
                i += 1
                continue
            }
            lastWasCR = false
            guard i + 1 < bytes.count else {
                if final {
                    keys.append(.escape)
                    i += 1
                }
                break loop
            }
            switch bytes[i + 1] {
            case UInt8(ascii: "["):
                // CSI: parameter and intermediate bytes 0x20...0x3F, then a final byte 0x40...0x7E.
                var j = i + 2
                while j < bytes.count, (0x20...0x3F).contains(bytes[j]) { j += 1 }
                if j < bytes.count {
                    if (0x40...0x7E).contains(bytes[j]) {
                        // The modifier is the second parameter: 2 is Shift (xterm).
                        let shifted = bytes[(i + 2)..<j].elementsEqual(Array("1;2".utf8))
                        if let arrow = Self.arrow(bytes[j]) { keys.append(shifted ? arrow.shifted : arrow) }
                        i = j + 1
                    } else {
                        i = j // broken sequence: drop it, parse the odd byte normally
                    }
                } else if final || j - i > Self.maxSequence {
                    i = j
                } else {
                    break loop
                }
            case UInt8(ascii: "O"):
                // SS3: exactly one more byte.
                guard i + 2 < bytes.count else {
                    if final { i = bytes.count }
                    break loop
                }
                let f = bytes[i + 2]
                if f == UInt8(ascii: "M") {
                    keys.append(.enter)
                } else if let arrow = Self.arrow(f) {
                    keys.append(arrow)
                }
                i += 3
            default:
                // ESC then anything else: the Escape key, then that byte on its own.
                keys.append(.escape)
                i += 1
            }
        }
        pending = i < bytes.count ? Array(bytes[i...]) : []
        return keys
    }

    /// A byte outside any escape sequence.
    private mutating func single(_ b: UInt8) -> Key? {
        defer { lastWasCR = b == 0x0D }
        switch b {
        case 0x03: return .interrupt
        case 0x1A: return .suspend
        case 0x7F, 0x08: return .backspace
        case 0x0D: return .enter
        case 0x0A: return lastWasCR ? nil : .enter
        case 0x20...0x7E: return .char(Character(Unicode.Scalar(b)))
        default: return nil
        }
    }

    private static func arrow(_ final: UInt8) -> Key? {
        switch final {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        default: nil
        }
    }
}

extension Key {
    /// The shifted arrow of an arrow; other keys unchanged.
    var shifted: Key {
        switch self {
        case .up: .shiftUp
        case .down: .shiftDown
        case .left: .shiftLeft
        case .right: .shiftRight
        default: self
        }
    }

    /// The arrow of a shifted arrow; other keys unchanged (the board moves one cell either way).
    package var unshifted: Key {
        switch self {
        case .shiftUp: .up
        case .shiftDown: .down
        case .shiftLeft: .left
        case .shiftRight: .right
        default: self
        }
    }
}
