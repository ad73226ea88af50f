// extract_links() throughput against Gumbo's bare parse of the same pages, in the same run
// (the machine is shared and noisy: report ratios, not absolute figures). Target: extraction
// at least 80% of the bare parse rate. The corpus is generated, deterministic, realistic HTML:
// 10-100 KB pages with navigation lists, link-dense articles, tables of links, inline scripts.
//
//   ./build/bench/links_bench --benchmark_min_time=2
//
// LINKS_BENCH_PAGES=FILE replaces the generated corpus with the HTML files FILE lists, one path a
// line: bench/crawl_bench.sh times the parse of its own site's pages this way.
//
// Rates are items_per_second (pages/s) and bytes_per_second, computed from CPU time.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gumbo.h>

#include "crawler/extract/links.h"
#include "crawler/extract/links_depth_guard.h"
#include "crawler/url/canonical.h"
#include "crawler/url/url.h"

namespace {

const char* const kWords[] = {"crawler", "bloom",    "filter",  "frontier",  "politeness", "robots",  "the",
                              "of",      "and",      "a",       "to",        "in",         "is",      "for",
                              "on",      "with",     "index",   "page",      "news",       "release", "notes",
                              "2024",    "download", "library", "community", "support",    "privacy", "caf\xC3\xA9"};
const char* const kHosts[] = {"www.example.com", "example.org", "cdn.example.net", "news.example.co.uk",
                              "shop.example.de"};

class PageWriter {
 public:
  explicit PageWriter(uint32_t seed) : rng_(seed) {}

  std::string page(size_t target_bytes, int number) {
    out_.clear();
    head(number);
    emit(R"(<body class="page"><header><nav><ul class="menu">)");
    for (int i = 0; i < 12; ++i) emit("<li><a href=\"/", word(), "/\">", word(), "</a></li>");
    emit("</ul></nav></header><main><article><h1>", sentence(6), "</h1>");
    while (out_.size() < target_bytes) section();
    emit(
        "</article></main><footer><p>&copy; 2024 <a href=\"/about\">About</a> | "
        "<a href=\"/privacy\" rel=\"nofollow\">Privacy</a></p></footer>"
        "<script src=\"/js/app.js\" async></script><script>window.__DATA__ = {\"page\": ",
        std::to_string(number), ", \"items\": [1, 2, 3]};</script></body></html>");
    return out_;
  }

 private:
  template <typename... Parts>
  static std::string concat(const Parts&... parts) {
    std::string s;
    ((s += parts), ...);
    return s;
  }
  template <typename... Parts>
  void emit(const Parts&... parts) {
    ((out_ += parts), ...);
  }
  const char* word() { return kWords[rng_() % std::size(kWords)]; }
  std::string sentence(int words) {
    std::string s;
    for (int i = 0; i < words; ++i) {
      if (i) s += ' ';
      s += word();
    }
    return s;
  }
  std::string number(uint32_t below) { return std::to_string(rng_() % below); }
  std::string href() {
    switch (rng_() % 4) {
      case 0:
        return concat("https://", kHosts[rng_() % std::size(kHosts)], "/", word(), "/", word(), "-", number(10000),
                      ".html");
      case 1: return concat("/", word(), "?id=", number(100000), "&amp;ref=", word());
      case 2: return concat("../", word(), "/", word(), ".html#", word());
      default: return concat(word(), "-", number(1000));
    }
  }
  void head(int page_number) {
    std::string n = std::to_string(page_number);
    emit(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>",
        sentence(5), R"(</title><link rel="stylesheet" href="/css/site.css?v=)", n, "\">",
        "<link rel=\"stylesheet\" href=\"https://cdn.example.net/fonts.css\">"
        "<link rel=\"canonical\" href=\"https://www.example.com/page/",
        n, "\">", R"(<link rel="alternate" hreflang="de" href="https://www.example.com/de/page/)", n,
        "\"><link rel=\"icon\" href=\"/favicon.ico\">"
        "<script>(function(w,d){var s=d.createElement('script');s.async=true;"
        "for(var i=0;i<10&&i<w.length;i++){s.src='/t.js?i='+i;}})(window,document);</script>"
        "<style>body{margin:0}.menu>li{display:inline-block}a:hover{color:#c00}</style></head>");
  }
  void section() {
    switch (rng_() % 4) {
      case 0:  // a paragraph of prose with a few inline links
      case 1:
        emit("<p>");
        for (int i = 0; i < 8; ++i) {
          emit(sentence(6 + rng_() % 10), ", ");
          if (rng_() % 3 == 0) emit("<a href=\"", href(), "\">", sentence(3), "</a> ");
          if (rng_() % 5 == 0) emit("<strong>", word(), "</strong> <em>", word(), "</em> ");
        }
        emit("</p>\n");
        break;
      case 2: {  // a table of links
        emit("<table class=\"links\"><thead><tr><th>Name</th><th>Notes</th></tr></thead><tbody>");
        for (int i = 0, n = 5 + rng_() % 10; i < n; ++i) {
          emit("<tr><td><a href=\"", href(), "\" title=\"", word(), "\">", sentence(2), "</a></td><td>", sentence(5),
               "</td></tr>");
        }
        emit("</tbody></table>\n");
        break;
      }
      default:  // a related-links list with an image
        emit(R"(<div class="related"><img src="/img/)", word(), ".jpg\" alt=\"", word(),
             R"(" width="120" height="80"><ul>)");
        for (int i = 0, n = 3 + rng_() % 6; i < n; ++i) {
          emit("<li><a href=\"", href(), "\">", sentence(4), "</a></li>");
        }
        emit("</ul></div>\n");
    }
  }

  std::mt19937 rng_;
  std::string out_;
};

