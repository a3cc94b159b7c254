#!/usr/bin/env python3
"""pbrain-tiny: a small gomoku engine speaking the Gomocup ("Piskvork") brain protocol.

Written from the protocol's public description (plastovicka.github.io/protocl2en.htm) as a
reference for `tictac bot --engine`: commands on stdin, one per line; answers on stdout,
flushed after every line. It wins when it can, blocks a four, and otherwise plays the cell
where lines of its own and the opponent's are longest and most open.

    python3 tools/engine/pbrain-tiny.py               # a well-behaved engine
    python3 tools/engine/pbrain-tiny.py --fault MODE  # a broken one, for tests:
        silent    never answers a move           crash    exits at its first move
        garbage   answers a move with garbage    illegal  plays an occupied cell
        offboard  plays outside the board        flood    floods stdout instead of moving
        refuse    answers ERROR to every START   hang     answers ABOUT, then never again
        hog       allocates 1 GiB at its move (a memory limit makes it fail)
        errflood  floods stderr instead of moving    burn     spins the CPU instead of moving
    --fault-after N: behave for N moves first (default 0).
    --report FILE: write how it was started to FILE (for the tests): sockets among its
        descriptors, its blocked signals, its address-space and CPU limits, its nice value; and
        "end" when it is told END.
"""
import sys

MAX_SIZE = 20
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


