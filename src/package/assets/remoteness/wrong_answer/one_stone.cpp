// Wrong answer (stonegame remoteness package): a plausible shortcut for the
// loser. In a lost position the loser takes one stone from the larger end
// pile (the left one on a tie), as if dragging the game out one stone at a
// time were the longest resistance; in a won position the winner takes a
// fastest win (by this same count). The verdicts are exact (a game-tree
// search), only the lengths are wrong: (3 1 2 3) is a 6-ply game this way
// but lasts 8 plies, (4 2 1 1 3 4) lasts 12. The search only handles small
// rows: on a row of more than 120 stones it prints the number of stones.
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

typedef unsigned long long u64;
typedef std::vector<u64> Row;

static std::map<Row, bool> win_memo;
static std::map<Row, u64> len_memo;

static std::vector<Row> children(const Row& a) {
  std::vector<Row> out;
  for (int side = 0; side < (a.size() > 1 ? 2 : 1); side++) {
    size_t at = side == 0 ? 0 : a.size() - 1;
    for (u64 left = 0; left < a[at]; left++) {
      Row c(a);
      if (left == 0) c.erase(c.begin() + at);
      else c[at] = left;
      out.push_back(c);
    }
  }
  return out;
}

static bool wins(const Row& a) {
  if (a.empty()) return false;
  auto it = win_memo.find(a);
  if (it != win_memo.end()) return it->second;
  bool w = false;
  for (const Row& c : children(a))
    if (!wins(c)) {
      w = true;
      break;
    }
  return win_memo[a] = w;
}

static u64 length(const Row& a) {
  if (a.empty()) return 0;
  auto it = len_memo.find(a);
  if (it != len_memo.end()) return it->second;
  u64 r;
  if (wins(a)) {
    r = ~0ULL;
    for (const Row& c : children(a))
      if (!wins(c)) r = std::min(r, 1 + length(c));
  } else {
    Row c(a);
    size_t at = a.size() > 1 && a.back() > a.front() ? a.size() - 1 : 0;
    if (--c[at] == 0) c.erase(c.begin() + at);
    r = 1 + length(c);
  }
  return len_memo[a] = r;
}

int main() {
  int t;
  if (std::scanf("%d", &t) != 1) return 1;
  while (t--) {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    Row a(n);
    u64 stones = 0;
    for (auto& v : a) {
      if (std::scanf("%llu", &v) != 1) return 1;
      stones += v;
    }
    if (n > 12 || stones > 120) {
      std::printf("%llu\n", stones);
    } else {
      std::printf("%llu\n", length(a));
      win_memo.clear();
      len_memo.clear();
    }
  }
  return 0;
}
