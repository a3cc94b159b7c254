#if canImport(Glibc)
import Glibc
#endif
import TicTacDaemonCore
import TicTacReplay

/// `tictac replay`: tells what a packet capture of tictac traffic shows.
public enum ReplayApp {
    /// `keyLog`: open version-2 streams with it; `writePlain`: write the capture, opened, there.
    public static func run(file: String, json: Bool, keyLog: String? = nil, writePlain: String? = nil) throws(AppFailure) {
        if access(file, R_OK) != 0 {
            throw AppFailure(.noInput, "cannot open \(file): \(String(cString: strerror(errno)))")
        }
        let bytes = try AppFailure.attempt(.noInput, nil) { try readWholeFile(file) }
        var capture = try AppFailure.attempt(.dataErr, file) { try Capture(pcap: bytes) }
        var opened: OpenedStreams.Report?
        if let keyLog {
            if access(keyLog, R_OK) != 0 {
                throw AppFailure(.noInput, "cannot open the key log \(keyLog): \(String(cString: strerror(errno)))")
            }
            let text = try AppFailure.attempt(.noInput, "the key log") { try readWholeFile(keyLog) }
            let log = KeyLog(text: String(decoding: text, as: UTF8.self))
            guard !log.links.isEmpty else {
                throw AppFailure(.dataErr, "\(keyLog) holds no key line (\(LinkKeys.label) ...; Protocol.md §12)")
            }
            (capture, opened) = OpenedStreams.open(capture, with: log)
        }
        let stories = Narrator.tell(capture)
        if !json {
            print("\(file): \(capture.packetCount) packets, \(capture.connections.count) TCP connection(s), \(capture.datagrams.count) datagram(s)")
            if let opened {
                print("key log: \(opened.opened) connection(s) opened (\(opened.frames) frame(s))"
                      + (opened.withoutKey > 0 ? ", \(opened.withoutKey) without a key in the log" : "")
                      + (opened.failed > 0 ? ", \(opened.failed) frame(s) that do not open with the logged key" : ""))
            }
        }
        for story in stories { print(json ? story.json : story.line) }
        if !json { print(Narrator.summary(stories)) }
        if let writePlain {
            let (out, written) = PcapWriter.write(capture)
            try write(out, to: writePlain)
            if !json { print("wrote \(writePlain): \(written) packets (raw IP; opened frames have flag 0x8000, Protocol.md §12)") }
        }
    }

    /// Writes `bytes` to a new (or emptied) file, mode 0644 as tcpdump's.
    private static func write(_ bytes: [UInt8], to path: String) throws(AppFailure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AppFailure(.cantCreate, "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var at = 0
        while at < bytes.count {
            let n = bytes[at...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw AppFailure(.cantCreate, "cannot write \(path): \(String(cString: strerror(errno)))") }
            at += n
        }
    }
}
