// Interactor (output validator) of the stonegame problem package,
// interactive version with tempo (written by `stonegame package
// --interactive --tempo`; the project's own code, src/package/assets/). It
// plays the bot of `stonegame interact --tempo` (docs/play.md) against the
// team's program: every game must be won, and within the remoteness of its
// row (docs/game.md section 5: the plies of perfect play when the winner
// wins as fast as possible and the loser resists as long as possible).
//
// Kattis / ICPC conventions: `interactor input judge_answer feedback_dir
// [flags] < team_output > team_input`; exit 42 when the program won every
// game within its remoteness, 43 otherwise, the reason in
// feedback_dir/judgemessage.txt. The judge answer is not read (it is
// empty). The input holds the games: T, then per game n and the piles.
//
// Protocol, one line per message: the judge writes T, then per game n and
// the piles; the program answers FIRST or SECOND (the seat it takes, which
// must be the winning one); then whoever is to move writes `L k` or `R k`
// (take k >= 1 stones from the leftmost or the rightmost pile). A game ends
// when the last pile is taken; whoever takes it wins. On the first failure
// the judge writes -1 and stops.
//
// The bot plays with tempo, by exact remoteness: a fastest winning move,
// or when lost a move that resists longest; ties go to the left pile, then
// to the move leaving more stones (core::remoteness::best_move). So a
// program that wins with tempo wins in exactly the remoteness, and a slower
// win shows. The remoteness of every child of the live position (x, I, y)
// comes from the DP of submissions/accepted/solution.cpp of the remoteness
// package (`stonegame package --task remoteness`; copied verbatim below):
// P(x) = rem(x, I) and Q(y) = rem(I, y) of every segment, kept for the
// game (O(n^2 k) time and memory, k pieces a function), the curve C of I,
// then rem(x', I, y) and rem(x, I, y') for every x', y'. The curve is kept
// while the interior stays, so a ply costs O(k).
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

typedef unsigned long long u64;
static const int LEFTMOST = @LEFTMOST@;  // always 0: --tempo is for the two-ends game
static const size_t MAX_LINE = 4096;

typedef __int128 i128;

static const i128 END = (i128)1 << 66;  // beyond every pile and table entry
static const i128 INF = (i128)1 << 120; // "no such child"

struct Piece {
  i128 start, value, slope;
  i128 at(i128 x) const { return value + slope * (x - start); }
};
struct Shift {
  i128 start, end, shift;
};

