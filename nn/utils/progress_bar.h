#pragma once
// A tqdm-like progress bar for training loops:
//   epoch 1/5:  45%|███████████▎             | 422/938 [00:12<00:14, 2245 img/s, eff 98%, loss=0.41]
// On a terminal it redraws one line with '\r' (at most every 0.1 s, and
// always the last step); elsewhere (a log file, a pipe) it prints a plain
// line, without the bar, every `print_every` steps. close() prints the final line.
//
//   ProgressBar bar(loader.size(), "epoch 1/5");
//   for (Batch& batch : loader) {
//     ... train ...
//     bar.add_time(compute_seconds, loader.last_wait_seconds());
//     bar.update(++step, {{"loss", loss.item<double>()}}, batch.data.size(0));
//   }
//   bar.close();
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace ember::utils {

class ProgressBar {
 public:
  using Clock = std::function<double()>;  // monotonic seconds; tests pass a fake one
  using Postfix = std::vector<std::pair<std::string, double>>;

  // total: the steps of the run. is_tty: redraw in place (see is_terminal).
  ProgressBar(int64_t total, std::string description, std::ostream& out, bool is_tty,
              Clock clock = {});
  // Draws on std::cerr, redrawing when it is a terminal.
  ProgressBar(int64_t total, std::string description);
  ~ProgressBar();  // close()
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // step: steps done so far (0..total); postfix: values shown as name=value;
  // images: images processed since the previous update (for images/s).
  void update(int64_t step, const Postfix& postfix = {}, int64_t images = 0);
  // Seconds spent computing and waiting for data since the previous call: they
  // make the compute efficiency, compute / (compute + wait).
  void add_time(double compute_seconds, double data_wait_seconds);
  // Non-terminal output: a line every `steps` steps (default: total / 10, at least 1).
  void set_print_every(int64_t steps);
  // Prints the final line (and ends the terminal line). Later calls do nothing.
  void close();

  // The status line as it is drawn now (the bar only in terminal mode).
  std::string line() const;

  // "mm:ss", or "h:mm:ss" from an hour; "?" when unknown.
  static std::string format_time(double seconds);
  // At most 2 decimals, fewer for larger rates: "2245", "54.3", "7.25".
  static std::string format_rate(double per_second);
  // Whether os is std::cout, std::cerr or std::clog attached to a terminal.
  static bool is_terminal(const std::ostream& os);

 private:
  void draw();
  double elapsed() const;

  int64_t total_;
  std::string description_;
  std::ostream& out_;
  bool is_tty_;
  Clock clock_;
  double start_;
  int64_t step_ = 0;
  int64_t images_ = 0;
  Postfix postfix_;
  double compute_seconds_ = 0, wait_seconds_ = 0;
  int64_t print_every_;
  int64_t last_printed_step_ = -1;
  double last_draw_ = -1;
  size_t last_width_ = 0;  // characters of the previous terminal line, to blank it out
  bool closed_ = false;
};

}  // namespace ember::utils
