// `bloomcrawl robots --agent UA --file robots.txt URL...`: what our robots.txt matcher decides
// for each URL and which rule (and line) decided it, then the crawl-delay and sitemaps that
// apply. For site owners and operators checking a robots.txt before or after a crawl.
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "crawler/cli/command.h"
#include "crawler/robots/robots.h"

namespace bloomcrawl::cli {
namespace {

struct RobotsOptions {
  std::string agent = "bloomcrawl";
  std::string file;
  std::vector<std::string> urls;
  bool json = false;
};

std::string read_robots_file(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw std::runtime_error("cannot read robots.txt file '" + path + "': is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read robots.txt file '" + path + "': " + std::generic_category().message(errno));
  std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw std::runtime_error("error while reading robots.txt file '" + path + "'");
  return body;
}

void print_text(const RobotsOptions& options, const RobotsRules& rules) {
  for (const std::string& url : options.urls) {
    const RobotsDecision decision = rules.check(url);
    std::cout << (decision.allowed ? "allowed" : "disallowed") << '\t'
              << (decision.line == 0 ? "(no matching rule)" : decision.rule) << '\t' << "line " << decision.line << '\t'
              << url << '\n';
  }
  if (auto delay = rules.crawl_delay_seconds()) std::cout << "crawl-delay\t" << *delay << '\n';
  for (const std::string& sitemap : rules.sitemaps()) std::cout << "sitemap\t" << sitemap << '\n';
}

void print_json(const RobotsOptions& options, const RobotsRules& rules) {
  nlohmann::json report = {{"agent", options.agent}, {"file", options.file}};
  report["results"] = nlohmann::json::array();
  for (const std::string& url : options.urls) {
    const RobotsDecision decision = rules.check(url);
    report["results"].push_back(
        {{"url", url}, {"allowed", decision.allowed}, {"line", decision.line}, {"rule", decision.rule}});
  }
  const auto delay = rules.crawl_delay_seconds();
  report["crawl_delay_seconds"] = delay ? nlohmann::json(*delay) : nlohmann::json(nullptr);
  report["sitemaps"] = rules.sitemaps();
  // robots.txt files are not always UTF-8; never fail on their bytes.
  std::cout << report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

RunFn setup(CLI::App& app) {
  auto options = std::make_shared<RobotsOptions>();
  app.add_option("--agent", options->agent, "crawler User-Agent (token or full header value)")->capture_default_str();
  app.add_option("--file", options->file, "robots.txt file to check against")->required();
  app.add_option("urls", options->urls, "URLs (or paths) to check");
  app.add_flag("--json", options->json, "print a JSON report");
  return [options] {
    const std::string body = read_robots_file(options->file);
    if (body.size() > kRobotsMaxBytes) {
      std::cerr << "bloomcrawl: note: '" << options->file << "' is " << body.size() << " bytes; only the first "
                << kRobotsMaxBytes << " are parsed (RFC 9309 section 2.5)\n";
    }
    const RobotsRules rules = RobotsRules::parse(body, options->agent);
    if (options->json) {
      print_json(*options, rules);
    } else {
      print_text(*options, rules);
    }
    return 0;
  };
}

}  // namespace

BLOOMCRAWL_COMMAND("robots", "check URLs against a robots.txt file as the crawler would", setup);

}  // namespace bloomcrawl::cli