struct Pl {
  std::vector<Piece> p;
  void clear() { p.clear(); }
  i128 end_of(size_t k) const { return k + 1 < p.size() ? p[k + 1].start : END; }
  void push(i128 start, i128 value, i128 slope) {
    if (start >= END) return;
    while (!p.empty() && p.back().start == start) p.pop_back();
    if (!p.empty() && p.back().slope == slope && p.back().at(start) == value) return;
    p.push_back({start, value, slope});
  }
  size_t find(i128 x) const {
    size_t lo = 0, hi = p.size();  // the last piece with start <= x
    while (hi - lo > 1) {
      size_t mid = (lo + hi) / 2;
      if (p[mid].start <= x) lo = mid;
      else hi = mid;
    }
    return lo;
  }
  i128 eval(i128 x) const { return p[find(x)].at(x); }
  void add(i128 c) {
    for (auto& q : p) q.value += c;
  }
  void set_indicator(const std::vector<std::pair<i128, i128>>& ranges, i128 inside, i128 outside) {
    clear();
    push(0, outside, 0);
    for (auto& r : ranges) {
      push(r.first, inside, 0);
      push(r.second, outside, 0);
    }
  }
  // out = this with the value v at the single point x.
  void set_point_into(i128 x, i128 v, Pl& out) const {
    out.clear();
    for (size_t k = 0; k < p.size(); k++) {
      i128 e = end_of(k);
      if (e <= x || p[k].start > x) {
        out.push(p[k].start, p[k].value, p[k].slope);
        continue;
      }
      if (p[k].start < x) out.push(p[k].start, p[k].value, p[k].slope);
      out.push(x, v, 0);
      if (x + 1 < e) out.push(x + 1, p[k].at(x + 1), p[k].slope);
    }
  }
  // out = pointwise max (or min) of this and o.
  void combine_into(const Pl& o, bool max, Pl& out) const {
    i128 sign = max ? 1 : -1;
    out.clear();
    size_t ia = 0, ib = 0;
    i128 t = 0;
    while (t < END) {
      const Piece &a = p[ia], &b = o.p[ib];
      i128 ea = end_of(ia), eb = o.end_of(ib), e = std::min(ea, eb);
      i128 va = a.at(t), vb = b.at(t);
      i128 d = sign * (va - vb), ds = sign * (a.slope - b.slope);
      i128 d_last = d + ds * (e - 1 - t);
      if (d >= 0 && d_last >= 0) {
        out.push(t, va, a.slope);
      } else if (d <= 0 && d_last <= 0) {
        out.push(t, vb, b.slope);
      } else if (d > 0) {
        i128 k = d / (-ds) + 1;
        out.push(t, va, a.slope);
        out.push(t + k, b.at(t + k), b.slope);
      } else {
        i128 k = (-d) / ds + 1;
        out.push(t, vb, b.slope);
        out.push(t + k, a.at(t + k), a.slope);
      }
      t = e;
      if (ea == e) ia++;
      if (eb == e) ib++;
    }
  }
  // out = this o inner (inner covers 0 .. END in order).
  void compose_into(const std::vector<Shift>& inner, Pl& out) const {
    out.clear();
    for (auto& sh : inner) {
      i128 lo = sh.start + sh.shift, hi = sh.end + sh.shift;
      size_t k = find(lo);
      i128 x = lo;
      while (x < hi) {
        out.push(x - sh.shift, p[k].at(x), p[k].slope);
        x = end_of(k);
        k++;
      }
    }
  }
};

// f(y): the left pile that makes (f(y), I, y) lost, and its inverse, for an
// interior with table values (l, r).
static i128 curve(i128 l, i128 r, i128 y) {
  if (y == 0) return l;
  if (y == r) return 0;
  if (l < r && l <= y && y < r) return y + 1;
  if (l > r && r < y && y <= l) return y - 1;
  return y;
}
static i128 curve_inv(i128 l, i128 r, i128 x) {
  if (x == 0) return r;
  if (x == l) return 0;
  if (l < r && l < x && x <= r) return x - 1;
  if (l > r && r <= x && x < l) return x + 1;
  return x;
}
static std::vector<Shift> shifts(std::initializer_list<Shift> parts) {
  std::vector<Shift> out;
  for (auto& s : parts)
    if (s.start < s.end) out.push_back(s);
  return out;
}
static std::vector<Shift> curve_shifts(i128 l, i128 r) {
  if (l == 0) return shifts({{0, END, 0}});
  if (l == r) return shifts({{0, 1, l}, {1, r, 0}, {r, r + 1, -r}, {r + 1, END, 0}});
  if (l < r) return shifts({{0, 1, l}, {1, l, 0}, {l, r, 1}, {r, r + 1, -r}, {r + 1, END, 0}});
  return shifts({{0, 1, l}, {1, r, 0}, {r, r + 1, -r}, {r + 1, l + 1, -1}, {l + 1, END, 0}});
}
static std::vector<Shift> curve_inv_shifts(i128 l, i128 r) {
  if (l == 0) return shifts({{0, END, 0}});
  if (l == r) return shifts({{0, 1, r}, {1, l, 0}, {l, l + 1, -l}, {l + 1, END, 0}});
  if (l < r) return shifts({{0, 1, r}, {1, l, 0}, {l, l + 1, -l}, {l + 1, r + 1, -1}, {r + 1, END, 0}});
  return shifts({{0, 1, r}, {1, r, 0}, {r, l, 1}, {l, l + 1, -l}, {l + 1, END, 0}});
}
// The ranges of x (in order) where inner(x) < hi, within from .. END.
static std::vector<std::pair<i128, i128>> ranges_below(const std::vector<Shift>& inner, i128 hi,
                                                       i128 from) {
  std::vector<std::pair<i128, i128>> out;
  for (auto& sh : inner) {
    i128 s = std::max(sh.start, from), e = std::min(sh.end, hi - sh.shift);
    if (s < e) {
      if (!out.empty() && out.back().second == s) out.back().second = e;
      else out.push_back({s, e});
    }
  }
  return out;
}

