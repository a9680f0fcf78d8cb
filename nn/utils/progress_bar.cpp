#include "ember/nn/utils/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "ember/core/error.h"

namespace ember::utils {

namespace {

constexpr int kBarWidth = 25;
constexpr double kMinRedrawSeconds = 0.1;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string format_value(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

// A bar filled to `fraction` in eighths of a character cell.
std::string bar(double fraction) {
  static const char* const kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  const int eighths = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kBarWidth * 8);
  const int full = eighths / 8, part = eighths % 8;
  std::string s;
  for (int i = 0; i < full; ++i) s += "█";
  s += kEighths[part];
  s.append(kBarWidth - full - (part ? 1 : 0), ' ');
  return s;
}

// Display width of a line holding UTF-8 (each code point is one cell here).
size_t display_width(const std::string& s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace

ProgressBar::ProgressBar(int64_t total, std::string description, std::ostream& out, bool is_tty,
                         Clock clock)
    : total_(total),
      description_(std::move(description)),
      out_(out),
      is_tty_(is_tty),
      clock_(clock ? std::move(clock) : Clock(steady_seconds)),
      start_(clock_()),
      print_every_(std::max<int64_t>(1, total / 10)) {
  EMBER_CHECK(total >= 0, "ProgressBar: total must be >= 0, got ", total);
}

ProgressBar::ProgressBar(int64_t total, std::string description)
    : ProgressBar(total, std::move(description), std::cerr, is_terminal(std::cerr)) {}

ProgressBar::~ProgressBar() { close(); }

void ProgressBar::set_print_every(int64_t steps) {
  EMBER_CHECK(steps > 0, "ProgressBar::set_print_every: steps must be positive, got ", steps);
  print_every_ = steps;
}

void ProgressBar::add_time(double compute_seconds, double data_wait_seconds) {
  compute_seconds_ += compute_seconds;
  wait_seconds_ += data_wait_seconds;
}

void ProgressBar::update(int64_t step, const Postfix& postfix, int64_t images) {
  EMBER_CHECK(step >= 0 && step <= total_, "ProgressBar::update: step ", step, " is outside [0, ",
              total_, "]");
  step_ = step;
  images_ += images;
  if (!postfix.empty()) postfix_ = postfix;
  if (closed_) return;
  if (is_tty_) {
    const double now = clock_();
    if (last_draw_ < 0 || now - last_draw_ >= kMinRedrawSeconds || step == total_) {
      last_draw_ = now;
      draw();
    }
  } else if (step % print_every_ == 0 && step != last_printed_step_) {
    draw();
  }
}

void ProgressBar::close() {
  if (closed_) return;
  closed_ = true;
  if (is_tty_) {
    draw();
    out_ << '\n';
  } else if (step_ != last_printed_step_) {
    draw();
  }
  out_.flush();
}

double ProgressBar::elapsed() const { return clock_() - start_; }

std::string ProgressBar::line() const {
  const double seconds = elapsed();
  const int percent =
      total_ == 0 ? 100 : static_cast<int>(std::floor(100.0 * static_cast<double>(step_) / total_));
  char pct[8];
  std::snprintf(pct, sizeof(pct), "%3d%%", percent);
  std::string s = description_.empty() ? "" : description_ + ": ";
  s += pct;
  if (is_tty_) {
    s += '|';
    s += bar(total_ == 0 ? 1.0 : static_cast<double>(step_) / total_);
    s += "| ";
  } else {
    s += ' ';
  }
  s += std::to_string(step_) + "/" + std::to_string(total_);
  const double remaining =
      step_ == 0 ? std::nan("")
                 : seconds / static_cast<double>(step_) * static_cast<double>(total_ - step_);
  s += " [" + format_time(seconds) + "<" + format_time(remaining) + ", ";
  const double count = images_ > 0 ? static_cast<double>(images_) : static_cast<double>(step_);
  s += (seconds > 0 ? format_rate(count / seconds) : std::string("?")) +
       (images_ > 0 ? " img/s" : " it/s");
  if (compute_seconds_ + wait_seconds_ > 0) {
    const double efficiency = 100.0 * compute_seconds_ / (compute_seconds_ + wait_seconds_);
    s += ", eff " + std::to_string(static_cast<int>(std::lround(efficiency))) + "%";
  }
  for (const auto& [name, value] : postfix_) s += ", " + name + "=" + format_value(value);
  return s + "]";
}

void ProgressBar::draw() {
  const std::string text = line();
  if (is_tty_) {
    const size_t width = display_width(text);
    out_ << '\r' << text;
    if (width < last_width_) out_ << std::string(last_width_ - width, ' ');
    last_width_ = width;
    out_.flush();
  } else {
    out_ << text << '\n';
  }
  last_printed_step_ = step_;
}

std::string ProgressBar::format_time(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const int64_t total = static_cast<int64_t>(seconds);
  const int64_t h = total / 3600, m = total / 60 % 60, s = total % 60;
  char buf[32];
  if (h > 0)
    std::snprintf(buf, sizeof(buf), "%lld:%02lld:%02lld", static_cast<long long>(h),
                  static_cast<long long>(m), static_cast<long long>(s));
  else
    std::snprintf(buf, sizeof(buf), "%02lld:%02lld", static_cast<long long>(m),
                  static_cast<long long>(s));
  return buf;
}

std::string ProgressBar::format_rate(double per_second) {
  if (!std::isfinite(per_second) || per_second < 0) return "?";
  char buf[32];
  const int decimals = per_second >= 100 ? 0 : per_second >= 10 ? 1 : 2;
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, per_second);
  return buf;
}

bool ProgressBar::is_terminal(const std::ostream& os) {
  if (&os == &std::cout) return ::isatty(STDOUT_FILENO) == 1;
  if (&os == &std::cerr || &os == &std::clog) return ::isatty(STDERR_FILENO) == 1;
  return false;
}

}  // namespace ember::utils
