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
        (nothing after it is told), a connection that ends without LEAVE, a file cut inside its last \
        packet. A version-2 stream is sealed after its handshake and not told, unless --key-log \
        gives its keys (written by play, bot or watch with --key-log or TICTAC_KEYLOG); mDNS, the \
        original SphereNet packet and ICMP are other (marked --), not abnormal.
        """
    )

    @Argument(help: "The capture (pcap, not pcapng).")
    var file: String

    @Flag(help: "One JSON object per line, as plain mode's --json.")
    var json = false

    @Option(help: ArgumentHelp("Open the sealed version-2 streams whose keys FILE holds (play's, bot's or watch's --key-log).",
                               valueName: "file"))
    var keyLog: String?

    @Option(help: ArgumentHelp("Write the capture to OUT.pcap with those streams opened (raw IP), for Wireshark and "
                               + "tools/wireshark/tictac.lua.", valueName: "out.pcap"))
    var writePlain: String?

    func run() throws {
        try failing { () throws(AppFailure) in try ReplayApp.run(file: file, json: json, keyLog: keyLog, writePlain: writePlain) }
    }
}