static Pl A, B, MASK, C;

// C(0) = c0, C(forced y) = its value, elsewhere on 1 .. END
// C(y) = max(2 + max_{1 <= y' < y} C(y'), g(y)).
static void running_max(const Pl& g, bool has_forced, i128 fy, i128 fv, i128 c0, Pl& out) {
  out.clear();
  out.push(0, c0, 0);
  bool has_best = false;
  i128 best = 0;
  auto run = [&](i128 s, i128 e, i128 gv, i128 slope) {
    i128 last = e - 1 - s;
    if (!has_best) {
      i128 sl = std::max(slope, (i128)2);
      out.push(s, gv, sl);
      best = gv + sl * last;
      has_best = true;
      return;
    }
    i128 a = best + 2;
    if (slope < 2) {
      i128 v = std::max(a, gv);
      out.push(s, v, 2);
      best = v + 2 * last;
    } else if (gv >= a) {
      out.push(s, gv, slope);
      best = gv + slope * last;
    } else if (slope == 2) {
      out.push(s, a, 2);
      best = a + 2 * last;
    } else {
      i128 d = a - gv, k = (d + slope - 3) / (slope - 2);
      out.push(s, a, 2);
      if (k <= last) out.push(s + k, gv + slope * k, slope);
      best = std::max(a + 2 * last, gv + slope * last);
    }
  };
  for (size_t k = 0; k < g.p.size(); k++) {
    const Piece& piece = g.p[k];
    i128 s = std::max(piece.start, (i128)1), e = g.end_of(k);
    if (s >= e) continue;
    if (has_forced && s <= fy && fy < e) {
      if (s < fy) run(s, fy, piece.at(s), piece.slope);
      out.push(fy, fv, 0);
      best = has_best ? std::max(best, fv) : fv;
      has_best = true;
      if (fy + 1 < e) run(fy + 1, e, piece.at(fy + 1), piece.slope);
    } else {
      run(s, e, piece.at(s), piece.slope);
    }
  }
}

// Into C: the curve of an interior with tables (l, r), from p(x) = rem(x, I)
// and q(y) = rem(I, y).
static void curve_remoteness(const Pl& p, const Pl& q, i128 l, i128 r) {
  i128 c0 = p.eval(l);
  p.compose_into(curve_shifts(l, r), A);
  A.combine_into(q, true, B);
  if (l >= 1) {
    i128 from = l < r ? l : l + 1;
    MASK.set_indicator({{from, END}}, c0 + 1, -INF);
    B.combine_into(MASK, true, A);
    std::swap(A, B);
  }
  B.add(1);
  running_max(B, r >= 1, r, r >= 1 ? q.eval(r) : 0, c0, C);
}

static void finish(const Pl& m, i128 v0, i128 point, i128 v, Pl& tmp, Pl& out) {
  if (point >= 1) {
    m.set_point_into(0, v0, tmp);
    tmp.set_point_into(point, v, out);
  } else {
    m.set_point_into(0, v0, out);
  }
}

// P(x) = rem(x, I, y_end) from the curve C, with P(0) = p0.
static void left_free(i128 l, i128 r, i128 y_end, i128 p0, Pl& out) {
  i128 fy = curve(l, r, y_end), cy = C.eval(y_end);
  std::vector<Shift> inv = curve_inv_shifts(l, r);
  C.compose_into(inv, A);
  MASK.set_indicator(ranges_below(inv, y_end, 0), -INF, INF);
  A.combine_into(MASK, true, B);
  MASK.set_indicator({{fy + 1, END}}, cy, INF);
  B.combine_into(MASK, false, A);
  A.add(1);
  finish(A, p0, fy, cy, B, out);
}

