// Wrong answer (stonegame problem package): the widely copied published
// solution ("seed 004" in docs/game.md, "A known wrong solution"), with its
// two bugs kept and its ints widened so only the logic is wrong:
//  * the recurrence of `right` reads `right` twice (l = right; r = right)
//    where it should read `left` and `right`;
//  * its `if` chain has no branch for X = L > R, so that entry stays 0.
// It passes random rows and fails small rows such as 1 1 2 2 (answer 0)
// and the generator's `hack` family.
#include <cstdio>
#include <utility>
#include <vector>

typedef long long ll;

static bool step(ll l, ll r, ll x, ll& out) {
  if (x == r) out = 0;
  else if (x < l && x < r) out = x;
  else if (x < l && x > r) out = x - 1;
  else if (x >= l && x < r) out = x + 1;
  else if (x > l && x > r) out = x;
  else return false;
  return true;
}

int main() {
  int t;
  if (std::scanf("%d", &t) != 1) return 1;
  while (t--) {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    std::vector<ll> a(n + 2, 0);
    for (int i = 1; i <= n; i++)
      if (std::scanf("%lld", &a[i]) != 1) return 1;
    std::vector<std::vector<ll> > left(n + 2, std::vector<ll>(n + 2, 0)),
        right(n + 2, std::vector<ll>(n + 2, 0));
    for (int i = 0; i + 1 < n; i++) {
      if (i == 0) {
        for (int j = 2; j <= n; j++) left[j][j] = right[j][j] = a[j];
      } else {
        for (int j = 2; j + i <= n; j++) {
          ll l = left[j][j + i - 1], r = right[j][j + i - 1], x = a[j + i], v;
          if (step(l, r, x, v)) left[j][j + i] = v;
          l = right[j + 1][j + i];
          r = right[j + 1][j + i];
          x = a[j];
          std::swap(l, r);
          if (step(l, r, x, v)) right[j][j + i] = v;
        }
      }
    }
    ll target = n >= 2 ? left[2][n] : 0;
    std::puts(a[1] != target ? "1" : "0");
  }
  return 0;
}
