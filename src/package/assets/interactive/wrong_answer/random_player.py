# Wrong answer (stonegame problem package, interactive): always takes the
# first seat and plays uniformly random legal moves.
import random
import sys

random.seed(20)
LEFTMOST = @LEFTMOST@


def line():
    s = sys.stdin.readline()
    if not s or s.strip() == "-1":
        sys.exit(0)
    return s.split()


def say(s):
    sys.stdout.write(s + "\n")
    sys.stdout.flush()


t = int(line()[0])
for _ in range(t):
    line()
    piles = [int(v) for v in line()]
    say("FIRST")
    me = True
    while piles:
        if me:
            side = "L" if LEFTMOST or random.random() < 0.5 else "R"
            at = 0 if side == "L" else -1
            k = random.randint(1, piles[at])
            say("%s %d" % (side, k))
        else:
            side, k = line()
            k = int(k)
            at = 0 if side == "L" else -1
        piles[at] -= k
        if piles[at] == 0:
            piles.pop(at)
        me = not me
