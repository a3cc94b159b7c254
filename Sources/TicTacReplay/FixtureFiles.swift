#if canImport(Glibc)
import Glibc
#endif
import TicTacEngine

/// Reads a whole file, at most `limit` bytes (a capture bigger than that is refused, not loaded).
public func readWholeFile(_ path: String, limit: Int = 64 << 20) throws(CaptureError) -> [UInt8] {
    guard let f = fopen(path, "rb") else { throw .notPcap("cannot open \(path): \(String(cString: strerror(errno)))") }
    defer { fclose(f) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = fread(&chunk, 1, chunk.count, f)
        if n > 0 { out += chunk[..<n] }
        if out.count > limit { throw .corrupt("\(path) is larger than \(limit >> 20) MiB") }
        if n < chunk.count {
            if ferror(f) != 0 { throw .truncated("read error on \(path)") }
            return out
        }
    }
}

extension ReplayedDaemon {
    /// Parses one line of a fixture's `.daemons` file:
    /// `seed=N name=NAME [bot=LEVEL] [rows=R cols=C k=K] [move-time=S] [peer-timeout=S] [nodes=N]
    /// [version=V] [max-games=N]` (V: the highest protocol version the captured daemon spoke; 1 if
    /// absent. N: a bot's `--max-games`, which ends its last match with CANCEL in version 2).
    public init(line: String) throws(ReplayError) {
        var fields: [String: String] = [:]
        for word in line.split(separator: " ") {
            let parts = word.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw .badFixture("'\(word)' is not key=value") }
            fields[String(parts[0])] = String(parts[1])
        }
        guard let seed = fields["seed"].flatMap({ UInt64($0) }), let name = fields["name"] else {
            throw .badFixture("a daemon line needs seed=N and name=NAME: '\(line)'")
        }
        func int(_ key: String, _ fallback: Int) throws(ReplayError) -> Int {
            guard let text = fields[key] else { return fallback }
            guard let v = Int(text) else { throw .badFixture("\(key)=\(text) is not a number") }
            return v
        }
        var bot: BotLevel?
        if let level = fields["bot"] {
            guard let l = BotLevel(rawValue: level) else { throw .badFixture("bot=\(level) is not a level") }
            bot = l
        }
        guard let size = try? BoardSize(rows: int("rows", 3), cols: int("cols", 3), k: int("k", 3)) else {
            throw .badFixture("bad board size in '\(line)'")
        }
        self.init(seed: seed, name: name, bot: bot, size: size, moveTime: .seconds(try int("move-time", 120)),
                  peerTimeout: .seconds(try int("peer-timeout", 5)), botNodes: try int("nodes", Bot.defaultSearchNodes),
                  maxVersion: UInt8(clamping: try int("version", 1)))
        if fields["max-games"] != nil { maxGames = try int("max-games", 0) }
    }

    /// Every daemon of a `.daemons` file (blank lines and `#` comments skipped).
    public static func parseAll(_ text: String) throws(ReplayError) -> [ReplayedDaemon] {
        var out: [ReplayedDaemon] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.allSatisfy(\.isWhitespace) {
            out.append(try ReplayedDaemon(line: String(line)))
        }
        return out
    }
}
