// Field tags per message are listed in Protocol.md §6; keep the two in step (the vector test
// in TicTacWireTests fails when they drift).

extension Message {
    /// The payload's TLV fields, in ascending tag order.
    public var payload: [UInt8] {
        var f = FieldWriter()
        write(into: &f)
        return f.bytes
    }

    /// Appends the payload's fields.
    private func write(into f: inout FieldWriter) {
        switch self {
        case let .hello(h):
            f.int(1, h.minVersion)
            f.int(2, h.maxVersion)
            f.id(3, h.instanceID)
            f.string(4, h.name.value)
            f.int(5, h.capabilities.rawValue)
            f.raw(6, h.publicKey)
            f.id(7, h.nonce)
            if let key = h.ephemeralKey { f.raw(8, key) }
            if let program = h.program { f.string(9, program.value) }
        case let .error(code, message):
            f.int(1, code)
            f.string(2, DisplayText.clean(message, maxBytes: Self.maxErrorText))
        case let .ping(nonce), let .pong(nonce):
            f.int(1, nonce)
        case .leave, .reset, .resign, .timeUp:
            break
        case let .proof(signature):
            f.raw(1, signature)
        case let .invite(i):
            f.id(1, i.gameID)
            f.int(2, i.rows)
            f.int(3, i.cols)
            f.int(4, i.k)
        case let .accept(id), let .cancel(id):
            f.id(1, id)
        case let .decline(id, reason):
            f.id(1, id)
            f.int(2, reason.rawValue)
        case let .rollCommit(commitment, moveTime):
            f.raw(1, commitment)
            if moveTime != 0 { f.int(2, moveTime) } // absent means 0, so the plain form stays canonical

        case let .roll(value, nonce):
            f.int(1, value)
            f.id(2, nonce)
        case let .rollAck(value):
            f.int(1, value)
        case let .move(cell):
            f.int(1, cell)
        case let .resume(r):
            f.id(1, r.key)
            f.int(2, r.moves)
            f.raw(3, r.digest)
            if let last = r.last { f.int(4, last) }
            f.int(5, r.status.rawValue)
            if let secret = r.secret { f.raw(6, secret) }
        case let .watch(w):
            f.int(1, w.action.rawValue)
            if let id = w.opponent { f.id(2, id) }
        case let .watching(g):
            f.id(1, g.o.id)
            f.string(2, g.o.name.value)
            f.id(3, g.x.id)
            f.string(4, g.x.name.value)
            f.int(5, g.rows)
            f.int(6, g.cols)
            f.int(7, g.k)
            f.raw(8, g.moves.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] })
            f.int(9, g.moveTime)
            f.int(10, g.number)
        case let .watchMove(cell, number):
            f.int(1, cell)
            f.int(2, number)
        case let .watchEnd(e):
            f.int(1, e.winner)
            f.int(2, e.how.rawValue)
        case let .watchStop(reason):
            f.int(1, reason.rawValue)
        case let .games(list):
            f.raw(1, ListedGame.encode(list))
        case let .spectators(on, watchers):
            f.int(1, UInt8(on ? 1 : 0))
            if let watchers { f.int(2, watchers) }
        case let .announce(a):
            f.id(1, a.instanceID)
            f.string(2, a.name.value)
            f.int(3, a.tcpPort)
            f.int(4, a.capabilities.rawValue)
            f.int(5, a.fieldPort)
            f.int(6, a.state)
            f.int(7, a.minVersion)
            f.int(8, a.maxVersion)
            f.int(9, a.intervalMillis)
            // Before the seal (tags 10..12) when signed: the signature must be last (Protocol.md §6).
            if let program = a.program { f.string(13, program.value) }
        case let .query(id), let .goodbye(id):
            f.id(1, id)
        case let .sphere(s):
            f.id(1, s.instanceID)
            f.int(2, s.sequence)
            f.int(3, s.x)
            f.int(4, s.y)
            f.raw(5, [s.red, s.green, s.blue])
            f.string(6, s.name.value)
        case let .fieldLeave(id, sequence):
            f.id(1, id)
            f.int(2, sequence)
        }
    }

    /// The message as a frame of the given protocol version.
    public func frame(version: UInt8 = ProtocolVersion.unnegotiated) -> Frame {
        Frame(version: version, type: kind.rawValue, flags: flags, payload: payload)
    }

    /// The header's flags: IGNORABLE for the spectators' messages (Protocol.md §14), else none.
    public var flags: UInt16 { kind.isSpectating ? Frame.ignorableFlag : 0 }

    /// The message's bytes on the wire: header and payload.
    public func encoded(version: UInt8 = ProtocolVersion.unnegotiated) -> [UInt8] {
        var out: [UInt8] = []
        encode(into: &out, version: version)
        return out
    }

    /// The same bytes appended to `buffer` (a sender's reused buffer: no array per frame).
    public func encode(into buffer: inout [UInt8], version: UInt8 = ProtocolVersion.unnegotiated) {
        var f = FieldWriter(frameAppendingTo: &buffer, version: version, type: kind.rawValue, flags: flags)
        write(into: &f)
        f.finish(into: &buffer)
    }

    /// Decodes a frame's message. HELLO and ERROR are frozen across versions and decode under any
    /// header version (so a peer of another version is told why it is refused); every other type
    /// needs a version in `ProtocolVersion.supported`.
    public init(frame: Frame) throws(WireError) {
        guard let kind = Kind(rawValue: frame.type) else {
            throw .unknownType(frame.type, ignorable: frame.isIgnorable)
        }
        if kind != .hello, kind != .error, !ProtocolVersion.supported.contains(frame.version) {
            throw .unsupportedVersion(frame.version)
        }
        let f = try Fields(type: frame.type, payload: frame.payload)
        switch kind {
        case .hello:
            let minV: UInt8 = try f.int(1), maxV: UInt8 = try f.int(2)
            try f.check(minV >= 1 && minV <= maxV, 1, "version range \(minV)...\(maxV) is empty")
            self = .hello(Hello(minVersion: minV, maxVersion: maxV, instanceID: try f.id(3),
                                name: try f.name(4), capabilities: Capabilities(rawValue: try f.int(5)),
                                publicKey: Array(try f.raw(6, length: Hello.publicKeyLength)), nonce: try f.id(7),
                                ephemeralKey: f.has(8) ? Array(try f.raw(8, length: Hello.ephemeralKeyLength)) : nil,
                                program: f.has(9) ? try f.name(9) : nil))
        case .error:
            self = .error(code: try f.int(1), message: try f.text(2, maxBytes: Self.maxErrorText))
        case .ping:
            self = .ping(nonce: try f.int(1))
        case .pong:
            self = .pong(nonce: try f.int(1))
        case .leave:
            self = .leave
        case .proof:
            self = .proof(signature: Array(try f.raw(1, length: Self.signatureLength)))
        case .invite:
            let i = Invite(gameID: try f.id(1), rows: try f.int(2), cols: try f.int(3), k: try f.int(4))
            // Range rules live in the engine (BoardSize); here only what the bytes must be.
            try f.check(i.rows > 0 && i.cols > 0 && i.k > 0, 2, "board dimensions must be positive")
            self = .invite(i)
        case .accept:
            self = .accept(gameID: try f.id(1))
        case .decline:
            let raw: UInt8 = try f.int(2)
            // A reason this version does not know still means "no": show it as a plain decline.
            self = .decline(gameID: try f.id(1), reason: DeclineReason(rawValue: raw) ?? .declined)
        case .cancel:
            self = .cancel(gameID: try f.id(1))
        case .reset:
            self = .reset
        case .rollCommit:
            let moveTime: UInt16 = f.has(2) ? try f.int(2) : 0
            self = .rollCommit(commitment: Array(try f.raw(1, length: 32)), moveTime: moveTime)
        case .roll:
            let value: UInt32 = try f.int(1)
            try f.check(value <= Self.maxRoll, 1, "roll \(value) is above \(Self.maxRoll)")
            self = .roll(value: value, nonce: try f.id(2))
        case .rollAck:
            let value: UInt32 = try f.int(1)
            try f.check(value <= Self.maxRoll, 1, "roll \(value) is above \(Self.maxRoll)")
            self = .rollAck(value: value)
        case .move:
            self = .move(cell: try f.int(1))
        case .resign:
            self = .resign
        case .timeUp:
            self = .timeUp
        case .resume:
            let moves: UInt16 = try f.int(2)
            let raw: UInt8 = try f.int(5)
            try f.check(Resume.Status(rawValue: raw) != nil, 5, "RESUME status \(raw) is not 0...6")
            let status = Resume.Status(rawValue: raw) ?? .unknown
            let last: UInt16? = f.has(4) ? try f.int(4) : nil
            try f.check((last != nil) == (moves > 0 && status != .unknown), 4, "the last move is given exactly when there are moves")
            let secret: [UInt8]? = f.has(6) ? Array(try f.raw(6, length: Resume.secretLength)) : nil
            try f.check(secret == nil || (moves <= 1 && status != .unknown), 6, "a roll secret is given only with at most one move")
            self = .resume(Resume(key: try f.id(1), moves: moves, digest: Array(try f.raw(3, length: Resume.digestLength)),
                                  last: last, status: status, secret: secret))
        case .watch:
            let raw: UInt8 = try f.int(1)
            try f.check(Watch.Action(rawValue: raw) != nil, 1, "WATCH action \(raw) is not 0...2")
            self = .watch(Watch(Watch.Action(rawValue: raw) ?? .stop, opponent: f.has(2) ? try f.id(2) : nil))
        case .watching:
            let rows: UInt8 = try f.int(5), cols: UInt8 = try f.int(6), k: UInt8 = try f.int(7)
            try f.check(rows > 0 && cols > 0 && k > 0, 5, "board dimensions must be positive")
            let raw = try f.raw(8)
            let cells = Int(rows) * Int(cols)
            try f.check(raw.count % 2 == 0 && raw.count / 2 <= cells, 8, "\(raw.count) bytes of moves on \(cells) cells")
            var moves: [UInt16] = []
            var seen = Set<UInt16>()
            var i = raw.startIndex
            while i < raw.endIndex {
                let cell = UInt16(raw[i]) << 8 | UInt16(raw[i + 1])
                try f.check(Int(cell) < cells && seen.insert(cell).inserted, 8, "cell \(cell) off the board or played twice")
                moves.append(cell)
                i += 2
            }
            let number: UInt16 = try f.int(10)
            try f.check(number > 0, 10, "game number 0")
            self = .watching(WatchedGame(o: WatchPlayer(id: try f.id(1), name: try f.name(2)),
                                         x: WatchPlayer(id: try f.id(3), name: try f.name(4)),
                                         rows: rows, cols: cols, k: k, moves: moves, moveTime: try f.int(9), number: number))
        case .watchMove:
            let number: UInt16 = try f.int(2)
            try f.check(number > 0, 2, "move number 0")
            self = .watchMove(cell: try f.int(1), number: number)
        case .watchEnd:
            let winner: UInt8 = try f.int(1)
            try f.check(winner <= 2, 1, "winner \(winner) is not 0...2")
            let how: UInt8 = try f.int(2)
            self = .watchEnd(WatchEnd(winner: winner, how: WatchEnd.How(rawValue: how) ?? .noResult))
        case .watchStop:
            let raw: UInt8 = try f.int(1)
            self = .watchStop(WatchStopReason(rawValue: raw) ?? .stopped)
        case .games:
            let list = ListedGame.decode(try f.raw(1))
            try f.check(list != nil, 1, "a GAMES list that does not read")
            self = .games(list ?? [])
        case .spectators:
            let raw: UInt8 = try f.int(1)
            try f.check(raw <= 1, 1, "SPECTATORS choice \(raw) is not 0 or 1")
            self = .spectators(raw == 1, watchers: f.has(2) ? try f.int(2) : nil)
        case .announce:
            let minV: UInt8 = try f.int(7), maxV: UInt8 = try f.int(8), interval: UInt16 = try f.int(9)
            try f.check(minV >= 1 && minV <= maxV, 7, "version range \(minV)...\(maxV) is empty")
            try f.check(Announce.intervalRange.contains(interval), 9, "announce interval \(interval) ms is outside 100...60000")
            let port: UInt16 = try f.int(3)
            try f.check(port != 0, 3, "TCP port 0")
            self = .announce(Announce(instanceID: try f.id(1), name: try f.name(2), tcpPort: port,
                                      capabilities: Capabilities(rawValue: try f.int(4)),
                                      fieldPort: try f.int(5), state: try f.int(6),
                                      minVersion: minV, maxVersion: maxV, intervalMillis: interval,
                                      program: f.has(13) ? try f.name(13) : nil))
        case .query:
            self = .query(from: try f.id(1))
        case .goodbye:
            self = .goodbye(try f.id(1))
        case .sphere:
            let rgb = try f.raw(5, length: 3)
            let x: Int32 = try f.int(3), y: Int32 = try f.int(4)
            try f.check(Sphere.coordinates.contains(x), 3, "x \(x) is outside the field")
            try f.check(Sphere.coordinates.contains(y), 4, "y \(y) is outside the field")
            let name = try f.name(6)
            try f.check(name.value.utf8.count <= Sphere.maxNameBytes, 6, "sphere name longer than \(Sphere.maxNameBytes) bytes")
            self = .sphere(Sphere(instanceID: try f.id(1), sequence: try f.int(2), x: x, y: y,
                                  red: rgb[rgb.startIndex], green: rgb[rgb.startIndex + 1],
                                  blue: rgb[rgb.startIndex + 2], name: name))
        case .fieldLeave:
            self = .fieldLeave(try f.id(1), sequence: try f.int(2))
        }
    }

    /// Decodes one UDP datagram (exactly one frame). Only datagram kinds are accepted: a TCP
    /// message is `wrongTransport` (`unexpected-message`, Protocol.md §5); a receiver drops
    /// anything that throws (Protocol.md §7).
    public init(datagram: [UInt8]) throws(WireError) {
        let frame = try Frame.decodeDatagram(datagram)
        try self.init(frame: frame)
        guard kind.isDatagram else { throw .wrongTransport(type: frame.type) }
    }
}
