"""What the Python LAN suites share (tools/lan/test-*): the LAN driver, checks that count, and
daemons in LAN hosts speaking plain mode with --json. Call `setup(prefix)` first."""
import json
import os
import shutil
import select
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LAN = os.path.join(HERE, "lan")
TICTAC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../../.build/debug/tictac"))
ENV = dict(os.environ)
passed = failed = 0
procs = []


def setup(prefix):
    """Names this suite's LAN (its own prefix, so suites never share hosts), and gives its daemons
    a state home of their own, removed at the end: nothing is kept from one run to the next (a
    bot's history would take up the last run's games with the same players)."""
    ENV["TICTAC_LAN_PREFIX"] = prefix
    ENV["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix=f"tictac-{prefix}state.")


def finish():
    """Stops every daemon, takes the LAN down, prints the summary and exits."""
    for d in procs:
        try:
            d.stop(signal.SIGKILL)
        except Exception:
            pass
    lan("down", check_rc=False)
    if ENV.get("XDG_STATE_HOME", "").startswith(tempfile.gettempdir() + "/tictac-"):
        shutil.rmtree(ENV["XDG_STATE_HOME"], ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok: {what}", flush=True)
    else:
        failed += 1
        print(f"FAIL: {what}", flush=True)


def lan(*args, check_rc=True):
    r = subprocess.run([LAN, *args], env=ENV, capture_output=True, text=True, timeout=120)
    if check_rc and r.returncode != 0:
        raise RuntimeError(f"lan {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


class Daemon:
    """A tictac process in a LAN host, speaking plain mode with --json; its pid is the tictac's.
    `log`: a file for its standard error (its log), else it is dropped."""

    def __init__(self, host, *args, stdin=True, log=None):
        with open(log or os.devnull, "w") as err:
            self.p = subprocess.Popen([LAN, "exec", str(host), TICTAC, *args], env=ENV, text=True,
                                      stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=err)
        procs.append(self)
        self.events = []
        self.buf = ""

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def poll(self, timeout):
        """Reads the events that arrive within `timeout` seconds."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                return
            # Raw reads: a buffered readline would hide lines already read from select().
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                return
            self.buf += chunk.decode("utf-8", "replace")
            *lines, self.buf = self.buf.split("\n")
            for line in lines:
                try:
                    self.events.append((time.monotonic(), json.loads(line)))
                except ValueError:
                    pass

    def wait_for(self, pred, timeout, since=0):
        """The first event (time, event) from index `since` on matching `pred` within `timeout`, or None."""
        end = time.monotonic() + timeout
        seen = since
        while True:
            for t, e in self.events[seen:]:
                if pred(e):
                    return t, e
            seen = len(self.events)
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.poll(min(left, 0.05))

    def stop(self, sig=signal.SIGTERM):
        if self.p.poll() is None:
            os.kill(self.p.pid, sig)
        try:
            self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.kill(self.p.pid, signal.SIGKILL)
            self.p.wait(timeout=5)


def found(name):
    return lambda e: e.get("event") in ("peer-found", "peer-updated") and e.get("name") == name


def lost(name):
    return lambda e: e.get("event") == "peer-lost" and e.get("name") == name


