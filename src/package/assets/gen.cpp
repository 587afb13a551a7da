// Generator of the stonegame problem package (written by `stonegame
// package`; the project's own code, src/package/assets/gen.cpp): the test
// inputs of `stonegame gen`, byte for byte, without Rust. BAPCtools
// compiles it and runs the lines of generators/generators.yaml; by hand:
//
//   g++ -std=c++17 -O2 -o gen gen.cpp
//   ./gen --family F --cases T --max-n N --max-a A --seed S [--variant V] > NAME.in
//
// (defaults as in `stonegame gen`: --cases 10 --max-n 1000 --max-a
// 1000000000 --variant two-ends). The input goes to stdout; the expected
// answers are the accepted solution's. A port of src/judge/generate.rs
// and of the random source it uses: ChaCha8 (rand_chacha 0.9,
// `ChaCha8Rng::seed_from_u64`, the seed expanded by PCG32 as rand_core 0.9
// does), u64 ranges by rand 0.9's `random_range` (one widening multiply,
// a second one where the first is biased), coins by `random_bool(0.5)`
// (a u64 below 2^63). `tests/it/package_setter.rs` holds it to `stonegame
// gen` on every family, both variants and many seeds.
//
// Exit code 0; 1 with a message on stderr for bad arguments.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

typedef std::uint64_t u64;
typedef std::uint32_t u32;

static const u64 MAX_PILE = 9223372036854775807ULL;  // 2^63 - 1
static const u64 MAX_PILES = 200000;
static const u64 WRAP_31 = 1ULL << 31;
static const u64 WRAP_32 = 1ULL << 32;

[[noreturn]] static void die(const std::string& message) {
  std::fprintf(stderr, "gen: error: %s\n", message.c_str());
  std::exit(1);
}

// ---- the random source: ChaCha8Rng::seed_from_u64 ----

static inline u32 rotl(u32 v, int c) { return (v << c) | (v >> (32 - c)); }

struct ChaCha8 {
  u32 key[8];
  u64 counter = 0;  // the block counter (words 12, 13); the stream is 0
  u32 buf[64];      // four blocks, as rand_chacha buffers them
  int index = 64;

  explicit ChaCha8(u64 state) {
    // rand_core's seed_from_u64: PCG32 output words, little-endian.
    const u64 MUL = 6364136223846793005ULL, INC = 11634580027462260723ULL;
    for (int i = 0; i < 8; i++) {
      state = state * MUL + INC;
      u32 xorshifted = (u32)(((state >> 18) ^ state) >> 27);
      u32 rot = (u32)(state >> 59);
      key[i] = (xorshifted >> rot) | (xorshifted << ((32 - rot) & 31));
    }
  }

  void block(u64 ctr, u32* out) const {
    u32 in[16] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u,
                  key[0],      key[1],      key[2],      key[3],
                  key[4],      key[5],      key[6],      key[7],
                  (u32)ctr,    (u32)(ctr >> 32), 0u,     0u};
    u32 x[16];
    std::memcpy(x, in, sizeof x);
#define QR(a, b, c, d) \
  x[a] += x[b];        \
  x[d] ^= x[a];        \
  x[d] = rotl(x[d], 16); \
  x[c] += x[d];        \
  x[b] ^= x[c];        \
  x[b] = rotl(x[b], 12); \
  x[a] += x[b];        \
  x[d] ^= x[a];        \
  x[d] = rotl(x[d], 8);  \
  x[c] += x[d];        \
  x[b] ^= x[c];        \
  x[b] = rotl(x[b], 7);
    for (int round = 0; round < 4; round++) {  // 8 rounds: 4 double rounds
      QR(0, 4, 8, 12) QR(1, 5, 9, 13) QR(2, 6, 10, 14) QR(3, 7, 11, 15)
      QR(0, 5, 10, 15) QR(1, 6, 11, 12) QR(2, 7, 8, 13) QR(3, 4, 9, 14)
    }
#undef QR
    for (int i = 0; i < 16; i++) out[i] = x[i] + in[i];
  }

  void refill() {
    for (int b = 0; b < 4; b++) block(counter + (u64)b, buf + 16 * b);
    counter += 4;
  }

  // rand_core's BlockRng::next_u64: two words, the low one first.
  u64 next_u64() {
    if (index < 63) {
      u64 v = ((u64)buf[index + 1] << 32) | buf[index];
      index += 2;
      return v;
    }
    if (index >= 64) {
      refill();
      index = 2;
      return ((u64)buf[1] << 32) | buf[0];
    }
    u64 lo = buf[63];
    refill();
    index = 1;
    return ((u64)buf[0] << 32) | lo;
  }

  // rand 0.9: `random_range(lo..=hi)` for u64.
  u64 range(u64 lo, u64 hi) {
    u64 r = hi - lo + 1;
    if (r == 0) return next_u64();
    unsigned __int128 m = (unsigned __int128)next_u64() * r;
    u64 result = (u64)(m >> 64), lo_order = (u64)m;
    if (lo_order > (u64)0 - r) {
      u64 new_hi = (u64)(((unsigned __int128)next_u64() * r) >> 64);
      if (lo_order + new_hi < lo_order) result += 1;
    }
    return lo + result;
  }

  // rand 0.9: `random_bool(0.5)`.
  bool coin() { return next_u64() < (1ULL << 63); }
};

