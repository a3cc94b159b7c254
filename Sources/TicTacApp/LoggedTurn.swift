import TicTacDaemonCore
import TicTacEngine
import TicTacWire

/// One reactor turn's game facts as the history's log keeps them (HistoryLog's payload): who
/// we were, when, and the facts in order. Big-endian, version first; a payload this build
/// cannot read is refused whole (`LoggedTurn.Unreadable`), never half taken.
struct LoggedTurn: Equatable {
    static let version: UInt8 = 1

    var us: ID128
    /// Unix milliseconds.
    var at: Int64
    var facts: [GameFactRecord]

    struct Unreadable: Error {}

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 32 + 96 * facts.count)
        w.write(Self.version)
        Self.write(us, to: &w)
        w.write(at)
        w.write(UInt16(clamping: facts.count))
        for r in facts.prefix(Int(UInt16.max)) {
            Self.write(r.peer, to: &w)
            Self.write(Array(r.peerName.utf8), to: &w)
            Self.write(r.match, to: &w)
            w.write(UInt8(r.size.rows))
            w.write(UInt8(r.size.cols))
            w.write(UInt8(r.size.k))
            w.write(UInt32(clamping: r.number))
            if let key = r.key {
                w.write(UInt8(1))
                Self.write(key, to: &w)
            } else {
                w.write(UInt8(0))
            }
            Self.write(r.fact, to: &w)
        }
        return w.bytes
    }

    init(us: ID128, at: Int64, facts: [GameFactRecord]) {
        self.us = us
        self.at = at
        self.facts = facts
    }

    init(decoding payload: [UInt8]) throws(Unreadable) {
        do throws(WireError) {
            var r = ByteReader(payload)
            guard try r.read(UInt8.self) == Self.version else { throw .truncated }
            us = try Self.id(&r)
            at = try r.read()
            let count = Int(try r.read(UInt16.self))
            facts = []
            for _ in 0..<count {
                let peer = try Self.id(&r)
                guard let name = String(validating: try Self.bytes(&r), as: UTF8.self) else { throw .truncated }
                let match = try Self.id(&r)
                let rows = Int(try r.read(UInt8.self)), cols = Int(try r.read(UInt8.self)), k = Int(try r.read(UInt8.self))
                guard let size = try? BoardSize(rows: rows, cols: cols, k: k) else { throw .truncated }
                let number = Int(try r.read(UInt32.self))
                let key: ID128? = try r.read(UInt8.self) == 1 ? try Self.id(&r) : nil
                let fact = try Self.fact(&r)
                facts.append(GameFactRecord(peer: peer, peerName: name, match: match, size: size, number: number, key: key, fact: fact))
            }
            guard r.remaining == 0 else { throw .truncated }
        } catch {
            throw Unreadable()
        }
    }

    private static func write(_ id: ID128, to w: inout ByteWriter) {
        w.write(id.high)
        w.write(id.low)
    }

    private static func write(_ bytes: [UInt8], to w: inout ByteWriter) {
        w.write(UInt16(clamping: bytes.count))
        w.write(bytes.prefix(Int(UInt16.max)))
    }

    private static func write(_ fact: GameFact, to w: inout ByteWriter) {
        switch fact {
        case let .started(number):
            w.write(UInt8(1))
            w.write(UInt32(clamping: number))
        case let .committed(secret, theirCommitment, moveTime):
            w.write(UInt8(2))
            write(secret, to: &w)
            write(theirCommitment, to: &w)
            w.write(UInt32(clamping: moveTime))
        case let .decided(weMoveFirst, key, moveTime):
            w.write(UInt8(3))
            w.write(UInt8(weMoveFirst ? 1 : 0))
            write(key, to: &w)
            w.write(UInt32(clamping: moveTime))
        case let .moved(number, cell, byUs):
            w.write(UInt8(4))
            w.write(UInt32(clamping: number))
            w.write(UInt32(clamping: cell))
            w.write(UInt8(byUs ? 1 : 0))
        case let .ended(result, how):
            w.write(UInt8(5))
            write(Array(result.rawValue.utf8), to: &w)
            write(Array(how.rawValue.utf8), to: &w)
        case .interrupted: w.write(UInt8(6))
        case .adjourned: w.write(UInt8(7))
        case .void: w.write(UInt8(8))
        case .forgotten: w.write(UInt8(9))
        case let .acknowledged(theirSecret):
            w.write(UInt8(10))
            write(theirSecret, to: &w)
        }
    }

    private static func id(_ r: inout ByteReader) throws(WireError) -> ID128 {
        ID128(high: try r.read(), low: try r.read())
    }

    private static func bytes(_ r: inout ByteReader) throws(WireError) -> [UInt8] {
        Array(try r.read(count: Int(try r.read(UInt16.self))))
    }

    private static func fact(_ r: inout ByteReader) throws(WireError) -> GameFact {
        switch try r.read(UInt8.self) {
        case 1: return .started(number: Int(try r.read(UInt32.self)))
        case 2: return .committed(secret: try bytes(&r), theirCommitment: try bytes(&r), moveTime: Int(try r.read(UInt32.self)))
        case 3: return .decided(weMoveFirst: try r.read(UInt8.self) == 1, key: try id(&r), moveTime: Int(try r.read(UInt32.self)))
        case 4: return .moved(number: Int(try r.read(UInt32.self)), cell: Int(try r.read(UInt32.self)), byUs: try r.read(UInt8.self) == 1)
        case 5:
            guard let result = GameResult(rawValue: String(decoding: try bytes(&r), as: UTF8.self)),
                  let how = GameEnding(rawValue: String(decoding: try bytes(&r), as: UTF8.self)) else { throw .truncated }
            return .ended(result, how: how)
        case 6: return .interrupted
        case 7: return .adjourned
        case 8: return .void
        case 9: return .forgotten
        case 10: return .acknowledged(theirSecret: try bytes(&r))
        default: throw .truncated
        }
    }
}
