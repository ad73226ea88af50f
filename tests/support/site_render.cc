#include "tests/support/site_render.h"

#include "tests/support/site_random.h"

namespace bloomcrawl::testweb {
namespace {

constexpr const char* kWords[] = {"crawler",   "bloom", "filter", "polite", "frontier", "robots",
                                  "canonical", "seed",  "depth",  "host",   "queue",    "fetch"};

std::string escape_attribute(const std::string& value, char quote, SiteRandom& random) {
  std::string out;
  const bool entity_amp = !random.one_in(4);  // mostly "&amp;", sometimes a bare '&' (also valid)
  for (char c : value) {
    if (c == '&') {
      out += entity_amp ? "&amp;" : "&";
    } else if (c == quote) {
      out += quote == '"' ? "&quot;" : "&#39;";
    } else if (c == '<') {
      out += "&lt;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string escape_text(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else
      out += c;
  }
  return out;
}

std::string anchor(const SiteLink& link, size_t number, SiteRandom& random) {
  const char quote = random.one_in(4) ? '\'' : '"';
  const std::string href = "href=" + std::string(1, quote) + escape_attribute(link.href, quote, random) + quote;
  std::string rel;
  if (link.nofollow) {
    constexpr const char* kRel[] = {"nofollow", "external nofollow", "NoFollow noopener"};
    rel = std::string("rel=\"") + kRel[random.below(3)] + "\"";
  }
  const std::string attributes =
      random.one_in(2) ? href + (rel.empty() ? "" : " " + rel) : (rel.empty() ? "" : rel + " ") + href;
  return "<li><a " + attributes + ">link " + std::to_string(number) + "</a></li>\n";
}

std::string filler(SiteRandom& random) {
  std::string out = "<p>";
  const uint32_t words = 40 + random.below(80);
  for (uint32_t i = 0; i < words; ++i) {
    out += kWords[random.below(std::size(kWords))];
    out += i + 1 == words ? ".</p>\n" : " ";
  }
  return out;
}

}  // namespace

SiteResponse render_page(const SitePage& page, uint64_t seed) {
  SiteResponse response;
  response.status = page.status;
  response.content_type = page.content_type;
  if (page.type == PageType::kBinary) {
    response.body = page.binary_body;
    return response;
  }
  if (!page.location.empty()) response.headers.emplace_back("Location", page.location);
  if (!page.x_robots_tag.empty()) response.headers.emplace_back("X-Robots-Tag", page.x_robots_tag);
  SiteRandom random(seed);
  std::string& html = response.body;
  html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>" + escape_text(page.title) + "</title>\n";
  if (!page.base_href.empty()) html += "<base href=\"" + escape_attribute(page.base_href, '"', random) + "\">\n";
  if (!page.meta_robots.empty()) {
    html += std::string("<meta name=\"") + (random.one_in(2) ? "robots" : "ROBOTS") + "\" content=\"" +
            page.meta_robots + "\">\n";
  }
  html += "</head>\n<body id=\"top\">\n<h1>" + escape_text(page.title) + "</h1>\n" + filler(random) + "<ul>\n";
  for (size_t i = 0; i < page.links.size(); ++i) {
    html += anchor(page.links[i], i, random);
    if (random.one_in(8)) html += filler(random);
  }
  html += "</ul>\n" + filler(random) + "</body></html>\n";
  return response;
}

SiteResponse render_site_path(const Site& site, size_t host, const std::string& path_query) {
  if (path_query == "/robots.txt") {
    const SiteRobots& robots = site.robots(host);
    SiteResponse answer;
    answer.status = robots.has_robots_txt() ? 200 : 404;
    answer.content_type = "text/plain; charset=utf-8";
    answer.body = robots.has_robots_txt() ? robots.text() : "no robots.txt on this host\n";
    return answer;
  }
  constexpr uint64_t kRenderSalt = 0x7e57;
  const uint64_t seed = page_seed(site.options().seed, kRenderSalt, site.options().hosts[host] + path_query);
  return render_page(site.page(host, path_query), seed);
}

}  // namespace bloomcrawl::testweb
