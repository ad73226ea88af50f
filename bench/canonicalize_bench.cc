// canonicalize() throughput on realistic generated links (target: >= 2 million URLs/s on one
// core). Each benchmark reports items_per_second; BM_CopyBaseline (copying each URL string)
// is measured in the same run so results can be reported as ratios on a noisy shared machine.
//
//   ./build/bench/canonicalize_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "crawler/url/canonical.h"

namespace {

using bloomcrawl::CanonicalizeOptions;
using bloomcrawl::Url;

const char* const kWords[] = {"news",       "2024", "article",   "products", "category", "blog", "about-us",
                              "index.html", "p",    "item_1234", "search",   "en",       "docs", "img",
                              "static",     "user", "profile",   "tag",      "comments"};
const char* const kParams[] = {"id=42",     "page=2",  "q=bloom+filter", "utm_source=twitter",
                               "sort=desc", "lang=en", "ref=home",       "s=%E2%82%AC"};

std::string word(std::mt19937& rng) { return kWords[rng() % (sizeof kWords / sizeof kWords[0])]; }

std::string path(std::mt19937& rng) {
  std::string out;
  for (int i = 0, n = 1 + static_cast<int>(rng() % 4); i < n; ++i) {
    out += '/';
    out += word(rng);
  }
  if (rng() % 3 == 0) out += ".html";
  if (rng() % 3 == 0) {
    out += "?";
    for (int i = 0, n = 1 + static_cast<int>(rng() % 3); i < n; ++i) {
      if (i) out += "&";
      out += kParams[rng() % (sizeof kParams / sizeof kParams[0])];
    }
  }
  if (rng() % 8 == 0) {
    out += "#section-";
    out += word(rng);
  }
  return out;
}

std::vector<std::string> absolute_urls(size_t count) {
  std::mt19937 rng(7);
  std::vector<std::string> urls;
  for (size_t i = 0; i < count; ++i) {
    std::string url = rng() % 4 ? "https://" : "http://";
    if (rng() % 2) url += "www.";
    url += word(rng);
    url += std::to_string(rng() % 1000);
    url += rng() % 3 ? ".com" : ".example.org";
    url += path(rng);
    urls.push_back(std::move(url));
  }
  return urls;
}

std::vector<std::string> relative_urls(size_t count) {
  std::mt19937 rng(11);
  std::vector<std::string> urls;
  for (size_t i = 0; i < count; ++i) {
    switch (rng() % 5) {
      case 0: urls.push_back(path(rng)); break;
      case 1: urls.push_back(word(rng) + ".html"); break;
      case 2: urls.push_back("../" + word(rng) + path(rng)); break;
      case 3: urls.push_back("?page=" + std::to_string(rng() % 50)); break;
      default: urls.push_back("//cdn." + word(rng) + ".net" + path(rng)); break;
    }
  }
  return urls;
}

void run(benchmark::State& state, const std::vector<std::string>& urls, const Url* base,
         const CanonicalizeOptions& options) {
  size_t i = 0;
  for (auto _ : state) {
    bloomcrawl::CanonicalUrl result = bloomcrawl::canonicalize(urls[i], base, options);
    benchmark::DoNotOptimize(result);
    if (++i == urls.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_CopyBaseline(benchmark::State& state) {
  std::vector<std::string> urls = absolute_urls(4096);
  size_t i = 0;
  for (auto _ : state) {
    std::string copy = urls[i];
    benchmark::DoNotOptimize(copy);
    if (++i == urls.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_ParseAbsolute(benchmark::State& state) {
  std::vector<std::string> urls = absolute_urls(4096);
  size_t i = 0;
  for (auto _ : state) {
    auto url = bloomcrawl::parse_url(urls[i]);
    benchmark::DoNotOptimize(url);
    if (++i == urls.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_CanonicalizeAbsolute(benchmark::State& state) { run(state, absolute_urls(4096), nullptr, {}); }

void BM_CanonicalizeRelative(benchmark::State& state) {
  std::optional<Url> base = bloomcrawl::parse_url("https://www.example.com/news/2024/article.html");
  run(state, relative_urls(4096), &*base, {});
}

void BM_CanonicalizeAllOptions(benchmark::State& state) {
  CanonicalizeOptions options;
  options.sort_query = options.strip_params = options.strip_session_ids = true;
  options.lowercase_path = options.drop_index_pages = true;
  run(state, absolute_urls(4096), nullptr, options);
}

BENCHMARK(BM_CopyBaseline);
BENCHMARK(BM_ParseAbsolute);
BENCHMARK(BM_CanonicalizeAbsolute);
BENCHMARK(BM_CanonicalizeRelative);
BENCHMARK(BM_CanonicalizeAllOptions);

}  // namespace

BENCHMARK_MAIN();