// ---- the game: what planted losses need ----

// The pile to put beside a segment so that the row is lost (docs/game.md).
static u64 lose_beside(u64 L, u64 R, u64 X) {
  if (X == R) return 0;
  if (X < R) return X < L ? X : X + 1;
  return X > L ? X : X - 1;
}

// left[1][m] of b_1 .. b_m: the pile x with (x, b_1, .., b_m) lost.
static u64 left_of(const std::vector<u64>& b) {
  int m = (int)b.size();
  std::vector<u64> left(b), right(b);
  for (int len = 2; len <= m; len++)
    for (int i = 0; i + len <= m; i++) {
      int j = i + len - 1;
      u64 l = lose_beside(left[i], right[i], b[j]);
      u64 r = lose_beside(right[i + 1], left[i + 1], b[i]);
      left[i] = l;
      right[i] = r;
    }
  return left[0];
}

static bool leftmost_wins(const std::vector<u64>& b) {
  bool win = false;
  for (int i = (int)b.size() - 1; i >= 0; i--) win = b[i] > 1 ? true : !win;
  return win;
}

// ---- the families ----

enum Family { RANDOM, TINY, NEAR, PALINDROME, MAX, PLANTED, EXHAUSTIVE, HACK };
enum Hack {
  FALL_THROUGH,
  STALE_SINGLE,
  STRICT_GE,
  MIX_UP,
  WRAP31,
  WRAP32,
  EQUAL_PAIR,
  UNEQUAL_PAIR,
  PLANTED_LOSS,
  NEAR_MISS
};

struct Gen {
  Family family;
  u64 cases, max_n, max_a;
  bool leftmost;
  ChaCha8 rng;
  u64 made = 0;
  int pending_loss = -1;  // planted: -1 none, else the next case's loss
  std::vector<u64> odometer{1};
  std::vector<Hack> block;
  size_t at = 0;
  bool has_previous_loss = false;
  u64 previous_loss = 0;
  bool has_last_planted = false;
  std::vector<u64> last_planted;

  Gen(Family f, u64 t, u64 n, u64 a, u64 seed, bool lm)
      : family(f), cases(t), max_n(n), max_a(a), leftmost(lm), rng(seed) {
    const Hack all[12] = {FALL_THROUGH, STALE_SINGLE, STRICT_GE,   MIX_UP,
                          WRAP31,       WRAP32,       EQUAL_PAIR,  STALE_SINGLE,
                          UNEQUAL_PAIR, PLANTED_LOSS, NEAR_MISS,   PLANTED_LOSS};
    for (Hack k : all)
      if (available(k)) block.push_back(k);
  }

  bool available(Hack k) const {
    switch (k) {
      case FALL_THROUGH:
      case STRICT_GE: return max_n >= 4 && max_a >= 2;
      case MIX_UP: return max_n >= 5 && max_a >= 2;
      case WRAP31: return max_n >= 4 && max_a >= WRAP_31;
      case WRAP32: return max_n >= 4 && max_a >= WRAP_32;
      case UNEQUAL_PAIR: return max_a >= 2;
      default: return true;
    }
  }

  size_t len(u64 lo) { return (size_t)rng.range(lo, max_n > lo ? max_n : lo); }

  std::vector<u64> uniform_row(size_t n, u64 hi) {
    std::vector<u64> row(n);
    for (auto& v : row) v = rng.range(1, hi);
    return row;
  }

  // (t, tail...), lost for the first player, if such a t exists within max_a.
  bool plant(const std::vector<u64>& tail, std::vector<u64>& row) {
    u64 t;
    if (leftmost) {
      if (!leftmost_wins(tail)) return false;
      t = 1;
    } else {
      t = left_of(tail);
      if (t == 0 || t > MAX_PILE) return false;
    }
    if (t > max_a) return false;
    row.assign(1, t);
    row.insert(row.end(), tail.begin(), tail.end());
    return true;
  }

