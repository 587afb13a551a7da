// Wrong answer (stonegame problem package, interactive): plays perfectly
// but takes the losing seat, so the judge wins every game it is given.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

typedef unsigned long long u64;
static const int LEFTMOST = @LEFTMOST@;

static u64 lose_beside(u64 L, u64 R, u64 X) {
  if (X == R) return 0;
  if (X < R) return X < L ? X : X + 1;
  return X > L ? X : X - 1;
}

// One game: the original piles a, the live piles a[lo..hi] whose end piles
// hold x (left) and y (right) stones (x is the only pile when lo == hi).
struct Game {
  std::vector<u64> a;
  int n = 0, lo = 0, hi = 0;
  u64 x = 0, y = 0;
  // Two-ends: tables of the segments a[i..j] (row-major n x n).
  std::vector<u64> left, right;
  // Leftmost: win[i] = the player to move wins on a[i..n-1]; win[n] = false.
  std::vector<char> win;

  void init(const std::vector<u64>& piles) {
    a = piles;
    n = (int)a.size();
    lo = 0;
    hi = n - 1;
    x = a[0];
    y = a[n - 1];
    if (LEFTMOST) {
      win.assign(n + 1, 0);
      for (int i = n - 1; i >= 0; i--) win[i] = a[i] > 1 ? 1 : !win[i + 1];
      return;
    }
    left.assign((size_t)n * n, 0);
    right.assign((size_t)n * n, 0);
    for (int i = 0; i < n; i++) left[(size_t)i * n + i] = right[(size_t)i * n + i] = a[i];
    for (int len = 2; len <= n; len++)
      for (int i = 0; i + len <= n; i++) {
        int j = i + len - 1;
        left[(size_t)i * n + j] =
            lose_beside(left[(size_t)i * n + j - 1], right[(size_t)i * n + j - 1], a[j]);
        right[(size_t)i * n + j] =
            lose_beside(right[(size_t)(i + 1) * n + j], left[(size_t)(i + 1) * n + j], a[i]);
      }
  }

  bool over() const { return lo > hi; }

  // A winning move (side 'L' or 'R', k stones), or false if the position is lost.
  bool winning_move(char& side, u64& k) const {
    if (lo == hi) {
      side = 'L';
      k = x;
      return true;
    }
    if (LEFTMOST) {
      bool rest = win[lo + 1];
      if (!rest) {
        side = 'L';
        k = x;
        return true;
      }
      if (x > 1) {
        side = 'L';
        k = x - 1;
        return true;
      }
      return false;
    }
    // The middle S = a[lo+1 .. hi-1]; empty: L = R = 0.
    u64 L = 0, R = 0;
    if (lo + 1 <= hi - 1) {
      L = left[(size_t)(lo + 1) * n + hi - 1];
      R = right[(size_t)(lo + 1) * n + hi - 1];
    }
    u64 fx = lose_beside(L, R, y);  // the left pile that loses beside y
    if (x > fx) {
      side = 'L';
      k = x - fx;
      return true;
    }
    u64 gy = lose_beside(R, L, x);  // the right pile that loses beside x
    if (y > gy) {
      side = 'R';
      k = y - gy;
      return true;
    }
    return false;
  }

  // Applies a legal move.
  void apply(char side, u64 k) {
    if (lo == hi) {
      x -= k;
      y = x;
      if (x == 0) lo++;
      return;
    }
    if (side == 'L') {
      x -= k;
      if (x == 0) {
        lo++;
        x = lo == hi ? y : a[lo];
      }
    } else {
      y -= k;
      if (y == 0) {
        hi--;
        y = lo == hi ? x : a[hi];
      }
    }
  }

};

int main() {
  u64 t;
  if (!(std::cin >> t)) return 0;
  Game g;
  for (u64 game = 0; game < t; game++) {
    int n;
    if (!(std::cin >> n) || n < 0) return 0;  // -1: the judge gave up on us
    std::vector<u64> piles(n);
    for (auto& v : piles) std::cin >> v;
    g.init(piles);
    char side;
    u64 k;
    bool first_wins = g.winning_move(side, k);
    bool me = !first_wins;
    std::cout << (me ? "FIRST" : "SECOND") << std::endl;
    while (!g.over()) {
      if (me) {
        if (!g.winning_move(side, k)) {
          side = 'L';
          k = 1;  // lost anyway: stall
        }
        std::cout << side << " " << k << std::endl;
      } else {
        std::string s;
        if (!(std::cin >> s) || s == "-1") return 0;
        std::cin >> k;
        side = s[0];
      }
      g.apply(side, k);
      me = !me;
    }
  }
  return 0;
}
