// The classic solution of the two-ends stone game (ZJOI 2009), used by
// `stonegame bench` and `cargo bench --bench kernel` as the peer to time
// against: the interval DP over the full O(n^2) tables `left` and `right`
// (docs/game.md §1), with the tables allocated per case for its n.
//
// Input: the OJ format on stdin (T, then per case n and a_1 .. a_n).
// Output: one line per case, 1 if the first player wins, 0 if not.
// Piles are read as unsigned 64-bit numbers, so every pile the project
// accepts (up to 2^63 - 1) and its + 1 fit.
//
// Build: g++ -O2 -o peer bench/peer.cpp
#include <cstdio>
#include <vector>

typedef unsigned long long u64;

// The pile x to put left of a segment S ... a_j so that the row is lost, from
// L and R (the piles that make S lost on its left / on its right) and the end
// pile X = a_j >= 1 (docs/game.md §1, "The recurrence").
static u64 lose_beside(u64 L, u64 R, u64 X) {
  if (X == R) return 0;
  if (X < R) return X < L ? X : X + 1;
  return X > L ? X : X - 1;
}

int main() {
  int T;
  if (std::scanf("%d", &T) != 1) return 1;
  for (int c = 0; c < T; c++) {
    int n;
    if (std::scanf("%d", &n) != 1 || n < 1) return 1;
    std::vector<u64> a(n);
    for (int k = 0; k < n; k++)
      if (std::scanf("%llu", &a[k]) != 1) return 1;
    if (n == 1) {
      std::puts("1");
      continue;
    }
    // left[i][j], right[i][j] for 0 <= i <= j < n (0-based piles).
    std::vector<std::vector<u64> > left(n, std::vector<u64>(n)),
        right(n, std::vector<u64>(n));
    for (int i = 0; i < n; i++) left[i][i] = right[i][i] = a[i];
    for (int len = 2; len <= n; len++) {
      for (int i = 0; i + len <= n; i++) {
        int j = i + len - 1;
        // left[i][j]: segment i..j-1, new right end a[j].
        left[i][j] = lose_beside(left[i][j - 1], right[i][j - 1], a[j]);
        // right[i][j]: the mirror image, segment i+1..j, new left end a[i].
        right[i][j] = lose_beside(right[i + 1][j], left[i + 1][j], a[i]);
      }
    }
    std::printf("%d\n", a[0] != left[1][n - 1] ? 1 : 0);
  }
  return 0;
}
