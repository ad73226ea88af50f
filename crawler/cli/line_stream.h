// Line-oriented input and output for filters like `bloomcrawl dedup` and `bloomcrawl url`.
//
// read_lines reads a file descriptor in 128 KiB chunks (newlines found 64 bytes at a time) and hands each
// chunk's complete lines to the callback, in order, as views into its buffer (valid during the
// call) without the '\n'; a final line without a newline is a line, and a line longer than the
// buffer grows it. Whatever one read() returns is handed on at once, so a slow producer (a
// terminal, `tail -f`) is not held back waiting for a full chunk.
//
// LineWriter gathers output lines and writes them in 1 MiB blocks, or after every line when
// line-buffered: by default exactly when its descriptor is a terminal (the convention of grep,
// sort and awk; --line-buffered forces it). Its destructor flushes.
//
// Errors throw std::runtime_error naming `who` and the errno, except that a reader that went away
// (EPIPE, when SIGPIPE is ignored) throws OutputClosed: the caller stops quietly, as `cat` would.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bloomcrawl {

inline constexpr size_t kReadChunkBytes = size_t{1} << 17;  // read_lines' read() size

// Appends to `lines` each complete line of [begin, end), without its '\n', looking for newlines
// only from `scan_from` on (the bytes before it hold none); returns the start of the unfinished
// last line (`end` when there is none). read_lines' splitter, for callers with the bytes in memory.
const char* split_lines(const char* begin, const char* scan_from, const char* end,
                        std::vector<std::string_view>& lines);

void read_lines(int fd, const std::string& who, const std::function<void(std::span<const std::string_view>)>& on_lines);

// The exit status of a filter whose output was closed: what a shell shows for one killed by SIGPIPE.
inline constexpr int kOutputClosedExitStatus = 141;

struct OutputClosed : std::runtime_error {
  explicit OutputClosed(const std::string& who) : std::runtime_error(who + ": output closed by its reader") {}
};

class LineWriter {
 public:
  enum class Buffering { kAuto, kLine, kBlock };  // kAuto: kLine iff fd is a terminal

  explicit LineWriter(std::string who, int fd, Buffering buffering = Buffering::kAuto);
  ~LineWriter();  // flushes; an error there is dropped (call flush() to see it)
  LineWriter(const LineWriter&) = delete;
  LineWriter& operator=(const LineWriter&) = delete;

  // Part of the current line.
  void append(std::string_view text) {
    if (text.size() > kBlockBytes - filled_) return append_slow(text);
    std::char_traits<char>::copy(buffer_.get() + filled_, text.data(), text.size());
    filled_ += text.size();
  }
  // Ends the current line with '\n'; writes when line-buffered or when the block is full.
  void end_line() {
    if (filled_ == kBlockBytes) write_block();
    buffer_[filled_++] = '\n';
    if (line_buffered_ || filled_ == kBlockBytes) flush();
  }
  void append_line(std::string_view line) {
    append(line);
    end_line();
  }
  void flush();

  bool line_buffered() const { return line_buffered_; }
  uint64_t write_calls() const { return write_calls_; }  // write(2) calls so far, for tests

 private:
  static constexpr size_t kBlockBytes = size_t{1} << 20;
  void append_slow(std::string_view text);
  void write_block();
  void write_all(const char* data, size_t size);

  std::string who_;
  int fd_;
  bool line_buffered_;
  std::unique_ptr<char[]> buffer_;
  size_t filled_ = 0;
  uint64_t write_calls_ = 0;
};

}  // namespace bloomcrawl