struct Corpus {
  std::vector<std::string> pages;
  size_t total_bytes = 0;
};

// The pages named in `list_path` (one path a line). Exits with a message naming the file that
// cannot be read: a benchmark over a silently smaller corpus would report the wrong rate.
Corpus read_corpus(const char* list_path) {
  Corpus read;
  std::ifstream list(list_path);
  if (!list) {
    std::fprintf(stderr, "links_bench: cannot read the page list %s\n", list_path);
    std::_Exit(2);  // fatal before any thread starts: nothing to flush or tear down
  }
  for (std::string path; std::getline(list, path);) {
    if (path.empty()) continue;
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    if (!in || !(bytes << in.rdbuf())) {
      std::fprintf(stderr, "links_bench: cannot read page %s (listed in %s)\n", path.c_str(), list_path);
      std::_Exit(2);  // fatal before any thread starts: nothing to flush or tear down
    }
    read.pages.push_back(std::move(bytes).str());
    read.total_bytes += read.pages.back().size();
  }
  if (read.pages.empty()) {
    std::fprintf(stderr, "links_bench: the page list %s names no pages\n", list_path);
    std::_Exit(2);  // fatal before any thread starts: nothing to flush or tear down
  }
  return read;
}

const Corpus& corpus() {
  static const Corpus c = [] {
    if (const char* list = std::getenv("LINKS_BENCH_PAGES")) return read_corpus(list);
    Corpus built;
    PageWriter writer(20240601);
    std::mt19937 sizes(99);
    for (int i = 0; i < 64; ++i) {
      built.pages.push_back(writer.page(10'000 + sizes() % 90'000, i));
      built.total_bytes += built.pages.back().size();
    }
    return built;
  }();
  return c;
}

// Runs `per_page` over every page of the corpus per iteration and reports pages/s and bytes/s.
template <typename PerPage>
void run_over_corpus(benchmark::State& state, PerPage per_page) {
  const Corpus& c = corpus();
  for (auto _ : state) {
    for (const std::string& page : c.pages) per_page(page);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * c.pages.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * c.total_bytes));
  state.counters["corpus_pages"] = static_cast<double>(c.pages.size());
}

// The baseline the target is stated against: gumbo_parse() + gumbo_destroy_output().
void BM_GumboBareParse(benchmark::State& state) {
  run_over_corpus(state, [](const std::string& page) {
    GumboOutput* output = gumbo_parse_with_options(&kGumboDefaultOptions, page.data(), page.size());
    benchmark::DoNotOptimize(output->root);
    gumbo_destroy_output(&kGumboDefaultOptions, output);
  });
}
BENCHMARK(BM_GumboBareParse);

// A stricter baseline: the bare parse without recording parse errors, as extract_links parses.
void BM_GumboBareParseNoErrors(benchmark::State& state) {
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = 0;
  run_over_corpus(state, [&](const std::string& page) {
    GumboOutput* output = gumbo_parse_with_options(&options, page.data(), page.size());
    benchmark::DoNotOptimize(output->root);
    gumbo_destroy_output(&options, output);
  });
}
BENCHMARK(BM_GumboBareParseNoErrors);

void BM_ExtractLinks(benchmark::State& state) {
  bloomcrawl::LinkExtractOptions options;
  size_t links = 0;
  run_over_corpus(state, [&](const std::string& page) {
    bloomcrawl::ExtractedLinks extracted = bloomcrawl::extract_links(page, options);
    links += extracted.links.size();
    benchmark::DoNotOptimize(extracted.links.data());
  });
  state.counters["links_per_page"] =
      benchmark::Counter(static_cast<double>(links) / static_cast<double>(state.iterations() * corpus().pages.size()));
}
BENCHMARK(BM_ExtractLinks);

// What the crawler does per fetched page before the seen filter: extract, then resolve and
// canonicalize every link against the page URL (or its <base>).
void BM_ExtractAndCanonicalize(benchmark::State& state) {
  bloomcrawl::LinkExtractOptions options;
  bloomcrawl::CanonicalizeOptions canonical_options;
  const bloomcrawl::Url page_url = *bloomcrawl::parse_url("https://www.example.com/section/page.html");
  size_t kept = 0;
  run_over_corpus(state, [&](const std::string& page) {
    bloomcrawl::ExtractedLinks extracted = bloomcrawl::extract_links(page, options);
    std::optional<bloomcrawl::Url> base;
    if (extracted.base_href) base = bloomcrawl::parse_url(*extracted.base_href, &page_url);
    const bloomcrawl::Url* resolve_against = base ? &*base : &page_url;
    for (const bloomcrawl::Link& link : extracted.links) {
      bloomcrawl::CanonicalUrl canonical = bloomcrawl::canonicalize(link.href, resolve_against, canonical_options);
      kept += canonical.ok();
      benchmark::DoNotOptimize(canonical.url.data());
    }
  });
  state.counters["canonical_per_page"] =
      benchmark::Counter(static_cast<double>(kept) / static_cast<double>(state.iterations() * corpus().pages.size()));
}
BENCHMARK(BM_ExtractAndCanonicalize);

// The nesting pre-scan alone, to show its share of BM_ExtractLinks.
void BM_NestingPrescan(benchmark::State& state) {
  run_over_corpus(state, [](const std::string& page) {
    benchmark::DoNotOptimize(bloomcrawl::nesting_safe_prefix(page, bloomcrawl::kMaxNestingDepth));
  });
}
BENCHMARK(BM_NestingPrescan);

}  // namespace

BENCHMARK_MAIN();
