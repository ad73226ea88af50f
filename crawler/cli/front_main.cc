// `bloomcrawl`: the program users run. It links only the filters (dedup, url) and runs those
// itself; every other command line, --help included, it hands to `bloomcrawl-crawler` in its own
// directory (exec, same PID and arguments), which holds every command. So a short filter run does
// not load the crawler's ~40 shared libraries (curl and its TLS stack, RocksDB, OpenSSL, ...),
// whose loading and static initializers were most of its start-up (docs/design.md, "The front
// program").
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <system_error>

#include "crawler/cli/command.h"

namespace {

constexpr const char* kCrawlerProgram = "bloomcrawl-crawler";

// Returns only on failure.
int exec_crawler(char** argv) {
  std::string self(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size());
  if (n <= 0 || static_cast<size_t>(n) == self.size()) {
    std::fprintf(stderr, "bloomcrawl: cannot find its own program: %s\n",
                 std::generic_category().message(errno).c_str());
    return 127;
  }
  self.resize(static_cast<size_t>(n));
  const std::string crawler = self.substr(0, self.rfind('/') + 1) + kCrawlerProgram;
  ::execv(crawler.c_str(), argv);
  std::fprintf(stderr, "bloomcrawl: cannot run %s: %s\n", crawler.c_str(),
               std::generic_category().message(errno).c_str());
  return 127;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && bloomcrawl::cli::has_command(argv[1])) return bloomcrawl::cli::run_commands(argc, argv);
  return exec_crawler(argv);
}
