#if canImport(Glibc)
import Glibc
#endif

/// The history's write-ahead log: each reactor turn's facts as one record, appended with one
/// `write` before the turn's frames leave, and folded into the SQLite store off the reactor
/// (`GameStore.logPosition` says how far). A record survives the process being killed as a
/// committed WAL transaction of the store does (both are in the kernel's cache, neither is
/// synced to the disk: `synchronous = NORMAL`).
///
/// The file: a header of 16 bytes ("tictaclg", then the log's generation, 8 bytes big-endian),
/// then records: the payload's length (4 bytes big-endian), its CRC-32 (4 bytes big-endian),
/// the payload. A log is replaced only once the store says all of it is folded and names the
/// generation of the next one, so a log whose generation the store does not name holds nothing
/// new. The payload is the caller's (TicTacApp's `LoggedTurn`).
public final class HistoryLog {
    public static let headerSize = 16
    /// Larger records are refused (a turn's facts take about 100 bytes each).
    public static let maxRecord = 1 << 20
    static let magic = Array("tictaclg".utf8)

    public let path: String
    public let generation: UInt64
    /// The offset after the last record written.
    public private(set) var end: Int64
    private let fd: Int32

    private init(path: String, generation: UInt64, end: Int64, fd: Int32) {
        self.path = path
        self.generation = generation
        self.end = end
        self.fd = fd
    }

    deinit { close(fd) }

    /// What a log file holds: its generation, its whole records with the offset after each,
    /// and how many bytes after them are not a whole record (a write cut short by a full disk).
    public struct Contents {
        public var generation: UInt64
        public var records: [(payload: [UInt8], end: Int64)] = []
        public var tornBytes = 0
    }

    /// Reads the log at `path`; nil when there is none.
    public static func read(path: String) throws(StoreError) -> Contents? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .failed(path, message: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw .failed(path, message: String(cString: strerror(errno))) }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return try parse(bytes, path: path)
    }

    /// The records of a log's bytes, up to the first that is not whole or whose CRC fails.
    static func parse(_ bytes: [UInt8], path: String) throws(StoreError) -> Contents {
        guard bytes.count >= headerSize, Array(bytes[0..<8]) == magic else {
            throw .notALog(path)
        }
        var contents = Contents(generation: bigEndian(bytes, at: 8, count: 8))
        var at = headerSize
        while bytes.count - at >= 8 {
            let length = Int(bigEndian(bytes, at: at, count: 4)), sum = UInt32(bigEndian(bytes, at: at + 4, count: 4))
            guard length <= maxRecord, bytes.count - at - 8 >= length else { break }
            let payload = Array(bytes[(at + 8)..<(at + 8 + length)])
            guard CRC32.of(payload) == sum else { break }
            at += 8 + length
            contents.records.append((payload, Int64(at)))
        }
        contents.tornBytes = bytes.count - at
        return contents
    }

    /// A new, empty log of `generation` at `path`, written aside and renamed over the old one (so
    /// a crash leaves either whole), then opened to append to.
    public static func create(path: String, generation: UInt64) throws(StoreError) -> HistoryLog {
        let aside = path + ".new"
        var header = magic
        for i in 0..<8 { header.append(UInt8(truncatingIfNeeded: generation >> (56 - 8 * i))) }
        let out = open(aside, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard out >= 0 else { throw .failed(aside, message: String(cString: strerror(errno))) }
        let written = write(out, header, header.count)
        let failure = written == header.count ? 0 : (written < 0 ? errno : ENOSPC)
        close(out)
        if failure != 0 {
            unlink(aside)
            throw failure == ENOSPC ? .full(path) : .failed(path, message: String(cString: strerror(failure)))
        }
        guard rename(aside, path) == 0 else { throw .failed(path, message: String(cString: strerror(errno))) }
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw .failed(path, message: String(cString: strerror(errno))) }
        return HistoryLog(path: path, generation: generation, end: Int64(headerSize), fd: fd)
    }

    /// Appends one record with one `write`. A write cut short leaves a torn tail that the next
    /// read drops; the caller stops writing after any failure.
    public func append(_ payload: [UInt8]) throws(StoreError) {
        guard payload.count <= Self.maxRecord else { throw .failed(path, message: "a record of \(payload.count) bytes") }
        var record = [UInt8]()
        record.reserveCapacity(8 + payload.count)
        let length = UInt32(payload.count), sum = CRC32.of(payload)
        for shift in stride(from: 24, through: 0, by: -8) { record.append(UInt8(truncatingIfNeeded: length >> shift)) }
        for shift in stride(from: 24, through: 0, by: -8) { record.append(UInt8(truncatingIfNeeded: sum >> shift)) }
        record.append(contentsOf: payload)
        var n: Int
        repeat { n = write(fd, record, record.count) } while n < 0 && errno == EINTR
        if n == record.count {
            end += Int64(n)
            return
        }
        let failure = n < 0 ? errno : ENOSPC // a short write: the disk filled
        throw failure == ENOSPC || failure == EDQUOT ? .full(path) : .failed(path, message: String(cString: strerror(failure)))
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in offset..<(offset + count) { value = value << 8 | UInt64(bytes[i]) }
        return value
    }
}

/// CRC-32 (IEEE 802.3, as zlib's `crc32`), table-driven.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func of(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
