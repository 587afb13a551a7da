# Wrong answer (stonegame problem package): compares the two end piles only.
# Equal ends "can be mirrored", so the first player is said to lose; any
# other row is said to be won. Right for n <= 2, wrong beyond (3 1 9 4).
import sys

data = sys.stdin.buffer.read().split()
t, at, out = int(data[0]), 1, []
for _ in range(t):
    n = int(data[at])
    first, last = int(data[at + 1]), int(data[at + n])
    at += 1 + n
    out.append("1" if n == 1 or first != last else "0")
print("\n".join(out))