  std::vector<u64> planted_loss() {
    for (int attempt = 0; attempt < 32; attempt++) {
      size_t n = len(2);
      u64 hi = rng.coin() ? max_a : (max_a < 10 ? max_a : 10);
      std::vector<u64> tail = uniform_row(n - 1, hi), row;
      if (plant(tail, row)) return row;
    }
    return {1, 1};  // lost in both variants
  }

  std::vector<u64> near_miss(std::vector<u64> row) {
    u64 t = row[0];
    bool up = t < max_a, down = t > 1;
    if (up && down) {
      if (rng.coin())
        row[0] += 1;
      else
        row[0] -= 1;
    } else if (up) {
      row[0] += 1;
    } else if (down) {
      row[0] -= 1;
    } else {
      row.erase(row.begin());
    }
    return row;
  }

  std::vector<u64> hack() {
    Hack kind = block[at];
    at = (at + 1) % block.size();
    std::vector<u64> row;
    bool two_ends_loss = false;
    switch (kind) {
      case FALL_THROUGH: {
        u64 q = rng.range(2, max_a);
        u64 p = rng.range(1, q - 1);
        row = {q - 1, p, q, q};
        two_ends_loss = true;
        break;
      }
      case STRICT_GE: {
        u64 p = rng.range(2, max_a);
        u64 q = rng.range(1, p - 1);
        row = {q + 1, p, q, q};
        two_ends_loss = true;
        break;
      }
      case MIX_UP: {
        u64 u = rng.range(2, max_a);
        u64 w = rng.range(1, u - 1);
        u64 v = rng.range(1, max_a - 1);
        if (v >= u) v += 1;
        row = {w, u, v, u, w};
        two_ends_loss = true;
        break;
      }
      case WRAP31:
      case WRAP32: {
        u64 bound = kind == WRAP31 ? WRAP_31 : WRAP_32;
        u64 top = kind == WRAP31 ? (max_a < WRAP_32 - 1 ? max_a : WRAP_32 - 1) : max_a;
        u64 q = bound - 1 - rng.range(0, 3);
        u64 p = rng.range(bound, top < bound + 3 ? top : bound + 3);
        row = {q + 1, p, q, q};
        two_ends_loss = true;
        break;
      }
      case STALE_SINGLE:
        if (has_previous_loss) {
          row = {previous_loss};
        } else {
          row = planted_loss();
          two_ends_loss = !leftmost;
        }
        break;
      case EQUAL_PAIR: {
        u64 x = rng.range(1, max_a);
        row = {x, x};
        two_ends_loss = true;
        break;
      }
      case UNEQUAL_PAIR: {
        u64 x = rng.range(1, max_a);
        u64 y = rng.range(1, max_a - 1);
        row = {x, y >= x ? y + 1 : y};
        break;
      }
      case PLANTED_LOSS:
        row = planted_loss();
        last_planted = row;
        has_last_planted = true;
        two_ends_loss = !leftmost;
        break;
      case NEAR_MISS: {
        std::vector<u64> loss;
        if (has_last_planted) {
          loss = last_planted;
          has_last_planted = false;
        } else {
          loss = planted_loss();
        }
        row = near_miss(loss);
        break;
      }
    }
    has_previous_loss = two_ends_loss;
    previous_loss = two_ends_loss ? row[0] : 0;
    return row;
  }

  std::vector<u64> next() {
    bool first = made++ == 0;
    switch (family) {
      case RANDOM: {
        size_t n = len(1);
        return uniform_row(n, max_a);
      }
      case TINY: {
        size_t n = len(1);
        return uniform_row(n, max_a < 3 ? max_a : 3);
      }
      case NEAR: {
        size_t n = len(1);
        u64 lo = rng.range(1, max_a - 1 > 1 ? max_a - 1 : 1);
        u64 hi = lo + 1 < max_a ? lo + 1 : max_a;
        std::vector<u64> row(n);
        for (auto& v : row) v = rng.range(lo, hi);
        return row;
      }
      case PALINDROME: {
        size_t n = len(1);
        std::vector<u64> row = uniform_row((n + 1) / 2, max_a);
        for (size_t i = n / 2; i-- > 0;) row.push_back(row[i]);
        return row;
      }
      case MAX: {
        std::vector<u64> row(max_n, max_a);
        if (!first) {
          u64 spread = max_a - 1 < 2 ? max_a - 1 : 2;
          for (auto& v : row) v = max_a - rng.range(0, spread);
        }
        return row;
      }
      case PLANTED: {
        bool loss;
        if (pending_loss >= 0) {
          loss = pending_loss == 1;
          pending_loss = -1;
        } else {
          loss = rng.coin();
          pending_loss = loss ? 0 : 1;
        }
        std::vector<u64> row = planted_loss();
        return loss ? row : near_miss(row);
      }
      case EXHAUSTIVE: {
        std::vector<u64> row = odometer;
        // The next row of the same length, or all ones one longer.
        size_t i = odometer.size();
        while (i > 0 && odometer[i - 1] >= max_a) i--;
        if (i > 0) {
          odometer[i - 1] += 1;
          for (size_t k = i; k < odometer.size(); k++) odometer[k] = 1;
        } else {
          odometer.assign(odometer.size() + 1, 1);
        }
        return row;
      }
      case HACK: return hack();
    }
    return {};
  }
};

