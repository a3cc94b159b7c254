/// A cell named the way board-game players name one: column letter, then row number (`c7`),
/// rows counted from 1 at the top. The same names work on every board size, in the full-screen
/// front and in plain mode (`move c7`); the 1-based cell number (`move 12`) works too.
///
/// The letters skip `l`, `n`, `q` and `r`, because in a game those keys are lobby, new, quit and
/// resign (Go boards skip `i` for a like reason). Columns: a b c d e f g h i j k m o p s t u v w x,
/// 20 letters, one per column of the largest board.
public enum CellName {
    /// Column letters, left to right.
    public static let letters: [Character] = Array("abcdefghijkmopstuvwx")

    /// The letter of a 0-based column.
    public static func letter(_ col: Int) -> Character {
        letters.indices.contains(col) ? letters[col] : "?"
    }

    /// The 0-based column a letter names (either case), nil for a letter no column has.
    public static func column(_ letter: Character) -> Int? {
        letters.firstIndex(of: Character(letter.lowercased()))
    }

    /// The name of a 0-based cell on `size`: `a1` is the upper left.
    public static func name(_ cell: Int, on size: BoardSize) -> String {
        "\(letter(cell % size.cols))\(cell / size.cols + 1)"
    }

    /// A parsed name before the board is known: 0-based column and row.
    public struct Ref: Sendable, Equatable {
        public var col: Int
        public var row: Int
        public init(col: Int, row: Int) {
            self.col = col
            self.row = row
        }

        /// `c7` as typed (lower case).
        public var text: String { "\(CellName.letter(col))\(row + 1)" }

        /// The 0-based cell on `size`, nil when the board has no such column or row.
        public func cell(on size: BoardSize) -> Int? {
            guard (0..<size.cols).contains(col), (0..<size.rows).contains(row) else { return nil }
            return row * size.cols + col
        }
    }

    /// Parses `c7` (letter, then 1-2 digits, nothing else); nil for anything else. Checks
    /// lengths before any arithmetic, so hostile input cannot overflow.
    public static func parse(_ text: some StringProtocol) -> Ref? {
        guard let first = text.first, let col = column(first) else { return nil }
        let digits = text.dropFirst()
        guard (1...2).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let row = Int(digits), (1...BoardSize.dimensionRange.upperBound).contains(row) else { return nil }
        return Ref(col: col, row: row - 1)
    }

    /// The 1-based cell number `ref` names on `size`, or the error to show (`illegal-move`).
    public static func resolve(_ ref: Ref, on size: BoardSize) -> Result<Int, NameError> {
        guard let cell = ref.cell(on: size) else {
            return .failure(NameError(description: "no cell \(ref.text) on this \(size.rows)x\(size.cols) board (a1 to \(name(size.cellCount - 1, on: size)))"))
        }
        return .success(cell + 1)
    }

    /// A refused move's message with the cell named as the player names it: as typed when it
    /// was typed by name (`typed`), by name on a board other than 3 x 3 (which shows names),
    /// else by its number 1-9.
    public static func message(_ error: MoveError, on size: BoardSize, typed: Ref? = nil) -> String {
        guard case let .occupied(cell) = error else { return error.description } // only a number can be off the board
        let named = typed?.text ?? (size == .classic ? "cell \(cell + 1)" : name(cell, on: size))
        return "\(named) is already taken"
    }

    /// A name the board in play does not have.
    public struct NameError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }
}
