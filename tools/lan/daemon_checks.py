"""Two checks of tools/lan/test-daemon in a file of their own: the full screen on a pty, and the
systemd unit. The suite passes them what they use."""
import fcntl
import json
import os
import pty
import select
import shutil
import signal
import struct
import subprocess
import termios
import time

from lanlib import check


def screen_front(LAN, TICTAC, ENV, tictac):
    """`tictac play` on a terminal (a pty) attaches full screen, invites the bot from the lobby
    with Enter, and leaves mid-game with q: the game goes on in the daemon."""
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(ENV)
        os.environ["TERM"] = "xterm"
        os.execv(LAN, [LAN, "exec", "1", TICTAC, "play"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    screen = b""

    def until(text, timeout=10):
        nonlocal screen
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            r, _, _ = select.select([fd], [], [], 0.1)
            if r:
                try:
                    screen += os.read(fd, 65536)
                except OSError:
                    return False
            if text in screen:
                return True
        return False

    try:
        check(until(b"bob"), "tictac play on a terminal attaches full screen and lists the bot")
        os.write(fd, b"\r")
        check(until(b"Your Turn") or until(b"Opponent's Turn"), "Enter invites it from the lobby and the game shows")
        os.write(fd, b"q")
        until(b"takes it up", 5)  # the last line when it is our turn; none during the bot's
        status, end = None, time.monotonic() + 5
        while status is None and time.monotonic() < end:
            done, code = os.waitpid(pid, os.WNOHANG)
            status = code if done else time.sleep(0.05)
        check(status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"q leaves at once (status {status})")
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.close(fd)
    rc, out = tictac("status", "--json")
    told = [json.loads(x)["event"] for x in out.splitlines() if x.startswith("{")]
    check("game-started" in told, f"and the game goes on in the daemon ({told})")


def verify_unit(ENV, TICTAC, UNIT):
    """The unit file passes systemd-analyze verify, with tictac where its ExecStart says."""
    if not shutil.which("systemd-analyze"):
        return check(False, "systemd-analyze is missing (tools/setup installs systemd)")
    script = ("set -e; mount --make-rprivate /; d=$(mktemp -d); cp -a /usr/local/bin/. \"$d\" 2>/dev/null || true; "
              "mount --bind \"$d\" /usr/local/bin; ln -sf \"$1\" /usr/local/bin/tictac; "
              "exec systemd-analyze verify --user \"$2\"")
    r = subprocess.run(["unshare", "--mount", "--", "bash", "-c", script, "verify", TICTAC, os.path.abspath(UNIT)],
                       env={**ENV, "SYSTEMD_LOG_LEVEL": "warning"}, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and not r.stderr.strip(), f"tools/systemd/tictac.service passes systemd-analyze verify ({r.stderr.strip()[:300]})")
