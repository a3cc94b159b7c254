#!/usr/bin/env python3
"""Writes a small pcap (Ethernet, IPv4) of what the version-1 fixtures lack, for
tools/wireshark/test: a version-2 stream (HELLO with field 8, PROOF, then sealed frames), a
version-1 stream with INVITE, Protocol.md §8's worked example of the rolls (A the client: shown
833116, moves first; B: 376120), MOVE and RESUME in clear, and datagrams: the original SpHn packet
(Protocol.md §11's example), SPHERE with its name, FIELD_LEAVE, a signed ANNOUNCE and GOODBYE.
Usage: make-v2-pcap.py OUT.pcap"""
import hashlib
import struct
import sys


def tlv(tag, value):
    return struct.pack(">BH", tag, len(value)) + value


def frame(kind, fields, version=1, flags=0):
    payload = b"".join(fields)
    return b"TTAC" + struct.pack(">BBHI", version, kind, flags, len(payload)) + payload


def ipv4(proto, a, b, body):
    return struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(body), 0, 0x4000, 64, proto, 0,
                       bytes([10, 0, 0, a]), bytes([10, 0, 0, b])) + body


def ether(ip):
    return b"\0" * 12 + b"\x08\x00" + ip


def udp(a, pa, b, pb, payload):
    return ether(ipv4(17, a, b, struct.pack(">HHHH", pa, pb, 8 + len(payload), 0) + payload))


def tcp(a, pa, b, pb, seq, flags, payload=b""):
    return ether(ipv4(6, a, b, struct.pack(">HHIIBBHHH", pa, pb, seq, 0, 0x50, flags, 65535, 0, 0) + payload))


SYN, ACK = 0x02, 0x10
ID1, ID2, GAME = bytes(range(16)), bytes(range(16, 32)), bytes([7] * 16)
records = []


def stream(client, server, frames):
    """frames: (from_client, bytes); each in its own segment, sequence numbers from 1001."""
    (a, pa), (b, pb) = client, server
    records.append(tcp(a, pa, b, pb, 1000, SYN))
    records.append(tcp(b, pb, a, pa, 1000, SYN | ACK))
    seq = {True: 1001, False: 1001}
    for from_client, data in frames:
        src, dst = (client, server) if from_client else (server, client)
        records.append(tcp(src[0], src[1], dst[0], dst[1], seq[from_client], ACK, data))
        seq[from_client] += len(data)


def hello(iid, name):
    return frame(0x01, [tlv(1, b"\x01"), tlv(2, b"\x02"), tlv(3, iid), tlv(4, name), tlv(5, struct.pack(">I", 1)),
                        tlv(6, b"\x11" * 32), tlv(7, b"\x22" * 8 + b"TTAC\0\0\0\x02"), tlv(8, b"\x33" * 32)], version=2)


def sealed(kind, n):
    return b"TTAC" + struct.pack(">BBHI", 2, kind, 0, n + 16) + bytes((i * 37) & 0xff for i in range(n + 16))


proof = frame(0x06, [tlv(1, b"\x44" * 64)], version=2)
stream((1, 40000), (2, 7000), [(True, hello(ID1, b"ann")), (False, hello(ID2, b"ben")), (True, proof), (False, proof),
                               (True, sealed(0x10, 28)), (False, sealed(0x11, 19)), (True, sealed(0x24, 5))])
SECRET_A = struct.pack(">I", 123456) + bytes(range(15, -1, -1))
SECRET_B = struct.pack(">I", 654321) + bytes(range(16))
stream((1, 40001), (2, 7001), [
    (True, frame(0x10, [tlv(1, GAME), tlv(2, b"\x03"), tlv(3, b"\x03"), tlv(4, b"\x03")])),
    (True, frame(0x21, [tlv(1, hashlib.sha256(SECRET_A).digest())])),
    (False, frame(0x21, [tlv(1, hashlib.sha256(SECRET_B).digest())])),
    (True, frame(0x22, [tlv(1, SECRET_A[:4]), tlv(2, SECRET_A[4:])])),
    (False, frame(0x22, [tlv(1, SECRET_B[:4]), tlv(2, SECRET_B[4:])])),
    (True, frame(0x24, [tlv(1, struct.pack(">H", 4))])),
    (True, frame(0x28, [tlv(1, GAME), tlv(2, struct.pack(">H", 1)), tlv(3, b"\x55" * 32), tlv(4, struct.pack(">H", 4)),
                        tlv(5, b"\x00")])),
])
records.append(udp(3, 40002, 255, 5001, bytes.fromhex("5370486e706f736e000000a0000000f0ff8000")))
records.append(udp(1, 5001, 255, 5001, frame(0x40, [tlv(1, ID1), tlv(2, struct.pack(">I", 3)), tlv(3, struct.pack(">i", 10)),
                                                     tlv(4, struct.pack(">i", 20)), tlv(5, b"\xff\x80\x00"), tlv(6, b"ann")])))
records.append(udp(1, 5001, 255, 5001, frame(0x41, [tlv(1, ID1), tlv(2, struct.pack(">I", 4))])))
seal = [tlv(10, b"\x11" * 32), tlv(11, struct.pack(">Q", 1_700_000_000_000)), tlv(12, b"\x66" * 64)]
records.append(udp(1, 51515, 255, 51515, frame(0x30, [tlv(1, ID1), tlv(2, b"ann"), tlv(3, struct.pack(">H", 7000)),
                                                       tlv(4, struct.pack(">I", 1)), tlv(5, b"\0\0"), tlv(6, b"\0"), tlv(7, b"\x01"),
                                                       tlv(8, b"\x02"), tlv(9, struct.pack(">H", 2000))] + seal, version=2)))
records.append(udp(1, 51515, 255, 51515, frame(0x32, [tlv(1, ID1)] + seal, version=2)))

with open(sys.argv[1], "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for i, r in enumerate(records):
        out.write(struct.pack("<IIII", 1_700_000_000, i * 1000, len(r), len(r)) + r)