// Number of rows of 1 ..= max_n piles of 1 ..= max_a stones; false when it
// does not fit 64 bits.
static bool exhaustive_rows(u64 max_n, u64 max_a, u64& total) {
  u64 layer = 1;
  total = 0;
  for (u64 k = 0; k < max_n; k++) {
    if (__builtin_mul_overflow(layer, max_a, &layer)) return false;
    if (__builtin_add_overflow(total, layer, &total)) return false;
  }
  return true;
}

static u64 number(const char* flag, const char* text) {
  if (!*text) die(std::string(flag) + " needs a number");
  u64 v = 0;
  for (const char* p = text; *p; p++) {
    if (*p < '0' || *p > '9') die(std::string(flag) + ": not a number: " + text);
    if (v > (~0ULL - (u64)(*p - '0')) / 10) die(std::string(flag) + ": too large: " + text);
    v = v * 10 + (u64)(*p - '0');
  }
  return v;
}

int main(int argc, char** argv) {
  const char* names[8] = {"random", "tiny",    "near",       "palindrome",
                          "max",    "planted", "exhaustive", "hack"};
  int family = -1;
  u64 cases = 10, max_n = 1000, max_a = 1000000000ULL, seed = 0;
  bool has_seed = false, leftmost = false;
  for (int i = 1; i < argc; i++) {
    std::string flag = argv[i];
    if (i + 1 >= argc) die(flag + " needs a value (or is not a flag of gen)");
    const char* value = argv[++i];
    if (flag == "--family") {
      for (int f = 0; f < 8; f++)
        if (std::strcmp(value, names[f]) == 0) family = f;
      if (family < 0)
        die(std::string("unknown family `") + value +
            "` (expected one of random, tiny, near, palindrome, max, planted, exhaustive, hack)");
    } else if (flag == "--cases") {
      cases = number("--cases", value);
    } else if (flag == "--max-n") {
      max_n = number("--max-n", value);
    } else if (flag == "--max-a") {
      max_a = number("--max-a", value);
    } else if (flag == "--seed") {
      seed = number("--seed", value);
      has_seed = true;
    } else if (flag == "--variant") {
      if (std::strcmp(value, "two-ends") == 0)
        leftmost = false;
      else if (std::strcmp(value, "leftmost") == 0)
        leftmost = true;
      else
        die(std::string("unknown variant `") + value + "` (expected two-ends or leftmost)");
    } else {
      die("unknown flag " + flag +
          " (usage: gen --family F --seed S [--cases T] [--max-n N] [--max-a A] [--variant V])");
    }
  }
  if (family < 0) die("--family is required");
  if (!has_seed) die("--seed is required");
  if (cases == 0) die("the number of cases must be at least 1");
  if (max_n == 0) die("max-n must be at least 1 (a row has at least one pile)");
  if (max_n > MAX_PILES) die("max-n " + std::to_string(max_n) + " is larger than 200000");
  if (max_a == 0) die("max-a must be at least 1 (every pile has at least one stone)");
  if (max_a > MAX_PILE) die("max-a " + std::to_string(max_a) + " is larger than 2^63-1");
  if ((family == PLANTED || family == HACK) && max_n < 2)
    die(std::string("family `") + names[family] + "` needs max-n of at least 2");
  u64 total = cases;
  if (family == EXHAUSTIVE) {
    u64 rows;
    if (!exhaustive_rows(max_n, max_a, rows) || rows > cases)
      die("family `exhaustive`: more rows than the " + std::to_string(cases) + " cases allowed");
    total = rows;
  }
  Gen gen((Family)family, cases, max_n, max_a, seed, leftmost);
  std::string out = std::to_string(total) + "\n";
  for (u64 k = 0; k < total; k++) {
    std::vector<u64> row = gen.next();
    out += std::to_string(row.size());
    out += '\n';
    for (size_t i = 0; i < row.size(); i++) {
      if (i) out += ' ';
      out += std::to_string(row[i]);
    }
    out += '\n';
    if (out.size() >= (1 << 16)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}