class Engine:
    def __init__(self, fault, fault_after):
        self.fault = fault
        self.fault_after = fault_after
        self.moves_made = 0
        self.width = self.height = 0
        self.board = {}  # (x, y) -> 1 (ours) or 2 (theirs)

    def out(self, line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    # --- commands -----------------------------------------------------------------------

    def start(self, width, height):
        if self.fault == "refuse":
            return self.out("ERROR this engine plays no board at all")
        if width < 5 or height < 5 or width > MAX_SIZE or height > MAX_SIZE:
            return self.out("ERROR unsupported size (5 to %d only)" % MAX_SIZE)
        self.width, self.height = width, height
        self.board = {}
        self.out("OK")

    def play(self):
        """Our turn: answer a move (or misbehave, for the tests)."""
        if self.fault and self.moves_made >= self.fault_after:
            return self.misbehave()
        x, y = self.choose()
        self.board[(x, y)] = 1
        self.moves_made += 1
        self.out("%d,%d" % (x, y))

    def misbehave(self):
        mode = self.fault
        if mode == "silent":
            return
        if mode == "crash":
            sys.stderr.write("pbrain-tiny: crashing on purpose\n")
            sys.stderr.flush()
            sys.exit(3)
        if mode == "garbage":
            return self.out("this is not a move")
        if mode == "illegal":
            taken = next(iter(self.board), None)
            if taken is None:  # nothing taken yet: one good move, then the bad one
                self.fault_after = self.moves_made + 1
                x, y = self.choose()
                self.board[(x, y)] = 1
                self.moves_made += 1
                return self.out("%d,%d" % (x, y))
            return self.out("%d,%d" % taken)
        if mode == "offboard":
            return self.out("%d,%d" % (self.width, self.height))
        if mode == "flood":
            line = "MESSAGE " + "x" * 1000 + "\n"
            try:
                while True:
                    sys.stdout.write(line)
            except (BrokenPipeError, OSError):
                sys.exit(0)
        if mode == "hang":
            return
        if mode == "burn":
            while True:
                pass
        if mode == "errflood":
            line = "debug " + "y" * 1000 + "\n"
            try:
                while True:
                    sys.stderr.write(line)
            except (BrokenPipeError, OSError):
                sys.exit(0)
        if mode == "hog":
            hog = bytearray(1 << 30)  # MemoryError under a smaller limit: the traceback goes to stderr
            hog[-1] = 1
        self.play_normally()

    # --- choosing a move ----------------------------------------------------------------

    def inside(self, x, y):
        return 0 <= x < self.width and 0 <= y < self.height

    def run(self, x, y, dx, dy, who):
        """Stones of `who` in a row through the empty (x, y) along (dx, dy), and open ends."""
        count, open_ends = 1, 0
        for sign in (1, -1):
            cx, cy = x + sign * dx, y + sign * dy
            while self.inside(cx, cy) and self.board.get((cx, cy)) == who:
                count += 1
                cx, cy = cx + sign * dx, cy + sign * dy
            if self.inside(cx, cy) and (cx, cy) not in self.board:
                open_ends += 1
        return count, open_ends

    @staticmethod
    def value(count, open_ends):
        if count >= 5:
            return 10_000_000
        if open_ends == 0:
            return 0
        table = {4: (100_000, 1_000_000), 3: (1_000, 50_000), 2: (100, 1_000), 1: (10, 50)}
        closed, opened = table[count]
        return opened if open_ends == 2 else closed

    def score(self, x, y):
        mine = sum(self.value(*self.run(x, y, dx, dy, 1)) for dx, dy in DIRECTIONS)
        theirs = sum(self.value(*self.run(x, y, dx, dy, 2)) for dx, dy in DIRECTIONS)
        return mine * 11 // 10 + theirs  # attack a little above defence

    def choose(self):
        if not self.board:
            return self.width // 2, self.height // 2
        near = set()
        for (sx, sy) in self.board:
            for dx in range(-2, 3):
                for dy in range(-2, 3):
                    c = (sx + dx, sy + dy)
                    if self.inside(*c) and c not in self.board:
                        near.add(c)
        if not near:
            near = {(x, y) for x in range(self.width) for y in range(self.height) if (x, y) not in self.board}
        # Ties go to the cell nearest the centre, then the lowest: the engine is deterministic.
        cx, cy = self.width / 2, self.height / 2
        return max(sorted(near), key=lambda c: (self.score(*c), -abs(c[0] - cx) - abs(c[1] - cy)))

    def play_normally(self):
        self.fault = None
        self.play()

    # --- the protocol's loop ------------------------------------------------------------

    def coordinates(self, text):
        try:
            x, y = (int(v) for v in text.split(","))
        except ValueError:
            return None
        return (x, y) if self.inside(x, y) else None

    def serve(self):
        stdin = sys.stdin
        while True:
            raw = stdin.readline()
            if not raw:
                return
            line = raw.strip()
            if not line:
                continue
            word, _, rest = line.partition(" ")
            command = word.upper()
            rest = rest.strip()
            if command == "START":
                size = int(rest) if rest.isdigit() else 0
                self.start(size, size)
            elif command == "RECTSTART":
                parts = rest.split(",")
                ok = len(parts) == 2 and all(p.strip().isdigit() for p in parts)
                self.start(*(int(p) for p in parts)) if ok else self.out("ERROR bad RECTSTART parameters")
            elif command == "RESTART":
                self.board = {}
                self.out("OK")
            elif command == "BEGIN":
                self.play()
            elif command == "TURN":
                c = self.coordinates(rest)
                if c is None or c in self.board:
                    self.out("ERROR bad coordinates")
                else:
                    self.board[c] = 2
                    self.play()
            elif command == "BOARD":
                self.board = {}
                while True:
                    entry = stdin.readline()
                    if not entry or entry.strip().upper() == "DONE":
                        break
                    fields = entry.strip().split(",")
                    if len(fields) == 3 and all(f.strip().isdigit() for f in fields):
                        x, y, who = (int(f) for f in fields)
                        if self.inside(x, y):
                            self.board[(x, y)] = 1 if who == 1 else 2
                self.play()
            elif command == "INFO":
                pass  # timeout_turn, max_memory, rule...: a tiny engine is fast and small anyway
            elif command == "ABOUT":
                self.out('name="pbrain-tiny", version="1.0", author="tictac", country="LAN"')
                if self.fault == "hang":
                    self.fault = "silent"
                    while stdin.readline():
                        pass
                    return
            elif command == "END":
                if REPORT:
                    with open(REPORT, "a") as f:
                        f.write("end\n")
                return
            else:
                self.out("UNKNOWN command " + word)


REPORT = None


def report(path):
    global REPORT
    REPORT = path
    import os, resource
    sockets = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            sockets += os.readlink("/proc/self/fd/" + fd).startswith("socket:")
        except OSError:
            pass
    blocked = next(l.split()[1] for l in open("/proc/self/status") if l.startswith("SigBlk"))
    with open(path, "w") as f:
        f.write("sockets %d\nblocked %s\nmemory %d\ncpu %d\nnice %d\n" % (
            sockets, blocked, resource.getrlimit(resource.RLIMIT_AS)[0],
            resource.getrlimit(resource.RLIMIT_CPU)[0], os.nice(0)))


def main():
    args = sys.argv[1:]
    fault, fault_after = None, 0
    while args:
        flag = args.pop(0)
        if flag == "--fault" and args:
            fault = args.pop(0)
        elif flag == "--fault-after" and args:
            fault_after = int(args.pop(0))
        elif flag == "--report" and args:
            report(args.pop(0))
        else:
            sys.stderr.write(__doc__)
            sys.exit(2)
    Engine(fault, fault_after).serve()


if __name__ == "__main__":
    main()
