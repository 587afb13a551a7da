// Output validator (checker) of the stonegame remoteness package (written
// by `stonegame package --task remoteness`; the project's own code,
// src/package/assets/).
//
// Kattis / ICPC conventions: `checker input judge_answer feedback_dir
// [flags] < team_output`; exit 42 accepted, 43 wrong answer, the reason in
// feedback_dir/judgemessage.txt (and on stderr).
//
// The team's output is read as whitespace-separated tokens (the problem
// format's default, `space_change_sensitive` unset): exactly T tokens, each
// a decimal integer without sign or leading zeros, the k-th equal to the
// k-th line of the judge's answer (written by the project's solver). The
// numbers are compared exactly, as strings of digits: they may exceed
// 2^64 - 1. Anything else is a wrong answer.
//
// Flags after the three paths are ignored, `--constraints_file FILE` among
// them.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

static std::string feedback_dir;

[[noreturn]] static void verdict(int code, const std::string& message) {
  std::ofstream out(feedback_dir + "/judgemessage.txt");
  out << message << "\n";
  out.close();  // std::exit destroys no local object: flush it first
  std::cerr << message << "\n";
  std::exit(code);
}

[[noreturn]] static void judge_error(const std::string& message) {
  std::ofstream out(feedback_dir + "/judgeerror.txt");
  out << message << "\n";
  out.close();
  std::cerr << "judge error: " << message << "\n";
  std::exit(1);
}

// The next whitespace-separated token of `in`, at most 64 bytes of it kept
// (a longer one is marked by a 65th byte); false at the end.
static bool token(std::istream& in, std::string& tok) {
  tok.clear();
  int c;
  while ((c = in.get()) != EOF && std::isspace(c)) {
  }
  if (c == EOF) return false;
  do {
    if (tok.size() <= 64) tok.push_back((char)c);
  } while ((c = in.get()) != EOF && !std::isspace(c));
  return true;
}

// A decimal integer: digits only, no leading zero (but `0` itself).
static bool is_number(const std::string& tok) {
  if (tok.empty() || tok.size() > 64) return false;
  for (char c : tok)
    if (c < '0' || c > '9') return false;
  return tok.size() == 1 || tok[0] != '0';
}

static std::string shown(const std::string& tok) {
  return tok.size() > 64 ? tok.substr(0, 64) + "..." : tok;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: " << argv[0] << " input judge_answer feedback_dir [flags] < team_output\n";
    return 1;
  }
  feedback_dir = argv[3];
  std::ifstream input(argv[1]), answer(argv[2]);
  if (!input) judge_error(std::string("cannot open the input ") + argv[1]);
  if (!answer) judge_error(std::string("cannot open the answer ") + argv[2]);
  unsigned long long t;
  if (!(input >> t) || t == 0) judge_error("the input does not start with the number of cases");
  std::vector<std::string> expected;
  std::string tok;
  while (token(answer, tok)) {
    if (!is_number(tok)) judge_error("the judge's answer holds `" + shown(tok) + "`");
    expected.push_back(tok);
  }
  if (expected.size() != t)
    judge_error("the judge's answer has " + std::to_string(expected.size()) + " lines for " +
                std::to_string(t) + " cases");
  unsigned long long wrong = 0, first = 0;
  std::string first_expected, first_got;
  for (unsigned long long k = 1; k <= t; k++) {
    if (!token(std::cin, tok))
      verdict(43, "case " + std::to_string(k) + ": no answer (the output ends after " +
                      std::to_string(k - 1) + " of " + std::to_string(t) + " answers)");
    if (!is_number(tok))
      verdict(43, "case " + std::to_string(k) + ": expected a decimal integer, found `" +
                      shown(tok) + "`");
    if (tok != expected[k - 1] && wrong++ == 0) {
      first = k;
      first_expected = expected[k - 1];
      first_got = tok;
    }
  }
  if (token(std::cin, tok))
    verdict(43, "more output after the " + std::to_string(t) + " answers: `" + shown(tok) + "`");
  if (wrong > 0)
    verdict(43, "wrong answer case " + std::to_string(first) + ": expected " + first_expected +
                    ", got " + first_got + " (" + std::to_string(wrong) + " of " +
                    std::to_string(t) + " cases wrong)");
  verdict(42, "ok: " + std::to_string(t) + " cases");
}
