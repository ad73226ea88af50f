// `bloomcrawl dedup` done with libbloom, the baseline for bench/run_seenfilter_bench.sh: prints
// each stdin line whose libbloom bloom_add reports it new, in order, with the same I/O as
// crawler/cli/cmd_dedup.cc (crawler/cli/line_stream.h). libbloom cannot grow, so the caller sizes it
// up front.
// (Named *_bench.cc so bench/CMakeLists.txt's glob builds it; it has its own main.)
//
//   dedup_libbloom_bench ENTRIES FPR < lines > new_lines
#include <bloom.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "crawler/cli/line_stream.h"

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
  unsigned long long lines = 0, fresh = 0;
  try {
    bloomcrawl::StdoutLines out("dedup_libbloom");
    bloomcrawl::read_stdin_lines("dedup_libbloom", [&](std::span<const std::string_view> chunk) {
      for (std::string_view line : chunk) {
        ++lines;
        if (bloom_add(&bloom, line.data(), static_cast<int>(line.size())) == 0) {
          ++fresh;
          out.append_line(line);
        }
      }
    });
    out.flush();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "dedup_libbloom: %llu lines, %llu new, %d bytes of filter, %d hashes\n", lines, fresh,
               bloom.bytes, bloom.hashes);
  bloom_free(&bloom);
  return 0;
}
