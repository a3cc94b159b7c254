import TicTacReplay

/// The fixtures of Tests/Fixtures/captures: each NAME.pcap with its NAME.daemons.
enum Fixtures {
    static let directory: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2) // TicTacReplayTests/Fixtures.swift
        return parts.joined(separator: "/") + "/Fixtures/captures"
    }()

    static func pcap(_ name: String) throws -> [UInt8] { try readWholeFile("\(directory)/\(name).pcap") }

    static func capture(_ name: String) throws -> Capture { try Capture(pcap: pcap(name)) }

    static func daemons(_ name: String) throws -> [ReplayedDaemon] {
        try ReplayedDaemon.parseAll(String(decoding: readWholeFile("\(directory)/\(name).daemons"), as: UTF8.self))
    }
}
