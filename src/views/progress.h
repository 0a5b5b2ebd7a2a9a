// A progress bar on stderr (done/total, rate, ETA), drawn only when stderr is a terminal.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace ig {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label)
      : label_(std::move(label)),
        tty_(isatty(STDERR_FILENO) != 0),
        start_(std::chrono::steady_clock::now()) {}
  ~ProgressBar() { finish(); }

  // `executed` counts the jobs that did work; the rate and ETA are based on them only.
  void update(int64_t done, int64_t total, int64_t executed, const std::string& note) {
    if (!tty_ || total <= 0) return;
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double rate = secs > 0 ? static_cast<double>(executed) / secs : 0;
    const double eta = rate > 0 ? static_cast<double>(total - done) / rate : 0;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * done / total);
    std::fprintf(stderr, "\r%s [%s%s] %lld/%lld %.1f/s ETA %.0fs %-30.30s", label_.c_str(),
                 std::string(static_cast<size_t>(filled), '#').c_str(),
                 std::string(static_cast<size_t>(kWidth - filled), '.').c_str(),
                 static_cast<long long>(done), static_cast<long long>(total), rate, eta,
                 note.c_str());
    std::fflush(stderr);
    drawn_ = true;
  }
  void finish() {
    if (drawn_) std::fprintf(stderr, "\n");
    drawn_ = false;
  }

 private:
  std::string label_;
  bool tty_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ig
