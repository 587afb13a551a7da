// Too slow (stonegame problem package): searches the whole game tree, every
// move of every position (it does not stop at the first winning move), with
// no memory of positions already solved. Right on tiny rows, exponential in
// the number of stones. Moves that take the most stones come first, so the
// recursion stays shallow (a time-out, not a stack overflow).
#include <cstdio>
#include <vector>

typedef unsigned long long u64;
static const int LEFTMOST = @LEFTMOST@;
static std::vector<u64> a;

// Whether the player to move wins on a[lo .. hi] with the end piles holding
// x (left) and y (right) stones; lo > hi is the empty row.
static bool wins(int lo, int hi, u64 x, u64 y) {
  if (lo > hi) return false;
  if (lo == hi) return true;  // take the single pile whole
  bool win = false;
  for (u64 k = x; k >= 1; k--) {
    bool lost = k == x ? !wins(lo + 1, hi, lo + 1 == hi ? y : a[lo + 1], y)
                       : !wins(lo, hi, x - k, y);
    win = win || lost;
  }
  if (LEFTMOST) return win;
  for (u64 k = y; k >= 1; k--) {
    bool lost = k == y ? !wins(lo, hi - 1, x, lo == hi - 1 ? x : a[hi - 1])
                       : !wins(lo, hi, x, y - k);
    win = win || lost;
  }
  return win;
}

int main() {
  int t;
  if (std::scanf("%d", &t) != 1) return 1;
  while (t--) {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    a.assign(n, 0);
    for (auto& v : a)
      if (std::scanf("%llu", &v) != 1) return 1;
    std::puts(wins(0, n - 1, a[0], a[n - 1]) ? "1" : "0");
  }
  return 0;
}
