// Accepted solution (stonegame problem package; the project's own code).
// Two-ends game: the interval tables `left` and `right` of docs/game.md,
// one length at a time (O(n^2) time, O(n) memory). Leftmost-only game: the
// O(n) suffix scan. LEFTMOST is set by `stonegame package --variant`.
#include <cstdio>
#include <vector>

typedef unsigned long long u64;
static const int LEFTMOST = @LEFTMOST@;

// The pile to put beside a segment so that the row is lost, from L and R
// (the piles that make the segment lost on the near / far side) and the
// pile X >= 1 standing on the far side.
static u64 lose_beside(u64 L, u64 R, u64 X) {
  if (X == R) return 0;
  if (X < R) return X < L ? X : X + 1;
  return X > L ? X : X - 1;
}

static bool wins(const std::vector<u64>& a) {
  int n = (int)a.size();
  if (LEFTMOST) {
    bool win = false;  // the empty row is lost for the player to move
    for (int i = n - 1; i >= 0; i--) win = a[i] > 1 ? true : !win;
    return win;
  }
  if (n == 1) return true;
  // left[i], right[i]: the tables of the segment a[i .. i+len-1] (0-based).
  std::vector<u64> left(a), right(a);
  // The segment a[1 .. n-1] has length n-1.
  for (int len = 2; len <= n - 1; len++) {
    for (int i = 0; i + len <= n; i++) {
      int j = i + len - 1;
      u64 l = lose_beside(left[i], right[i], a[j]);
      u64 r = lose_beside(right[i + 1], left[i + 1], a[i]);
      left[i] = l;
      right[i] = r;
    }
  }
  return a[0] != left[1];
}

int main() {
  int t;
  if (std::scanf("%d", &t) != 1) return 1;
  while (t--) {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    std::vector<u64> a(n);
    for (auto& v : a)
      if (std::scanf("%llu", &v) != 1) return 1;
    std::puts(wins(a) ? "1" : "0");
  }
  return 0;
}