// Q(y) = rem(x_end, I, y) from the curve C, with Q(0) = q0.
static void right_free(i128 l, i128 r, i128 x_end, i128 q0, Pl& out) {
  i128 yx = curve_inv(l, r, x_end), cx = C.eval(yx);
  std::vector<Shift> f = curve_shifts(l, r);
  MASK.set_indicator(ranges_below(f, x_end, 0), -INF, INF);
  C.combine_into(MASK, true, A);
  MASK.set_indicator({{yx + 1, END}}, cx, INF);
  A.combine_into(MASK, false, B);
  B.add(1);
  finish(B, q0, yx, cx, A, out);
}

static std::string feedback_dir;
static u64 game_no = 0, ply = 0, total_plies = 0;
static bool closed = false;  // the program's input is closed

[[noreturn]] static void verdict(int code, const std::string& message) {
  if (code == 43 && !closed) {
    std::cout << "-1" << std::endl;
  }
  std::ofstream out(feedback_dir + "/judgemessage.txt");
  out << message << "\n";
  out.close();  // std::exit destroys no local object: flush it first
  std::cerr << message << "\n";
  std::exit(code);
}

[[noreturn]] static void wrong(const std::string& message) {
  verdict(43, "wrong answer game " + std::to_string(game_no) + ", ply " + std::to_string(ply) +
                  ": " + message);
}

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

  // Why `side k` is illegal, or "" if it is legal.
  std::string illegal(char side, u64 k) const {
    if (k == 0) return "takes no stones";
    if (LEFTMOST && side == 'R') return "takes from the right pile in the leftmost-only game";
    u64 pile = side == 'L' ? x : y;
    if (k > pile)
      return std::string("cannot take ") + std::to_string(k) + " from the " +
             (side == 'L' ? "left" : "right") + " pile: it holds " + std::to_string(pile);
    return "";
  }
};

// The layers of remoteness() in the remoteness package's solution.cpp, all
// of them kept (s = 1 .. n - 1): P[s][i] = rem(x, a[i+1 .. i+s-1]) and
// Q[s][i] = rem(a[i .. i+s-2], y), the functions of the segment of s piles
// from i. O(n^2 k) time and memory.
static void layers(const std::vector<u64>& piles, std::vector<std::vector<Pl>>& P,
                   std::vector<std::vector<Pl>>& Q) {
  int n = (int)piles.size();
  Pl unit;
  unit.push(0, 0, 0);
  unit.push(1, 1, 0);
  P.assign(n, std::vector<Pl>());
  Q.assign(n, std::vector<Pl>());
  if (n < 2) return;
  P[1].assign(n, unit);
  Q[1].assign(n, unit);
  // left/right tables of the interiors of the current segments.
  std::vector<u64> tl(piles), tr(piles);
  int k = 1;
  for (int s = 2; s < n; s++) {
    if (s >= 4) {
      for (int i = 0; i < n - k; i++) {
        u64 l = lose_beside(tl[i], tr[i], piles[i + k]);
        u64 r = lose_beside(tr[i + 1], tl[i + 1], piles[i]);
        tl[i] = l;
        tr[i] = r;
      }
      k++;
    }
    P[s].resize(n - s + 1);
    Q[s].resize(n - s + 1);
    for (int i = 0; i + s <= n; i++) {
      int j = i + s - 1;
      i128 l = 0, r = 0;
      if (s == 2) {
        C.clear();
        C.push(0, 0, 2);
      } else {
        l = tl[i + 1];
        r = tr[i + 1];
        curve_remoteness(P[s - 1][i], Q[s - 1][i + 1], l, r);
      }
      i128 p0 = Q[s - 1][i + 1].eval(piles[j]), q0 = P[s - 1][i].eval(piles[i]);
      left_free(l, r, piles[j], p0, P[s][i]);
      right_free(l, r, piles[i], q0, Q[s][i]);
    }
  }
}

