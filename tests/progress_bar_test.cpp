// The training progress bar (nn/utils/progress_bar.h) on a std::ostringstream
// with a fake clock: time, rate and percentage formats, the status line,
// terminal redraws with '\r', and plain lines every N steps elsewhere.
#include <ember/nn/utils/progress_bar.h>

#include <cmath>
#include <sstream>
#include <string>

#include "test_helpers.h"

using Catch::Contains;
using ember::utils::ProgressBar;

namespace {

// A clock the test moves by hand.
struct FakeClock {
  double now = 100;
  ProgressBar::Clock fn() {
    return [this] { return now; };
  }
};

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("ProgressBar formats times as mm:ss, and h:mm:ss from an hour", "[progress_bar]") {
  REQUIRE(ProgressBar::format_time(0) == "00:00");
  REQUIRE(ProgressBar::format_time(5.9) == "00:05");
  REQUIRE(ProgressBar::format_time(75) == "01:15");
  REQUIRE(ProgressBar::format_time(3599) == "59:59");
  REQUIRE(ProgressBar::format_time(3600) == "1:00:00");
  REQUIRE(ProgressBar::format_time(36000 + 62) == "10:01:02");
  REQUIRE(ProgressBar::format_time(std::nan("")) == "?");
  REQUIRE(ProgressBar::format_time(-1) == "?");
}

TEST_CASE("ProgressBar formats rates with up to 3 significant decimals", "[progress_bar]") {
  REQUIRE(ProgressBar::format_rate(2245.31) == "2245");
  REQUIRE(ProgressBar::format_rate(100) == "100");
  REQUIRE(ProgressBar::format_rate(54.34) == "54.3");
  REQUIRE(ProgressBar::format_rate(7.254) == "7.25");
  REQUIRE(ProgressBar::format_rate(0) == "0.00");
  REQUIRE(ProgressBar::format_rate(INFINITY) == "?");
}

TEST_CASE("ProgressBar's line shows percent, steps, times, images/s, efficiency and values",
          "[progress_bar]") {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(938, "epoch 1/5", out, /*is_tty=*/false, clock.fn());
  REQUIRE(bar.line() == "epoch 1/5:   0% 0/938 [00:00<?, ? it/s]");
  clock.now += 12;  // 422 steps of 64 images in 12 s: 2250.7 img/s, 516 steps left: 14.67 s
  for (int s = 1; s <= 422; ++s) bar.update(s, {{"loss", 0.41234}, {"acc", 0.9}}, 64);
  bar.add_time(9.8, 0.2);
  REQUIRE(bar.line() ==
          "epoch 1/5:  44% 422/938 [00:12<00:14, 2251 img/s, eff 98%, loss=0.4123, acc=0.9]");
}

TEST_CASE("ProgressBar before the first step shows unknown remaining time and rate",
          "[progress_bar]") {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(10, "", out, false, clock.fn());
  REQUIRE(bar.line() == "  0% 0/10 [00:00<?, ? it/s]");
  clock.now += 2;
  bar.update(4);  // no images given: the rate counts steps
  REQUIRE(bar.line() == " 40% 4/10 [00:02<00:03, 2.00 it/s]");
  ProgressBar empty_bar(0, "", out, false, clock.fn());
  REQUIRE(empty_bar.line().substr(0, 8) == "100% 0/0");
}

TEST_CASE("ProgressBar off a terminal prints a plain line every N steps and the last on close",
          "[progress_bar]") {
  std::ostringstream out;
  FakeClock clock;
  {
    ProgressBar bar(25, "train", out, false, clock.fn());
    bar.set_print_every(10);
    for (int s = 1; s <= 25; ++s) {
      clock.now += 0.5;
      bar.update(s, {{"loss", 1.0 / s}}, 8);
    }
    REQUIRE(count(out.str(), "\n") == 2);  // steps 10 and 20
    bar.close();
    bar.close();  // once only
  }               // the destructor does not print again
  const std::string s = out.str();
  REQUIRE(count(s, "\n") == 3);
  REQUIRE(count(s, "\r") == 0);
  REQUIRE(count(s, "█") == 0);
  REQUIRE(s ==
          "train:  40% 10/25 [00:05<00:07, 16.0 img/s, loss=0.1]\n"
          "train:  80% 20/25 [00:10<00:02, 16.0 img/s, loss=0.05]\n"
          "train: 100% 25/25 [00:12<00:00, 16.0 img/s, loss=0.04]\n");
}

TEST_CASE("ProgressBar off a terminal prints every total/10 steps by default", "[progress_bar]") {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(100, "x", out, false, clock.fn());
  for (int s = 1; s <= 100; ++s) bar.update(s);
  bar.close();  // step 100 was printed already
  REQUIRE(count(out.str(), "\n") == 10);
}

TEST_CASE("ProgressBar on a terminal redraws one line with \\r at most every 0.1 s",
          "[progress_bar]") {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(8, "epoch 2/5", out, /*is_tty=*/true, clock.fn());
  bar.update(1, {}, 4);  // first update: drawn
  bar.update(2, {}, 4);  // same instant: skipped
  clock.now += 0.25;
  bar.update(3, {}, 4);  // drawn
  clock.now += 0.01;
  bar.update(8, {}, 4);  // the last step: always drawn
  REQUIRE(count(out.str(), "\r") == 3);
  REQUIRE(count(out.str(), "\n") == 0);
  bar.close();
  const std::string s = out.str();
  REQUIRE(count(s, "\r") == 4);
  REQUIRE(s.back() == '\n');
  // The final line: a full bar of 25 cells.
  std::string full;
  for (int i = 0; i < 25; ++i) full += "█";
  REQUIRE_THAT(s, Contains("\repoch 2/5: 100%|" + full + "| 8/8 [00:00<00:00, 61.5 img/s]\n"));
}

TEST_CASE("ProgressBar's terminal bar fills in eighths and blanks a longer previous line",
          "[progress_bar]") {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar(200, "", out, true, clock.fn());
  clock.now += 1;
  bar.update(9, {{"a_long_value_name", 1}});  // 9/200 of 25 cells = 1.125 cells: "█▏"
  REQUIRE_THAT(bar.line(), Contains("  4%|█▏" + std::string(23, ' ') + "| 9/200"));
  clock.now += 1;
  bar.update(10, {{"b", 1}});
  const std::string s = out.str();
  const std::string second = s.substr(s.rfind('\r') + 1);
  REQUIRE(second.substr(0, bar.line().size()) == bar.line());
  // Trailing spaces cover what the longer first line left on screen.
  REQUIRE(second.size() > bar.line().size());
  REQUIRE(second.find_first_not_of(' ', bar.line().size()) == std::string::npos);
}

TEST_CASE("ProgressBar rejects steps outside [0, total] and a bad total", "[progress_bar]") {
  std::ostringstream out;
  ProgressBar bar(5, "", out, false);
  REQUIRE_THROWS_WITH(bar.update(6), Contains("ProgressBar::update: step 6 is outside [0, 5]"));
  REQUIRE_THROWS_WITH(bar.set_print_every(0),
                      Contains("ProgressBar::set_print_every: steps must be positive, got 0"));
  REQUIRE_THROWS_WITH(ProgressBar(-1, "", out, false),
                      Contains("ProgressBar: total must be >= 0, got -1"));
  REQUIRE_FALSE(ProgressBar::is_terminal(out));
}
