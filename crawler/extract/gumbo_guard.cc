#include "crawler/extract/gumbo_guard.h"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>

namespace bloomcrawl {
namespace {

struct FailedAssertion {
  std::jmp_buf resume;
  const char* assertion = "";
  const char* file = "";
  unsigned int line = 0;
  const char* function = "";
};

// The guarded parse of this thread, if one is running.
thread_local FailedAssertion* active_parse = nullptr;

}  // namespace

GumboOutput* parse_html_guarded(const GumboOptions& options, std::string_view html, std::string& failure) {
  FailedAssertion failed;
  active_parse = &failed;
  // Only C frames (Gumbo's) lie between here and the longjmp, so no destructor is skipped.
  if (setjmp(failed.resume) != 0) {  // NOLINT(cert-err52-cpp): the only way out of a C library's assert
    failure = std::string("HTML parser assertion '") + failed.assertion + "' failed in " + failed.function + " (" +
              failed.file + ":" + std::to_string(failed.line) + ")";
    return nullptr;
  }
  GumboOutput* output = gumbo_parse_with_options(&options, html.data(), html.size());
  active_parse = nullptr;
  return output;
}

}  // namespace bloomcrawl

// Replaces glibc's for the whole process: the dynamic linker binds libgumbo's (and everyone's)
// assert() to the executable's definition first.
extern "C" [[noreturn]] void __assert_fail(  // NOLINT(bugprone-reserved-identifier): glibc's name, interposed
    const char* assertion, const char* file, unsigned int line, const char* function) noexcept {
  if (bloomcrawl::FailedAssertion* parse = bloomcrawl::active_parse) {
    bloomcrawl::active_parse = nullptr;
    parse->assertion = assertion;
    parse->file = file;
    parse->line = line;
    parse->function = function;
    std::longjmp(parse->resume, 1);  // NOLINT(cert-err52-cpp): see parse_html_guarded
  }
  std::fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, function, assertion);
  std::abort();
}