static std::string str(i128 v) {
  std::string s;
  do {
    s.insert(s.begin(), (char)('0' + (int)(v % 10)));
    v /= 10;
  } while (v > 0);
  return s;
}

// The remoteness of a game's live position (x, I, y) and of its children.
struct Tempo {
  int ilo = -1, ihi = -1;  // the live row a[ilo..ihi] whose interior's curve is in C
  i128 l = 0, r = 0;       // the tables of that interior I
  Pl P, Q;                 // rem(x, I) and rem(I, y)
  Pl PL, QR;               // rem(x', I, y) and rem(x, I, y') of the live position
  std::vector<std::vector<Pl>> LP, LQ;  // the layers of the game's row

  // A new game: the layers of its row.
  void start(const Game& g) {
    ilo = ihi = -1;
    layers(g.a, LP, LQ);
  }

  // P, Q and the curve C of the interior of g's live row, when it changed.
  void interior(const Game& g) {
    if (g.lo == ilo && g.hi == ihi) return;
    ilo = g.lo;
    ihi = g.hi;
    int m = ihi - ilo + 1;
    if (m == 2) {
      P.clear();
      P.push(0, 0, 0);
      P.push(1, 1, 0);
      Q = P;
      l = r = 0;
      C.clear();
      C.push(0, 0, 2);
      return;
    }
    P = LP[m - 1][ilo];
    Q = LQ[m - 1][ilo + 1];
    l = g.left[(size_t)(ilo + 1) * g.n + ihi - 1];
    r = g.right[(size_t)(ilo + 1) * g.n + ihi - 1];
    curve_remoteness(P, Q, l, r);
  }

  // The remoteness of g's live position; PL and QR those of its children.
  i128 solve(const Game& g) {
    if (g.lo == g.hi) return 1;
    interior(g);
    left_free(l, r, g.y, Q.eval(g.y), PL);
    right_free(l, r, g.x, P.eval(g.x), QR);
    return PL.eval(g.x);
  }

  // The move of perfect play with tempo: a fastest winning move, or when
  // lost one that resists longest; on a tie the left pile, then the move
  // that leaves more stones.
  void best_move(const Game& g, char& side, u64& k) {
    if (g.lo == g.hi) {
      side = 'L';
      k = g.x;
      return;
    }
    bool wins = solve(g) % 2 == 1;
    bool found = false;
    i128 best = 0, best_left = 0;
    char best_side = 'L';
    for (int e = 0; e < 2; e++) {
      const Pl& f = e == 0 ? PL : QR;
      char s = e == 0 ? 'L' : 'R';
      i128 top = e == 0 ? g.x : g.y;  // the move leaves 0 .. top - 1 stones
      for (size_t i = 0; i < f.p.size() && f.p[i].start < top; i++) {
        // A linear piece: its extremes among the even (or all) values are
        // at most one step from its ends.
        i128 lo = f.p[i].start, hi = std::min(f.end_of(i), top) - 1;
        i128 at[4] = {lo, lo + 1, hi - 1, hi};
        for (i128 t : at) {
          if (t < lo || t > hi) continue;
          i128 v = f.p[i].at(t);
          if (wins && v % 2 != 0) continue;  // a winning move leaves a lost position
          if (!found || (wins ? v < best : v > best) ||
              (v == best && s == best_side && t > best_left)) {
            found = true;
            best = v;
            best_side = s;
            best_left = t;
          }
        }
      }
    }
    side = best_side;
    k = (u64)((side == 'L' ? g.x : g.y) - best_left);
  }
};

// The program's next line, without its '\n'; false when its output ended.
static bool read_line(std::string& line) {
  line.clear();
  int c;
  bool any = false;
  while ((c = std::getchar()) != EOF) {
    any = true;
    if (c == '\n') return true;
    if (line.size() > MAX_LINE) wrong("a line longer than 4096 bytes");
    line.push_back((char)c);
  }
  return any && !line.empty();
}

