// libFuzzer target for the robots.txt parser and matcher: arbitrary bytes as robots.txt, agent
// and URLs must never crash or hang, and decisions must be deterministic (the same file parsed
// twice decides every URL the same way, with the same line and rule).
//
// Input layout: <agent> '\n' <url> '\n' <url> '\n' <robots.txt body...>; missing parts are empty.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "crawler/robots/robots.h"

namespace {

std::string_view take_line(std::string_view& input) {
  const std::size_t end = input.find('\n');
  const std::string_view line = input.substr(0, end);
  input.remove_prefix(end == std::string_view::npos ? input.size() : end + 1);
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string_view agent = take_line(input);
  std::vector<std::string_view> urls = {take_line(input), take_line(input)};
  const std::string_view body = input;
  // Parts of the body are URLs too: rules are most interesting against paths they resemble.
  urls.push_back(body.substr(0, 64));
  urls.push_back(body.substr(body.size() / 2, 64));

  const bloomcrawl::RobotsRules first = bloomcrawl::RobotsRules::parse(body, agent);
  const bloomcrawl::RobotsRules second = bloomcrawl::RobotsRules::parse(body, agent);
  for (std::string_view url : urls) {
    const bloomcrawl::RobotsDecision a = first.check(url);
    const bloomcrawl::RobotsDecision b = second.check(url);
    const bloomcrawl::RobotsDecision again = first.check(url);
    if (a.allowed != b.allowed || a.line != b.line || a.rule != b.rule || a.allowed != again.allowed ||
        a.line != again.line) {
      std::abort();
    }
    if ((a.line == 0) != a.rule.empty()) std::abort();  // a reported rule always has its line
  }
  if (first.crawl_delay_seconds() != second.crawl_delay_seconds()) std::abort();
  if (first.sitemaps() != second.sitemaps()) std::abort();
  return 0;
}
