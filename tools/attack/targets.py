"""The daemons under attack: `tictac bot` and `tictac play --plain --json`, on loopback."""
import json
import os
import queue
import socket
import subprocess
import threading
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Process:
    """A tictac process; its stdout lines (JSON events) are collected by a thread."""

    def __init__(self, argv, stdin=False):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.events = queue.Queue()
        self.all = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                e = json.loads(line)
            except ValueError:
                e = {"event": "text", "line": line.rstrip("\n")}
            self.all.append(e)
            self.events.put(e)

    def drain(self):
        """Forgets events not yet read."""
        while True:
            try:
                self.events.get_nowait()
            except queue.Empty:
                return

    def wait_event(self, pred, timeout=5.0):
        """The first unread event for which `pred` holds (others read on the way are dropped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                e = self.events.get(timeout=left)
            except queue.Empty:
                return None
            if pred(e):
                return e

    def command(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(3)


def wait_listening(port, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def only_loopback():
    """True when this network namespace has no interface but lo: tictac broadcasts on every
    interface, so the attacks must never run where a real one exists."""
    # /proc/net/dev follows the network namespace (/sys/class/net does not, without a remount).
    try:
        with open("/proc/net/dev") as f:
            names = [line.split(":")[0].strip() for line in f.readlines()[2:]]
        return names == ["lo"]
    except OSError:
        return False
