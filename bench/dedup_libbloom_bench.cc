// `bloomcrawl dedup` done with libbloom, the baseline for bench/run_seenfilter_bench.sh: prints
// each stdin line whose libbloom bloom_add reports it new, in order, with the same I/O approach
// as crawler/cli/cmd_dedup.cc (read(2) in 1 MiB chunks, lines split in place, output buffered
// and written in 1 MiB pieces). libbloom cannot grow, so the caller sizes it up front.
// (Named *_bench.cc so bench/CMakeLists.txt's glob builds it; it has its own main.)
//
//   dedup_libbloom_bench ENTRIES FPR < lines > new_lines
#include <bloom.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

class Output {
 public:
  ~Output() { flush(); }
  void line(const char* p, size_t n) {
    buffer_.append(p, n);
    buffer_.push_back('\n');
    if (buffer_.size() >= kFlushBytes) flush();
  }
  void flush() {
    const char* p = buffer_.data();
    size_t left = buffer_.size();
    while (left > 0) {
      const ssize_t n = ::write(STDOUT_FILENO, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        std::perror("dedup_libbloom: write stdout");
        std::exit(1);
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    buffer_.clear();
  }

 private:
  static constexpr size_t kFlushBytes = size_t{1} << 20;
  std::string buffer_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s ENTRIES FPR < lines\n", argv[0]);
    return 2;
  }
  const long entries = std::strtol(argv[1], nullptr, 10);
  const double fpr = std::strtod(argv[2], nullptr);
  struct bloom bloom {};
  if (entries < 1000 || entries > 0x7fffffffL || bloom_init(&bloom, static_cast<int>(entries), fpr) != 0) {
    std::fprintf(stderr, "dedup_libbloom: bloom_init(%ld, %g) failed (entries must be in [1000, 2^31))\n", entries,
                 fpr);
    return 2;
  }
  Output out;
  std::vector<char> buffer(size_t{1} << 20);
  size_t filled = 0;
  unsigned long long lines = 0, fresh = 0;
  for (bool eof = false; !eof;) {
    if (filled == buffer.size()) buffer.resize(buffer.size() * 2);
    const ssize_t n = ::read(STDIN_FILENO, buffer.data() + filled, buffer.size() - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::perror("dedup_libbloom: read stdin");
      return 1;
    }
    eof = n == 0;
    filled += static_cast<size_t>(n);
    size_t start = 0;
    auto take = [&](size_t end) {
      ++lines;
      if (bloom_add(&bloom, buffer.data() + start, static_cast<int>(end - start)) == 0) {
        ++fresh;
        out.line(buffer.data() + start, end - start);
      }
    };
    for (size_t i = 0; i < filled; ++i) {
      if (buffer[i] == '\n') {
        take(i);
        start = i + 1;
      }
    }
    if (eof && start < filled) {
      take(filled);
      start = filled;
    }
    std::memmove(buffer.data(), buffer.data() + start, filled - start);
    filled -= start;
  }
  out.flush();
  std::fprintf(stderr, "dedup_libbloom: %llu lines, %llu new, %d bytes of filter, %d hashes\n", lines, fresh,
               bloom.bytes, bloom.hashes);
  bloom_free(&bloom);
  return 0;
}
