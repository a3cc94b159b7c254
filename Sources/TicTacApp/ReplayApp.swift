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
        if !json { print(summary(stories)) }
    }

    /// The last line: what is abnormal, and what was not tictac's but no fault.
    static func summary(_ stories: [Story]) -> String {
        let abnormal = stories.filter(\.abnormal).count, other = stories.filter(\.other).count
        return (abnormal == 0 ? "nothing abnormal" : "\(abnormal) abnormal event(s), marked !!")
            + (other == 0 ? "" : "; \(other) other packet(s), not tictac and no fault (mDNS, SphereNet, ICMP), marked --")
    }
}
