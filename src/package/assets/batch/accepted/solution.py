# Accepted solution in Python 3 (stonegame problem package; the project's
# own code). The same tables as solution.cpp, one segment length at a time.
# At the full limits (n = 1000) run it under PyPy, as judges do for Python.
import sys

LEFTMOST = @LEFTMOST@


def wins(a):
    n = len(a)
    if LEFTMOST:
        win = False
        for x in reversed(a):
            win = True if x > 1 else not win
        return win
    if n == 1:
        return True
    left = a[:]
    right = a[:]
    for length in range(2, n):
        for i in range(n - length + 1):
            x = a[i + length - 1]
            lo, ro = left[i], right[i]
            # left: L = lo, R = ro, X = a[j]
            if x == ro:
                nl = 0
            elif x < ro:
                nl = x if x < lo else x + 1
            else:
                nl = x if x > lo else x - 1
            # right: L = right[i + 1], R = left[i + 1], X = a[i]
            y = a[i]
            lr, rr = right[i + 1], left[i + 1]
            if y == rr:
                nr = 0
            elif y < rr:
                nr = y if y < lr else y + 1
            else:
                nr = y if y > lr else y - 1
            left[i] = nl
            right[i] = nr
    return a[0] != left[1]


def main():
    data = sys.stdin.buffer.read().split()
    t, at, out = int(data[0]), 1, []
    for _ in range(t):
        n = int(data[at])
        a = [int(v) for v in data[at + 1 : at + 1 + n]]
        at += 1 + n
        out.append("1" if wins(a) else "0")
    sys.stdout.write("\n".join(out) + "\n")


main()
