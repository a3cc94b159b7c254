"""What tools/lan/test-spheres sends by hand: Protocol.md frames and SPHERE datagrams, a raw
IPv4/UDP packet (a forged source), and the sender it runs inside a host."""
import socket
import struct


def frame(mtype, fields):
    """A Protocol.md §2 frame with TLV fields (tag, bytes), in the order given."""
    payload = b"".join(struct.pack(">BH", t, len(v)) + v for t, v in fields)
    return b"TTAC" + struct.pack(">BBHI", 1, mtype, 0, len(payload)) + payload


def sphere_datagram(ident, seq, x, y, name=b"mallory"):
    return frame(0x40, [(1, bytes.fromhex(ident)), (2, struct.pack(">I", seq)), (3, struct.pack(">i", x)),
                        (4, struct.pack(">i", y)), (5, b"\xff\x00\x00"), (6, name)])


def udp_ip_packet(src, sport, dst, dport, data):
    """An IPv4 header (the kernel fills in its checksum) and a UDP header without checksum."""
    udp = struct.pack(">HHHH", sport, dport, 8 + len(data), 0) + data
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, socket.IPPROTO_UDP, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    return ip + udp


# Runs inside host 2: argv is the target; each stdin line is "udp|raw COUNT PACE HEX" (raw: a whole IPv4 packet).
SENDER = r"""
import socket, sys, time
dst, dport = sys.argv[1], int(sys.argv[2])
for line in sys.stdin:
    kind, count, pace, hexdata = line.split()
    data = bytes.fromhex(hexdata)
    if kind == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # a fresh source port per group
        for _ in range(int(count)):
            s.sendto(data, (dst, dport)); time.sleep(float(pace))
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
        for _ in range(int(count)):
            s.sendto(data, (dst, 0)); time.sleep(float(pace))
    s.close()
"""
