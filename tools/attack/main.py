"""Runs every attack case against a real `tictac bot`, `tictac play --plain --json` and
`tictac spheres --bot --plain --json` on loopback; one line per case, then 'N passed, N failed'.
Usage: main.py PATH-TO-TICTAC [CASE-NAME-SUBSTRING...]"""
import sys
import threading
import time
import traceback

import glob
import importlib
import os

import cases
import cases_auth  # noqa: F401 (registers version 2's cases in cases.SERIAL)
import cases_discovery
import cases_fair  # noqa: F401 (registers the fair-share cases in cases.SERIAL and cases.PLAYER)
import targets
from targets import Process, free_port, wait_listening

CASE_LIMIT = 40.0  # seconds: a case still running then is a failure

# More cases live in cases_<area>.py files, each with any of cases.py's lists: they join those.
for _path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases_*.py"))):
    _module = importlib.import_module(os.path.basename(_path)[:-3])
    for _group in ("STALLS", "SERIAL", "PLAYER", "FIELD"):
        getattr(cases, _group).extend(getattr(_module, _group, []))


class Targets:
    pass


def run_case(t, case, results, lock):
    t0 = time.monotonic()
    box = {}

    def body():
        try:
            box["detail"] = case(t)
        except Exception as e:  # a failed check, a timeout, a refused connection: all failures
            box["error"] = "%s: %s" % (type(e).__name__, e)
            if "-v" in sys.argv:
                traceback.print_exc()

    th = threading.Thread(target=body, daemon=True)
    th.start()
    th.join(CASE_LIMIT)
    dt = time.monotonic() - t0
    if th.is_alive():
        box["error"] = "still running after %.0f s" % CASE_LIMIT
    ok = "error" not in box
    line = "%s %-32s %5.1fs  %s" % ("PASS" if ok else "FAIL", case.__name__, dt, box.get("detail") if ok else box["error"])
    with lock:
        print(line, flush=True)
        results.append(ok)


def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    if not args:
        print(__doc__)
        return 2
    tictac, only = args[0], args[1:]
    if not targets.only_loopback():
        print("refusing to run: interfaces other than lo are present (run inside `unshare --net`)")
        return 2
    t = Targets()
    t.tictac = tictac
    t.discovery_port = 51515
    t.bot_port, t.play_port = free_port(), free_port()
    common = ["--no-dnssd", "--discovery-port", str(t.discovery_port)]
    procs = []
    try:
        # The cases all come from 127.0.0.1, back to back, faster than one LAN host dials: the
        # handshake budget (Protocol.md §5) is lifted here and checked by HandshakeBudgetTests.
        lifted = ["--max-handshakes-per-address", "0"]
        # So is the bound on new players per address (cases_budget checks it on a bot of its own).
        t.bot = Process([tictac, "bot", "--name", "victim", "--port", str(t.bot_port), "--json", "--max-new-players-per-address", "0"]
                        + common + lifted)
        t.play = Process([tictac, "play", "--plain", "--json", "--name", "human", "--port", str(t.play_port)]
                         + common + lifted, stdin=True)
        t.spheres = Process([tictac, "spheres", "--bot", "--plain", "--json", "--name", "field"] + common)
        procs = [t.bot, t.play, t.spheres]
        if not (wait_listening(t.bot_port) and wait_listening(t.play_port)):
            print("FAIL the daemons did not start listening")
            return 1
        ready = t.play.wait_event(lambda e: e.get("event") == "ready", 5)
        t.play_id = bytes.fromhex(ready["id"]) if ready else None
        sready = t.spheres.wait_event(lambda e: e.get("event") == "ready", 5)
        t.spheres_id = sready and sready.get("id")
        t.spheres_field_port = sready and (sready.get("port") or sready.get("field-port") or sready.get("fieldPort"))
        t.bot_id = cases.ready_peer(t.bot_port).peer_id
        chosen = lambda group: [c for c in group if not only or any(o in c.__name__ for o in only)]
        results, lock = [], threading.Lock()
        started = time.monotonic()
        # Stalls take seconds each: they run side by side, while the rest runs one by one.
        stall_threads = [threading.Thread(target=run_case, args=(t, c, results, lock)) for c in chosen(cases.STALLS)]
        for th in stall_threads:
            th.start()
        for c in chosen(cases.SERIAL) + chosen(cases.PLAYER) + chosen(cases.FIELD) + chosen(cases_discovery.CASES):
            run_case(t, c, results, lock)
        for th in stall_threads:
            th.join()
        for name, p in (("bot", t.bot), ("play", t.play), ("spheres", t.spheres)):
            ok = p.alive()
            print("%s %-32s        %s" % ("PASS" if ok else "FAIL", name + "-survived",
                                           "still running" if ok else "exited %s" % p.proc.returncode))
            results.append(ok)
        passed = sum(results)
        print("%d passed, %d failed (%.0f s)" % (passed, len(results) - passed, time.monotonic() - started))
        return 0 if passed == len(results) else 1
    finally:
        for p in procs:
            p.stop()


if __name__ == "__main__":
    sys.exit(main())
