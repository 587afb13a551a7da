// Output validator (checker) of the stonegame problem package, batch
// version (written by `stonegame package`; the project's own code,
// src/package/assets/).
//
// Kattis / ICPC conventions: `checker input judge_answer feedback_dir
// [flags] < team_output`; exit 42 accepted, 43 wrong answer, the reason in
// feedback_dir/judgemessage.txt (and on stderr).
//
// The team's output is read as whitespace-separated tokens (the problem
// format's default, `space_change_sensitive` unset): exactly T tokens, each
// `0` or `1`, the k-th equal to the k-th line of the judge's answer (written
// by the project's solver). Anything else is a wrong answer.
//
// Flags after the three paths are ignored, `--constraints_file FILE` among
// them (BAPCtools runs the output validator on the judge's answers too; the
// answers have no numeric bounds beyond 0 and 1 to report).
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

// The next whitespace-separated token of `in`, at most 32 bytes of it kept;
// false at the end.
static bool token(std::istream& in, std::string& tok) {
  tok.clear();
  int c;
  while ((c = in.get()) != EOF && std::isspace(c)) {
  }
  if (c == EOF) return false;
  do {
    if (tok.size() < 32) tok.push_back((char)c);
  } while ((c = in.get()) != EOF && !std::isspace(c));
  return true;
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
  std::vector<char> expected;
  std::string tok;
  while (token(answer, tok)) {
    if (tok != "0" && tok != "1") judge_error("the judge's answer holds `" + tok + "`");
    expected.push_back(tok[0]);
  }
  if (expected.size() != t)
    judge_error("the judge's answer has " + std::to_string(expected.size()) + " lines for " +
                std::to_string(t) + " cases");
  unsigned long long wrong = 0, first = 0;
  char first_expected = 0, first_got = 0;
  for (unsigned long long k = 1; k <= t; k++) {
    if (!token(std::cin, tok))
      verdict(43, "case " + std::to_string(k) + ": no answer (the output ends after " +
                      std::to_string(k - 1) + " of " + std::to_string(t) + " answers)");
    if (tok != "0" && tok != "1")
      verdict(43, "case " + std::to_string(k) + ": expected `0` or `1`, found `" + tok + "`");
    if (tok[0] != expected[k - 1]) {
      if (wrong++ == 0) {
        first = k;
        first_expected = expected[k - 1];
        first_got = tok[0];
      }
    }
  }
  if (token(std::cin, tok))
    verdict(43, "more output after the " + std::to_string(t) + " answers: `" + tok + "`");
  if (wrong > 0)
    verdict(43, "wrong answer case " + std::to_string(first) + ": expected " + first_expected +
                    ", got " + first_got + " (" + std::to_string(wrong) + " of " +
                    std::to_string(t) + " cases wrong)");
  verdict(42, "ok: " + std::to_string(t) + " cases");
}
