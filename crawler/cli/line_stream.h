// Line-oriented stdin/stdout for filters like `bloomcrawl dedup` (and its libbloom baseline in
// bench/, which must do the same I/O to be a fair comparison).
//
// read_stdin_lines reads stdin in 1 MiB chunks and hands each chunk's complete lines to the
// callback, in order, as views into its buffer (valid during the call); a final line without a
// newline is a line, and a line longer than the buffer grows it. StdoutLines buffers lines and
// writes them in 1 MiB pieces. I/O errors throw std::runtime_error naming `who` and the errno.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace bloomcrawl {

void read_stdin_lines(const std::string& who, const std::function<void(std::span<const std::string_view>)>& on_lines);

class StdoutLines {
 public:
  explicit StdoutLines(std::string who) : who_(std::move(who)) {}
  ~StdoutLines();  // flushes; an error there is dropped (call flush() to see it)
  StdoutLines(const StdoutLines&) = delete;
  StdoutLines& operator=(const StdoutLines&) = delete;

  void append_line(std::string_view line) {
    buffer_.append(line);
    buffer_.push_back('\n');
    if (buffer_.size() >= kFlushBytes) flush();
  }
  void flush();

 private:
  static constexpr size_t kFlushBytes = size_t{1} << 20;
  std::string who_;
  std::string buffer_;
};

}  // namespace bloomcrawl
