// Wrong answer (stonegame problem package): treats the row as Nim and
// answers "the first player wins" iff the xor of the piles is not zero.
// Nim lets a move take from any pile; here only the end piles can be taken.
#include <cstdio>

int main() {
  int t;
  if (std::scanf("%d", &t) != 1) return 1;
  while (t--) {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    unsigned long long x = 0, v;
    for (int i = 0; i < n; i++)
      if (std::scanf("%llu", &v) == 1) x ^= v;
    std::puts(x != 0 ? "1" : "0");
  }
  return 0;
}
