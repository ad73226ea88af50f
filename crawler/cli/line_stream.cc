#include "crawler/cli/line_stream.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace bloomcrawl {

void read_stdin_lines(const std::string& who, const std::function<void(std::span<const std::string_view>)>& on_lines) {
  std::vector<char> buffer(size_t{1} << 20);
  size_t filled = 0;
  std::vector<std::string_view> lines;
  for (bool eof = false; !eof;) {
    if (filled == buffer.size()) buffer.resize(buffer.size() * 2);  // a line longer than the buffer
    const ssize_t n = ::read(STDIN_FILENO, buffer.data() + filled, buffer.size() - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(who + ": reading stdin failed: " + std::strerror(errno));
    eof = n == 0;
    filled += static_cast<size_t>(n);
    lines.clear();
    size_t start = 0;
    for (size_t i = 0; i < filled; ++i) {
      if (buffer[i] == '\n') {
        lines.emplace_back(buffer.data() + start, i - start);
        start = i + 1;
      }
    }
    if (eof && start < filled) {
      lines.emplace_back(buffer.data() + start, filled - start);
      start = filled;
    }
    on_lines(lines);
    std::memmove(buffer.data(), buffer.data() + start, filled - start);
    filled -= start;
  }
}

StdoutLines::~StdoutLines() {
  try {
    flush();
  } catch (const std::runtime_error&) {
    // A destructor must not throw; callers that care call flush() themselves.
  }
}

void StdoutLines::flush() {
  const char* p = buffer_.data();
  size_t left = buffer_.size();
  while (left > 0) {
    const ssize_t n = ::write(STDOUT_FILENO, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(who_ + ": writing stdout failed: " + std::strerror(errno));
    p += n;
    left -= static_cast<size_t>(n);
  }
  buffer_.clear();
}

}  // namespace bloomcrawl
