import TicTacAPI

// The lobby's lines and the title bar. A number (a port, an address) is shown whole or not at
// all: what does not fit in the window is left out, and said to be ("+1 more"), never cut.
extension FullScreenModel {
    var dot: String { unicode ? " · " : " - " }

    /// " tictac · ann · port 50000": the name is clipped (with its mark) so the port fits; in a
    /// window too narrow for the port, it goes whole.
    func titleLine(width: Int) -> ScreenLine {
        var line = ScreenLine(" tictac", .title)
        line.fill = .title
        guard let me else { return line }
        let port = "\(dot)port \(me.port)"
        let room = width - textWidth(" tictac" + dot + port)
        if room >= 3 {
            line.add("\(dot)\(clip(me.name, min(32, room)))\(port)", .title)
        } else if textWidth(" tictac" + port) <= width {
            line.add(port, .title)
        }
        return line
    }

    /// Where a friend reaches us, as `a` in their lobby (or `--connect`) takes it: host:port,
    /// IPv6 in brackets. Nil before `.ready` or when this host has no address but loopback.
    var ownAddressText: String? { ownAddressText(fitting: .max) }

    /// `ownAddressText` in `room` columns: whole addresses only, as many as fit ("+2 more" for
    /// those left out), under a shorter label when the long one leaves room for none; nil when
    /// not even one fits.
    func ownAddressText(fitting room: Int) -> String? {
        guard let me, !addresses.isEmpty else { return nil }
        let list = addresses.map { $0.contains(":") ? "[\($0)]:\(me.port)" : "\($0):\(me.port)" }
        for label in ["Your address: ", "Address: ", ""] {
            for count in stride(from: list.count, through: 1, by: -1) {
                let more = count < list.count ? "  +\(list.count - count) more" : ""
                let text = label + list.prefix(count).joined(separator: "  ") + more
                if textWidth(text) <= room { return text }
            }
        }
        return nil
    }

    func lobbyTop(width: Int) -> [ScreenLine] {
        let address = ownAddressText(fitting: width - Self.margin.count)
        return [titleLine(width: width), ScreenLine(address.map { Self.margin + $0 } ?? "", .dim),
                ScreenLine(Self.margin + "Available Peers", .bold)]
    }

    /// The peer list, scrolled so the selected peer is visible. In a narrow window names are
    /// clipped (down to 4 columns) before an address is touched, and then the address goes whole.
    func peerRows(room: Int, width: Int) -> [ScreenLine] {
        guard room > 0 else { return [] }
        guard !peers.isEmpty else {
            return [ScreenLine(Self.margin + "  none yet: players on this network appear here", .dim)]
        }
        var rows: [ScreenLine] = []
        var visible = min(room, peers.count)
        if visible < peers.count, visible > 1 { visible -= 1 } // keep a line for "n-m of N"
        let start = max(0, min(peers.count - visible, selected - visible / 2))
        let end = min(peers.count, start + visible)
        let columns = width - Self.margin.count - 2 // after the margin and the selection mark
        let tails = peers[start..<end].map { ("  " + $0.address, peerTail($0)) }
        // Names make room for the addresses (and "(bot)"); a longer note (a bot's program) drops
        // its row's address.
        let widest = peers[start..<end].map { textWidth("  " + $0.address + ($0.capabilities.contains(.bot) ? "  (bot)" : "")) }.max() ?? 0
        let nameWidth = max(min(4, columns), min(28, peers[start..<end].map { textWidth($0.name) }.max() ?? 0, columns - widest))
        for (offset, i) in (start..<end).enumerated() {
            let p = peers[i]
            let mark = i == selected ? (unicode ? "▸ " : "> ") : "  "
            let name = pad(clip(p.name, nameWidth), nameWidth)
            let (address, tail) = tails[offset]
            let text = textWidth(name + address + tail) <= columns ? name + address + tail : name + tail
            var line = ScreenLine(Self.margin)
            line.add(mark + clip(text, columns), i == selected ? .selected : .plain)
            rows.append(line)
        }
        if end - start < peers.count, rows.count < room {
            rows.append(ScreenLine(Self.margin + "  \(start + 1)-\(end) of \(peers.count)", .dim))
        }
        return rows
    }

    /// Another peer of the same name at the same address was found after `p`: `p` is most
    /// likely that daemon before a restart with a new id, listed until it expires.
    func isEarlierInstance(_ p: PeerInfo) -> Bool {
        guard let mine = foundOrder[p.id] else { return false }
        return peers.contains { $0.id != p.id && $0.name == p.name && $0.address == p.address && (foundOrder[$0.id] ?? 0) > mine }
    }

    /// What follows a peer's address: a bot, our invitation waiting or its, what it announces.
    private func peerTail(_ p: PeerInfo) -> String {
        var text = p.kindLabel.map { "  " + $0 } ?? ""
        if isEarlierInstance(p) { text += "  earlier instance" }
        // The peer we invited announces itself busy with our own invitation: say what it is.
        if outgoing?.id == p.id {
            text += "  invited"
        } else if incoming?.peer.id == p.id || held.contains(p.id) {
            text += "  invites you" // the held ones are asked in turn (Protocol.md §8)
        } else if p.state != .idle {
            text += "  \(p.state)"
        }
        return text
    }
}
