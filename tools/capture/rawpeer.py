#!/usr/bin/env python3
"""A hostile or odd peer for captures: connects to 127.0.0.1:PORT, sends one thing, prints what
comes back as hex, and closes. Modes:
  future-version  a valid HELLO offering only protocol version 2 (Protocol.md §4)
  bad-magic       an HTTP request instead of a frame (Protocol.md §5: bad-magic)
"""
import hashlib, socket, struct, sys, time

# RFC 8032's first test key, as in Protocol.md §4's vectors.
PUBLIC_KEY = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")

def field(tag, value):
    return struct.pack(">BH", tag, len(value)) + value

def frame(version, kind, payload):
    return b"TTAC" + struct.pack(">BBHI", version, kind, 0, len(payload)) + payload

def hello(lowest, highest, name):
    iid = hashlib.sha256(b"tictac-instance-id-v1" + PUBLIC_KEY).digest()[:16]
    payload = (field(1, bytes([lowest])) + field(2, bytes([highest])) + field(3, iid) +
               field(4, name.encode()) + field(5, struct.pack(">I", 1)) + field(6, PUBLIC_KEY) +
               field(7, bytes(range(16))))
    return frame(highest, 0x01, payload)

def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if mode == "future-version":
        s.sendall(hello(2, 2, "future"))
    elif mode == "bad-magic":
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    else:
        sys.exit("unknown mode " + mode)
    got = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except socket.timeout:
        pass
    print(got.hex())
    s.close()

main()
