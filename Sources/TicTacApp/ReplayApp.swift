#if canImport(Glibc)
import Glibc
#endif
import TicTacReplay

/// `tictac replay`: tells what a packet capture of tictac traffic shows.
public enum ReplayApp {
    public static func run(file: String, json: Bool) throws(AppFailure) {
        if access(file, R_OK) != 0 {
            throw AppFailure(.noInput, "cannot open \(file): \(String(cString: strerror(errno)))")
        }
        let bytes = try AppFailure.attempt(.noInput, nil) { try readWholeFile(file) }
        let capture = try AppFailure.attempt(.dataErr, file) { try Capture(pcap: bytes) }
        let stories = Narrator.tell(capture)
        if !json {
            print("\(file): \(capture.packetCount) packets, \(capture.connections.count) TCP connection(s), \(capture.datagrams.count) datagram(s)")
        }
        for story in stories { print(json ? story.json : story.line) }
        if !json { print(Narrator.summary(stories)) }
    }
}