static void parse_move(const std::string& line, char& side, u64& k) {
  bool ok = line.size() >= 3 && (line[0] == 'L' || line[0] == 'R') && line[1] == ' ' &&
            line.size() <= 22;
  for (size_t i = 2; ok && i < line.size(); i++) ok = line[i] >= '0' && line[i] <= '9';
  if (!ok) wrong("expected a move `L k` or `R k`, got \"" + line.substr(0, 64) + "\"");
  side = line[0];
  k = 0;
  for (size_t i = 2; i < line.size(); i++) {
    u64 d = line[i] - '0';
    if (k > (~0ULL - d) / 10) wrong("the number in \"" + line + "\" is too large");
    k = k * 10 + d;
  }
}

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  if (argc < 4) {
    std::cerr << "usage: " << argv[0] << " input judge_answer feedback_dir [flags]\n";
    return 1;
  }
  feedback_dir = argv[3];
  std::ifstream input(argv[1]);
  u64 t;
  if (!input || !(input >> t)) {
    std::ofstream(feedback_dir + "/judgeerror.txt") << "cannot read the input\n";
    return 1;
  }
  std::cout << t << std::endl;
  Game g;
  Tempo tempo;
  u64 won_first = 0;
  for (game_no = 1; game_no <= t; game_no++) {
    int n;
    input >> n;
    std::vector<u64> piles(n);
    for (auto& v : piles) input >> v;
    std::cout << n << "\n";
    for (int i = 0; i < n; i++) std::cout << (i ? " " : "") << piles[i];
    std::cout << std::endl;
    g.init(piles);
    tempo.start(g);
    i128 remoteness = tempo.solve(g);  // the most plies a win may take
    char side;
    u64 k;
    bool first_wins = g.winning_move(side, k);
    ply = 0;
    std::string line;
    if (!read_line(line)) wrong("the program's output ended before it chose a seat");
    if (line != "FIRST" && line != "SECOND")
      wrong("expected FIRST or SECOND, got \"" + line.substr(0, 64) + "\"");
    bool program_first = line == "FIRST";
    if (program_first != first_wins)
      wrong("the program took the seat " + line + ", which loses against perfect play");
    if (program_first) won_first++;
    bool program_to_move = program_first;
    while (!g.over()) {
      if (program_to_move) {
        if (!read_line(line)) wrong("the program's output ended when it was to move");
        parse_move(line, side, k);
        std::string why = g.illegal(side, k);
        if (!why.empty()) wrong("illegal move `" + line + "`: " + why);
      } else {
        tempo.best_move(g, side, k);
        std::cout << side << " " << k << std::endl;
      }
      g.apply(side, k);
      ply++;
      total_plies++;
      if (g.over() && !program_to_move)
        wrong("lost: the judge took the last pile at ply " + std::to_string(ply - 1));
      program_to_move = !program_to_move;
    }
    if ((i128)ply > remoteness)
      verdict(43, "wrong answer game " + std::to_string(game_no) + ": won, but too slowly: took " +
                      std::to_string(ply) + " plies, perfect play takes " + str(remoteness) +
                      " (the winner must win within the remoteness of the row)");
  }
  // After the last game: close the program's input, and wait for its
  // output to end; anything but whitespace there is a wrong answer.
  std::cout.flush();
  std::fclose(stdout);
  closed = true;
  int c;
  while ((c = std::getchar()) != EOF)
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
      verdict(43, "wrong answer: output after the last game (byte " + std::to_string(c) + ")");
  verdict(42, "ok: " + std::to_string(t) + " cases, every game won (" + std::to_string(won_first) +
                  " as FIRST, " + std::to_string(t - won_first) + " as SECOND), " +
                  std::to_string(total_plies) + (total_plies == 1 ? " ply" : " plies") +
                  ", each game within its remoteness");
}
