// `bloomcrawl dedup` done with libbloom as a user would write it, the baseline for
// bench/run_dedup_bench.sh: getline() each stdin line, print it with fwrite() when libbloom's
// bloom_add reports it new. Same output as `bloomcrawl dedup` (a final line without a newline gets
// one). libbloom cannot grow, so the caller sizes it up front.
// (Named *_bench.cc so bench/CMakeLists.txt's glob builds it; it has its own main.)
//
//   dedup_libbloom_bench ENTRIES FPR < lines > new_lines
#include <bloom.h>
#include <stdio.h>  // NOLINT(modernize-deprecated-headers): getline() is POSIX, declared by <stdio.h>

#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s ENTRIES FPR < lines\n", argv[0]);
    return 2;
  }
  const long entries = strtol(argv[1], nullptr, 10);
  const double fpr = strtod(argv[2], nullptr);
  struct bloom bloom {};
  if (entries < 1000 || entries > 0x7fffffffL || bloom_init(&bloom, static_cast<int>(entries), fpr) != 0) {
    fprintf(stderr, "dedup_libbloom: bloom_init(%ld, %g) failed (entries must be in [1000, 2^31))\n", entries, fpr);
    return 2;
  }
  unsigned long long lines = 0;
  unsigned long long fresh = 0;
  char* line = nullptr;
  size_t capacity = 0;
  for (ssize_t n; (n = getline(&line, &capacity, stdin)) > 0;) {
    ++lines;
    const size_t length = static_cast<size_t>(n) - (line[n - 1] == '\n' ? 1 : 0);
    if (bloom_add(&bloom, line, static_cast<int>(length)) == 0) {
      ++fresh;
      fwrite(line, 1, length, stdout);
      putchar('\n');
    }
  }
  free(line);
  if (ferror(stdin) || fflush(stdout) != 0) {
    perror("dedup_libbloom");
    return 1;
  }
  fprintf(stderr, "dedup_libbloom: %llu lines, %llu new, %d bytes of filter, %d hashes\n", lines, fresh, bloom.bytes,
          bloom.hashes);
  bloom_free(&bloom);
  return 0;
}
