// Input validator of the stonegame problem package (written by
// `stonegame package`; the project's own code, src/package/assets/).
//
// Kattis / ICPC problem package conventions: the test input on stdin; exit
// 42 if it is valid, 43 if not, with the line, column and reason on stderr.
// The format is strict: exactly the bytes the statement describes.
//
//   T                      1 <= T <= MAX_T
//   n                      1 <= n <= MAX_N          (T times)
//   a_1 a_2 ... a_n        1 <= a_i <= MAX_A, one space between, none around
//
// Numbers are decimal digits only, without sign or leading zeros; every line
// (the last one too) ends with a single '\n'; nothing follows the last case.
//
// `--constraints_file FILE` (BAPCtools' constraints check): on a valid input,
// also write the smallest and largest T, n and a_i seen and their bounds.
#include <cstdio>
#include <cstdlib>
#include <string>

typedef unsigned long long u64;

static const u64 MAX_T = @MAX_T@ULL;
static const u64 MAX_N = @MAX_N@ULL;
static const u64 MAX_A = @MAX_A@ULL;

static std::string data;
// The values seen, for --constraints_file: [T, n, a] x [min, max].
static u64 seen_min[3] = {~0ULL, ~0ULL, ~0ULL}, seen_max[3] = {0, 0, 0};

static void saw(int which, u64 v) {
  if (v < seen_min[which]) seen_min[which] = v;
  if (v > seen_max[which]) seen_max[which] = v;
}
static size_t pos = 0;
static u64 line = 1, column = 1;

static std::string shown(size_t at) {
  if (at >= data.size()) return "the end of the file";
  unsigned char c = data[at];
  char buf[32];
  if (c == '\n') return "a line end";
  if (c == '\r') return "a carriage return (CRLF line ends are not allowed)";
  if (c == ' ') return "a space";
  if (c >= 33 && c < 127) {
    std::snprintf(buf, sizeof buf, "`%c`", c);
  } else {
    std::snprintf(buf, sizeof buf, "the byte 0x%02x", c);
  }
  return buf;
}

[[noreturn]] static void reject(const std::string& reason) {
  std::fprintf(stderr, "line %llu, column %llu: %s\n", line, column, reason.c_str());
  std::exit(43);
}

static void advance() {
  if (data[pos] == '\n') {
    line++;
    column = 1;
  } else {
    column++;
  }
  pos++;
}

// A number in 1 ..= max, `what` naming it in messages.
static u64 number(const std::string& what, u64 max) {
  if (pos >= data.size() || data[pos] < '0' || data[pos] > '9')
    reject("expected " + what + ", found " + shown(pos));
  if (data[pos] == '0' && pos + 1 < data.size() && data[pos + 1] >= '0' && data[pos + 1] <= '9')
    reject(what + " has a leading zero");
  u64 value = 0;
  bool big = false;
  u64 sline = line, scol = column;
  while (pos < data.size() && data[pos] >= '0' && data[pos] <= '9') {
    u64 d = data[pos] - '0';
    if (value > (~0ULL - d) / 10) big = true;
    else value = value * 10 + d;
    advance();
  }
  if (big || value > max) {
    line = sline;
    column = scol;
    reject(what + " is larger than " + std::to_string(max));
  }
  if (value == 0) {
    line = sline;
    column = scol;
    reject(what + " is 0; it must be at least 1");
  }
  return value;
}

static void expect(char c, const std::string& what) {
  if (pos >= data.size() || data[pos] != c) reject("expected " + what + ", found " + shown(pos));
  advance();
}

int main(int argc, char** argv) {
  const char* constraints_file = nullptr;
  for (int i = 1; i + 1 < argc; i++)
    if (std::string(argv[i]) == "--constraints_file") constraints_file = argv[i + 1];
  int c;
  while ((c = std::getchar()) != EOF) data.push_back((char)c);
  u64 t = number("the number of cases T", MAX_T);
  saw(0, t);
  expect('\n', "a line end after T");
  for (u64 k = 1; k <= t; k++) {
    std::string in_case = " of case " + std::to_string(k);
    if (pos >= data.size())
      reject("the file ends after " + std::to_string(k - 1) + " cases, T is " + std::to_string(t));
    u64 n = number("the number of piles n" + in_case, MAX_N);
    saw(1, n);
    expect('\n', "a line end after n" + in_case);
    for (u64 i = 1; i <= n; i++) {
      if (i > 1) expect(' ', "a space before pile " + std::to_string(i) + in_case);
      saw(2, number("pile " + std::to_string(i) + in_case, MAX_A));
    }
    expect('\n', "a line end after the " + std::to_string(n) + " piles" + in_case);
  }
  if (pos < data.size())
    reject("expected the end of the file after the " + std::to_string(t) + " cases, found " + shown(pos));
  if (constraints_file) {
    // BAPCtools' format: location name has_low has_high min max low high.
    FILE* f = std::fopen(constraints_file, "w");
    if (!f) return 1;
    const char* names[3] = {"T", "n", "a_i"};
    const u64 high[3] = {MAX_T, MAX_N, MAX_A};
    for (int i = 0; i < 3; i++)
      std::fprintf(f, "validate.cpp:%s %s %d %d %llu %llu 1 %llu\n", names[i], names[i],
                   seen_min[i] == 1, seen_max[i] == high[i], seen_min[i], seen_max[i], high[i]);
    std::fclose(f);
  }
  return 42;
}
