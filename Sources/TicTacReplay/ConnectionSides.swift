import TicTacWire

/// Who dialled a connection whose SYN the capture missed. TCPStreams takes the first sender seen
/// for the client, which is the acceptor about half the time (both sides send HELLO at once).
/// Better evidence, in order: the dialler proves first (Protocol.md §4), so the first PROOF's
/// sender dialled; else an endpoint that accepted another connection of the capture (its SYN
/// seen) or served more than one peer is the listener.
enum ConnectionSides {
    static func orient(_ connections: [CapturedConnection]) -> [CapturedConnection] {
        var peersOf: [Endpoint: Set<Endpoint>] = [:]
        var listeners = Set<Endpoint>()
        for c in connections {
            if c.sawSYN { listeners.insert(c.server) }
            peersOf[c.client, default: []].insert(c.server)
            peersOf[c.server, default: []].insert(c.client)
        }
        for (end, peers) in peersOf where peers.count > 1 { listeners.insert(end) }
        return connections.map { c in
            guard !c.sawSYN else { return c }
            if let clientProvedFirst = firstProver(c) { return clientProvedFirst ? c : swapped(c) }
            if listeners.contains(c.client), !listeners.contains(c.server) { return swapped(c) }
            return c
        }
    }

    /// True when the client side's PROOF came first, false when the server's did; nil when the
    /// capture holds no PROOF of either.
    private static func firstProver(_ c: CapturedConnection) -> Bool? {
        var readers = [FrameReader(), FrameReader()], failed = [false, false]
        for e in c.events {
            guard case let .data(bytes) = e.kind else { continue }
            let side = e.fromClient ? 0 : 1
            guard !failed[side] else { continue }
            var proof = false
            let error = readers[side].receive(bytes) { frame in
                proof = frame.type == Message.Kind.proof.rawValue
                return !proof
            }
            if proof { return e.fromClient }
            if error != nil { failed[side] = true }
        }
        return nil
    }

    private static func swapped(_ c: CapturedConnection) -> CapturedConnection {
        var out = c
        (out.client, out.server) = (c.server, c.client)
        out.events = c.events.map { e in
            var e = e
            e.fromClient.toggle()
            return e
        }
        out.retransmissions = (c.retransmissions.server, c.retransmissions.client)
        out.outOfOrder = (c.outOfOrder.server, c.outOfOrder.client)
        out.missing = (c.missing.server, c.missing.client)
        return out
    }
}
