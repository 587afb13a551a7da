// Too slow (stonegame remoteness package): the definition itself, a search
// of the whole game tree: a won position is 1 + the smallest remoteness of
// its lost children, a lost one 1 + the largest of its children. Right on
// every row, exponential in the number of stones. At most a million
// positions are remembered, so it runs out of time, not of memory.
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

typedef unsigned long long u64;
typedef unsigned __int128 u128;
typedef std::vector<u64> Row;

static std::map<Row, u128> memo;

static u128 remoteness(const Row& a) {
  if (a.empty()) return 0;
  auto it = memo.find(a);
  if (it != memo.end()) return it->second;
  bool won = false;
  u128 fastest_win = 0, longest = 0;
  for (int side = 0; side < (a.size() > 1 ? 2 : 1); side++) {
    size_t at = side == 0 ? 0 : a.size() - 1;
    for (u64 left = 0; left < a[at]; left++) {
      Row c(a);
      if (left == 0) c.erase(c.begin() + at);
      else c[at] = left;
      u128 r = remoteness(c);
      if (r % 2 == 0) {
        fastest_win = won ? std::min(fastest_win, r) : r;
        won = true;
      }
      longest = std::max(longest, r);
    }
  }
  u128 r = 1 + (won ? fastest_win : longest);
  if (memo.size() < 1000000) memo[a] = r;
  return r;
}

static void print(u128 v) {
  char buf[64];
  int len = 0;
  do {
    buf[len++] = (char)('0' + (int)(v % 10));
    v /= 10;
  } while (v > 0);
  while (len > 0) std::putchar(buf[--len]);
  std::putchar('\n');
}

int main() {
  int t;
  if (std::scanf("%d", &t) != 1) return 1;
  while (t--) {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    Row a(n);
    for (auto& v : a)
      if (std::scanf("%llu", &v) != 1) return 1;
    print(remoteness(a));
    std::fflush(stdout);
  }
  return 0;
}
