#!/usr/bin/env python3
# Testing tool of the interactive stonegame problem (written by `stonegame
# package --interactive`): plays the judge's side of the protocol against
# your program on your own machine. Not the real judge, but the same
# protocol and a judge that also wins whenever it can.
#
# Usage: python3 testing_tool.py GAMES_FILE -- your_program [args...]
# GAMES_FILE holds T, then per game n and the piles (like data/sample/*.in).
# Every line exchanged is echoed on stderr the way the problem format's
# .interaction files (data/sample/*.interaction) write it: `<` and the line
# for what the judge writes to your program, `>` and the line for what your
# program writes to the judge.
import random
import subprocess
import sys

LEFTMOST = @LEFTMOST@


def lose_beside(l, r, x):
    if x == r:
        return 0
    if x < r:
        return x if x < l else x + 1
    return x if x > l else x - 1


class Game:
    def __init__(self, a):
        self.a, n = a, len(a)
        self.lo, self.hi, self.x, self.y = 0, n - 1, a[0], a[-1]
        if LEFTMOST:
            self.win = [False] * (n + 1)
            for i in range(n - 1, -1, -1):
                self.win[i] = True if a[i] > 1 else not self.win[i + 1]
            return
        self.left = [[0] * n for _ in range(n)]
        self.right = [[0] * n for _ in range(n)]
        for i in range(n):
            self.left[i][i] = self.right[i][i] = a[i]
        for length in range(2, n + 1):
            for i in range(n - length + 1):
                j = i + length - 1
                self.left[i][j] = lose_beside(self.left[i][j - 1], self.right[i][j - 1], a[j])
                self.right[i][j] = lose_beside(self.right[i + 1][j], self.left[i + 1][j], a[i])

    def over(self):
        return self.lo > self.hi

    def winning_move(self):
        lo, hi, x, y = self.lo, self.hi, self.x, self.y
        if lo == hi:
            return ("L", x)
        if LEFTMOST:
            if not self.win[lo + 1]:
                return ("L", x)
            return ("L", x - 1) if x > 1 else None
        l = r = 0
        if lo + 1 <= hi - 1:
            l, r = self.left[lo + 1][hi - 1], self.right[lo + 1][hi - 1]
        fx = lose_beside(l, r, y)
        if x > fx:
            return ("L", x - fx)
        gy = lose_beside(r, l, x)
        if y > gy:
            return ("R", y - gy)
        return None

    def legal(self, side, k):
        if k < 1 or (LEFTMOST and side == "R"):
            return False
        return k <= (self.x if side == "L" else self.y)

    def apply(self, side, k):
        if self.lo == self.hi:
            self.x -= k
            self.y = self.x
            if self.x == 0:
                self.lo += 1
        elif side == "L":
            self.x -= k
            if self.x == 0:
                self.lo += 1
                self.x = self.y if self.lo == self.hi else self.a[self.lo]
        else:
            self.y -= k
            if self.y == 0:
                self.hi -= 1
                self.y = self.x if self.lo == self.hi else self.a[self.hi]


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit("usage: testing_tool.py GAMES_FILE -- your_program [args...]")
    tokens = open(sys.argv[1]).read().split()
    proc = subprocess.Popen(sys.argv[3:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def say(s):
        print("<" + s, file=sys.stderr)
        proc.stdin.write(s + "\n")
        proc.stdin.flush()

    def hear():
        s = proc.stdout.readline()
        if not s:
            fail("your program's output ended")
        print(">" + s.rstrip("\n"), file=sys.stderr)
        return s.rstrip("\n")

    def fail(why):
        print("WRONG ANSWER:", why, file=sys.stderr)
        try:
            say("-1")
        except (BrokenPipeError, OSError):
            pass
        sys.exit(43)

    t, at = int(tokens[0]), 1
    say(str(t))
    for game in range(1, t + 1):
        n = int(tokens[at])
        a = [int(v) for v in tokens[at + 1 : at + 1 + n]]
        at += 1 + n
        say(str(n))
        say(" ".join(map(str, a)))
        g = Game(a)
        first_wins = g.winning_move() is not None
        seat = hear()
        if seat not in ("FIRST", "SECOND"):
            fail("expected FIRST or SECOND")
        if (seat == "FIRST") != first_wins:
            fail("game %d: the seat %s loses against perfect play" % (game, seat))
        you = seat == "FIRST"
        while not g.over():
            if you:
                parts = hear().split(" ")
                if len(parts) != 2 or parts[0] not in ("L", "R") or not parts[1].isdigit():
                    fail("expected a move `L k` or `R k`")
                side, k = parts[0], int(parts[1])
                if not g.legal(side, k):
                    fail("illegal move")
            else:
                move = g.winning_move()
                if move is None:
                    side = "L" if LEFTMOST or g.lo == g.hi or random.random() < 0.5 else "R"
                    pile = g.x if side == "L" else g.y
                    move = (side, random.randint((pile + 1) // 2, pile))
                side, k = move
                say("%s %d" % (side, k))
            g.apply(side, k)
            if g.over() and not you:
                fail("game %d: the judge took the last pile" % game)
            you = not you
    proc.stdin.close()
    proc.wait()
    print("OK: every game won", file=sys.stderr)


main()
