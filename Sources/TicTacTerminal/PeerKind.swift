import TicTacAPI

extension PeerInfo {
    /// What the lobby writes after a peer's address: "(bot)", or with the program playing under
    /// its name (HELLO field 9, ANNOUNCE field 13) "(bot: pbrain-tiny 1.0)"; nil for a player.
    var kindLabel: String? {
        switch (capabilities.contains(.bot), program) {
        case let (true, program?): "(bot: \(program))"
        case (true, nil): "(bot)"
        case let (false, program?): "(\(program))"
        case (false, nil): nil
        }
    }

    /// The same at the end of plain mode's peer lines, when the peer names its program.
    var kindNote: String {
        guard let program else { return "" }
        return capabilities.contains(.bot) ? "; bot: \(program)" : "; \(program)"
    }
}
