import ArgumentParser
import TicTacApp

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Tell what a packet capture of tictac traffic shows.",
        discussion: """
        Reads a pcap file (tcpdump -w; Ethernet, Linux cooked, null or raw IP) and prints the peers \
        seen by discovery, each TCP connection with its handshake, invitations and games move by \
        move with the board after each move, the rolls and the results, and anything abnormal \
        (marked !!): bytes that do not decode, ERROR frames, retransmissions, a hole in a stream \
        (nothing after it is told), a connection that ends without LEAVE. A version-2 stream is \
        sealed after its handshake and not told; mDNS, the original SphereNet packet and ICMP are \
        other (marked --), not abnormal.
        """
    )

    @Argument(help: "The capture (pcap, not pcapng).")
    var file: String

    @Flag(help: "One JSON object per line, as plain mode's --json.")
    var json = false

    func run() throws {
        try failing { () throws(AppFailure) in try ReplayApp.run(file: file, json: json) }
    }
}
