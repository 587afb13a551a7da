// Interactor (output validator) of the stonegame problem package,
// interactive version (written by `stonegame package --interactive`; the
// project's own code, src/package/assets/). It plays the bot of
// `stonegame interact` (docs/play.md) against the team's program.
//
// Kattis / ICPC conventions: `interactor input judge_answer feedback_dir
// [flags] < team_output > team_input`; exit 42 when the program won every
// game, 43 otherwise, the reason in feedback_dir/judgemessage.txt. The
// judge answer is not read (it is empty). The input holds the games: T,
// then per game n and the piles.
//
// Protocol, one line per message: the judge writes T, then per game n and
// the piles; the program answers FIRST or SECOND (the seat it takes, which
// must be the winning one); then whoever is to move writes `L k` or `R k`
// (take k >= 1 stones from the leftmost or the rightmost pile). A game ends
// when the last pile is taken; whoever takes it wins. On the first failure
// the judge writes -1 and stops.
//
// The bot plays a winning move whenever it has one (the tables of
// docs/game.md, O(n^2) per game) and otherwise takes at least half of a
// random end pile (seeded: the same input, the same games).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

typedef unsigned long long u64;
static const int LEFTMOST = @LEFTMOST@;
static const u64 SEED = @SEED@ULL;
static const size_t MAX_LINE = 4096;

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

static u64 splitmix(u64& s) {
  u64 z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
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
    u64 rng = SEED ^ (game_no * 0xd1342543de82ef95ULL);
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
        if (!g.winning_move(side, k)) {
          // Lost: take at least half of a random end pile.
          side = (LEFTMOST || g.lo == g.hi || splitmix(rng) % 2 == 0) ? 'L' : 'R';
          u64 pile = side == 'L' ? g.x : g.y;
          u64 least = (pile + 1) / 2;
          k = least + splitmix(rng) % (pile - least + 1);
        }
        std::cout << side << " " << k << std::endl;
      }
      g.apply(side, k);
      ply++;
      total_plies++;
      if (g.over() && !program_to_move)
        wrong("lost: the judge took the last pile at ply " + std::to_string(ply - 1));
      program_to_move = !program_to_move;
    }
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
                  std::to_string(total_plies) + (total_plies == 1 ? " ply" : " plies"));
}
