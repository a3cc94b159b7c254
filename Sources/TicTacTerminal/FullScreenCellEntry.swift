import TicTacEngine

/// Typing a cell's name on the board (`c7`, CellName), key by key.
extension FullScreenModel {
    /// The answer of `entryKey`: the key was taken, with or without a command.
    struct Taken { var command: Command? }

    /// A key while a cell's name is being typed (`cellEntry`): digits add to it and move the
    /// cursor there, Backspace takes one back, Esc stops, Enter plays the named cell. Nil: the
    /// key is not part of the name (the entry ends and the key does what it always does).
    mutating func entryKey(_ key: Key, size: BoardSize) -> Taken? {
        guard let entry = cellEntry else { return nil }
        switch key {
        case let .char(c) where c.isASCII && c.isNumber:
            guard entry.count < 3 else { return Taken() }
            let typed = entry + String(c)
            guard let ref = CellName.parse(typed), let cell = ref.cell(on: size) else {
                notice = Notice(text: "No cell \(typed) on this \(size.rows)x\(size.cols) board", tone: .error)
                return Taken()
            }
            cellEntry = typed
            cursor = cell
            if notice?.tone == .error { notice = nil }
            return Taken()
        case .backspace:
            cellEntry = entry.count > 1 ? String(entry.dropLast()) : nil
            return Taken()
        case .escape:
            cellEntry = nil
            return Taken()
        case .enter, .char(" "):
            cellEntry = nil
            guard CellName.parse(entry) != nil else {
                notice = Notice(text: "Type the row number after \(entry), then Enter", tone: .error)
                cellEntry = entry
                return Taken()
            }
            return Taken(command: .move(cursor + 1))
        default:
            cellEntry = nil
            return nil
        }
    }
}
