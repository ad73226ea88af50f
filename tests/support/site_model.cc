#include "tests/support/site_model.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

#include "tests/support/site_links.h"
#include "tests/support/site_url.h"

namespace bloomcrawl::testweb {
namespace {

constexpr uint32_t kSections = 5;
constexpr uint32_t kPrivatePages = 4;
constexpr std::string_view kOutOfScope = "http://out-of-scope.invalid/sec0/page0.html";

// The smallest valid PNG (1x1, transparent) and a minimal PDF: real types, nothing to parse.
const std::string kPng(
    "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\r"
    "IDATx\x9c"
    "c\xf8\x0f\0\0\x01\x01\0\x05\x18\xd8N\0\0\0\0IEND\xae"
    "B`\x82",
    67);
const std::string kPdf =
    "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    "2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";

// Redirects: path, status, raw Location (relative forms on purpose). "{next}" is the next host's
// home, "{page1}" content page 1 of the same host (also linked directly, so already seen).
struct RedirectSpec {
  std::string_view path;
  int status;
  std::string_view location;
};
constexpr RedirectSpec kRedirects[] = {
    {"/redirect/to-page", 301, "{page1}"},
    {"/redirect/chain-1", 302, "/redirect/chain-2"},
    {"/redirect/chain-2", 307, "chain-3"},
    {"/redirect/chain-3", 308, "{self}/redirect/chain-end.html"},
    {"/redirect/loop-a", 302, "/redirect/loop-b"},
    {"/redirect/loop-b", 302, "loop-a"},
    {"/redirect/cross-host", 301, "{next}"},
    {"/redirect/to-private", 302, "/private/1.html"},
    {"/redirect/out-of-scope", 302, "http://out-of-scope.invalid/"},
    {"/redirect/to-missing", 301, "../missing/redirected.html"},
};
// Redirects linked from the home page (the others are reached only through a redirect).
constexpr std::string_view kLinkedRedirects[] = {
    "/redirect/to-page",    "/redirect/chain-1",      "/redirect/loop-a",    "/redirect/cross-host",
    "/redirect/to-private", "/redirect/out-of-scope", "/redirect/to-missing"};

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::optional<uint32_t> parse_number(std::string_view s) {
  uint32_t value = 0;
  if (s.empty() || s.size() > 9 || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// n when path is exactly prefix + n + suffix (n written canonically) and n < limit.
std::optional<uint32_t> numbered(std::string_view path, std::string_view prefix, std::string_view suffix,
                                 uint32_t limit) {
  if (!starts_with(path, prefix) || path.size() <= prefix.size() + suffix.size() || !path.ends_with(suffix))
    return std::nullopt;
  auto n = parse_number(path.substr(prefix.size(), path.size() - prefix.size() - suffix.size()));
  if (!n || *n >= limit) return std::nullopt;
  return n;
}

// Every fourth content page links (rel=nofollow only) to a page of its own.
bool has_nofollow_page(uint32_t content_index) { return content_index % 4 == 1; }

SitePage html_page(std::string title) {
  SitePage page;
  page.type = PageType::kHtml;
  page.status = 200;
  page.title = std::move(title);
  page.content_type = "text/html; charset=utf-8";
  return page;
}

std::string calendar_path(uint32_t months) {
  const uint32_t month = months % 12 + 1;
  return "/trap/cal/" + std::to_string(2024 + months / 12) + (month < 10 ? "/0" : "/") + std::to_string(month) + "/";
}

// "/trap/cal/YYYY/MM/" -> months since 2024-01, or nullopt.
std::optional<uint32_t> calendar_month(std::string_view path) {
  constexpr std::string_view prefix = "/trap/cal/";
  if (!starts_with(path, prefix) || path.size() != prefix.size() + 8) return std::nullopt;
  auto year = parse_number(path.substr(prefix.size(), 4));
  const std::string_view mm = path.substr(prefix.size() + 5, 2);
  if (!year || *year < 2024 || !std::isdigit(static_cast<unsigned char>(mm[0])) ||
      !std::isdigit(static_cast<unsigned char>(mm[1])))
    return std::nullopt;
  const auto month = static_cast<uint32_t>((mm[0] - '0') * 10 + (mm[1] - '0'));
  if (month < 1 || month > 12) return std::nullopt;
  const uint32_t months = (*year - 2024) * 12 + (month - 1);
  if (calendar_path(months) != path) return std::nullopt;
  return months;
}

bool is_deep_trap(std::string_view path) {
  constexpr std::string_view prefix = "/trap/deep/";
  if (!starts_with(path, prefix) || path.size() == prefix.size()) return false;
  for (size_t i = prefix.size(); i < path.size(); i += 2) {
    if (path.substr(i, 2) != "x/") return false;
  }
  return true;
}

}  // namespace

Site::Site(SiteOptions options) : options_(std::move(options)) {
  if (options_.hosts.empty()) throw std::invalid_argument("test web: at least one host is needed");
  if (options_.pages_per_host < 2) throw std::invalid_argument("test web: pages_per_host must be >= 2");
  for (std::string& host : options_.hosts) {
    // Canonical URLs carry lowercase hosts; keep the site's names in the same form.
    std::transform(host.begin(), host.end(), host.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  }
  for (size_t h = 0; h < options_.hosts.size(); ++h) robots_.emplace_back(options_.robots && h % 3 != 2);
}

std::string Site::url(size_t host, std::string_view path_query) const {
  return to_string(HttpUrl{options_.hosts[host], options_.port, std::string(path_query)});
}

std::optional<std::pair<size_t, std::string>> Site::locate(std::string_view canonical_url) const {
  auto url = parse_http_url(canonical_url);
  if (!url || url->port != options_.port) return std::nullopt;
  for (size_t h = 0; h < options_.hosts.size(); ++h) {
    if (options_.hosts[h] == url->host) return std::make_pair(h, url->path_query);
  }
  return std::nullopt;
}

std::string Site::content_path(uint32_t page) const {
  const std::string section = "/sec" + std::to_string(page % kSections) + "/";
  if (options_.dynamic && page % 9 == 4) return section + "view?id=" + std::to_string(page) + "&lang=en";
  return section + "page" + std::to_string(page) + ".html";
}

std::optional<uint32_t> Site::content_index(std::string_view path_query) const {
  constexpr std::string_view prefix = "/sec";
  if (!starts_with(path_query, prefix) || path_query.size() < 7) return std::nullopt;
  const size_t slash = path_query.find('/', 1);
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string_view rest = path_query.substr(slash + 1);
  std::optional<uint32_t> index;
  if (starts_with(rest, "page") && rest.size() > 9 && rest.substr(rest.size() - 5) == ".html") {
    index = parse_number(rest.substr(4, rest.size() - 9));
  } else if (starts_with(rest, "view?id=") && rest.size() > 16 && rest.substr(rest.size() - 8) == "&lang=en") {
    index = parse_number(rest.substr(8, rest.size() - 16));
  }
  if (!index || *index >= options_.pages_per_host || content_path(*index) != path_query) return std::nullopt;
  return index;
}

bool Site::is_nofollow_only(std::string_view path_query) {
  return starts_with(path_query, "/nofollow/") || starts_with(path_query, "/meta/hidden-");
}

bool Site::is_trap(std::string_view path_query) { return starts_with(path_query, "/trap/"); }

SitePage Site::page(size_t host, std::string_view path_query) const {
  if (path_query == "/") return home_page(host);
  if (auto index = content_index(path_query)) return content_page(host, *index);
  if (auto special = special_page(host, path_query)) return std::move(*special);
  SitePage missing;
  missing.title = "Not found";
  missing.content_type = "text/html; charset=utf-8";
  return missing;
}

SitePage Site::home_page(size_t host) const {
  SitePage page = html_page(options_.hosts[host] + " home");
  LinkWriter links(*this, host, "/", page_seed(options_.seed, host, "/"));
  for (uint32_t i = 0; i < std::min<uint32_t>(6, options_.pages_per_host); ++i) links.add(host, content_path(i), 2);
  links.add(host, "/private/0.html", 2);
  links.add(host, "/private/open.html", 1);
  links.add(host, "/nofollow/home.html", 1, true);
  links.add(host, content_path(1), 1, true);  // nofollow on a page that is also linked normally
  links.add(host, "/meta/noindex.html", 1);
  links.add(host, "/meta/nofollow.html", 1);
  links.add(host, "/files/report.pdf", 2);
  links.add(host, "/files/image.png", 1);
  links.add(host, "/missing/home.html", 1);
  if (options_.dynamic) {
    links.add(host, "/sec1/form.cgi", 1);
    links.add(host, "/sec1/form.cgi?step=2", 1);
    links.add(host, "/meta/header-nofollow.html", 1);
    links.add(host, "/error/500.html", 1);
    for (auto redirect : kLinkedRedirects) links.add(host, redirect, 1);
  }
  if (options_.trap) {
    links.add(host, calendar_path(0), 1);
    links.add(host, "/trap/deep/x/", 1);
  }
  links.add((host + 1) % host_count(), "/", 2);
  links.add_verbatim("mailto:webmaster@example.invalid", "");
  links.add_verbatim("javascript:void(0)", "");
  links.add_verbatim(std::string(kOutOfScope), std::string(kOutOfScope));
  links.add_verbatim("#top", url(host, "/"));
  page.links = links.take();
  return page;
}

SitePage Site::content_page(size_t host, uint32_t index) const {
  const std::string path_query = content_path(index);
  SitePage page = html_page(options_.hosts[host] + " page " + std::to_string(index));
  const std::string own_dir = path_query.substr(0, path_query.find('/', 1) + 1);
  std::string base_dir = own_dir;
  if (index % 11 == 5) {
    base_dir = "/sec" + std::to_string((index + 2) % kSections) + "/";
    page.base_href = url(host, base_dir);
  } else if (index % 11 == 8) {
    base_dir = "/sec" + std::to_string((index + 3) % kSections) + "/";
    page.base_href = "../sec" + std::to_string((index + 3) % kSections) + "/";
  }
  LinkWriter links(*this, host, base_dir, page_seed(options_.seed, host, path_query));
  SiteRandom& random = links.random();
  const uint32_t n = options_.pages_per_host;
  links.add(host, content_path((index + 1) % n), 1 + random.below(3));
  for (int i = 0; i < 6; ++i) links.add(host, content_path(random.below(n)), 1 + random.below(3));
  links.add(host, "/", 1);
  if (host_count() > 1) {
    const size_t other = (host + 1 + random.below(static_cast<uint32_t>(host_count() - 1))) % host_count();
    links.add(other, content_path(random.below(n)), 1 + random.below(2));
  }
  if (random.one_in(2)) links.add(host, "/private/" + std::to_string(random.below(kPrivatePages)) + ".html", 2);
  if (random.one_in(3)) links.add(host, "/private/open.html", 1);
  if (has_nofollow_page(index)) links.add(host, "/nofollow/" + std::to_string(index) + ".html", 2, true);
  if (random.one_in(6)) links.add(host, "/missing/" + std::to_string(index) + ".html", 1);
  if (random.one_in(8)) links.add(host, random.one_in(2) ? "/files/report.pdf" : "/files/image.png", 1);
  if (options_.trap && random.one_in(5)) links.add(host, calendar_path(0), 1);
  if (options_.dynamic && random.one_in(7)) {
    links.add(host, kLinkedRedirects[random.below(std::size(kLinkedRedirects))], 1);
  }
  if (random.one_in(5)) links.add_verbatim(std::string(kOutOfScope), std::string(kOutOfScope));
  if (random.one_in(4)) links.add_verbatim("mailto:page" + std::to_string(index) + "@example.invalid", "");
  page.links = links.take();
  return page;
}

std::optional<SitePage> Site::special_page(size_t host, std::string_view path_query) const {
  const std::string path(path_query);
  LinkWriter links(*this, host, path.substr(0, path.rfind('/') + 1), page_seed(options_.seed, host, path));
  SitePage page = html_page(options_.hosts[host] + " " + path);
  if (auto number = numbered(path, "/private/", ".html", kPrivatePages); number || path == "/private/open.html") {
    links.add(host, "/private/" + std::to_string(number ? (*number + 1) % kPrivatePages : 0) + ".html", 1);
    links.add(host, number ? "/private/open.html" : "/", 1);
  } else if (auto nofollow = numbered(path, "/nofollow/", ".html", options_.pages_per_host);
             // NOLINTNEXTLINE(bugprone-branch-clone): links home like the meta pages below, but is another page
             path == "/nofollow/home.html" || (nofollow && has_nofollow_page(*nofollow))) {
    links.add(host, "/", 1);
  } else if (path == "/meta/noindex.html") {
    page.meta_robots = "noindex";
    links.add(host, "/meta/after-noindex.html", 2);
  } else if (path == "/meta/nofollow.html") {
    page.meta_robots = "NOINDEX, NOFOLLOW";
    page.links_followable = false;
    links.add(host, "/meta/hidden-1.html", 2);
    links.add(host, "/meta/hidden-2.html", 1);
  } else if (options_.dynamic && path == "/meta/header-nofollow.html") {
    page.x_robots_tag = "nofollow";
    page.links_followable = false;
    links.add(host, "/meta/hidden-3.html", 2);
  } else if (path == "/meta/after-noindex.html" || path == "/meta/hidden-1.html" || path == "/meta/hidden-2.html" ||
             (options_.dynamic && path == "/meta/hidden-3.html") ||
             (options_.dynamic && (path == "/sec1/form.cgi" || path == "/sec1/form.cgi?step=2")) ||
             (options_.dynamic && path == "/redirect/chain-end.html")) {
    links.add(host, "/", 1);
  } else if (path == "/files/report.pdf" || path == "/files/image.png") {
    page.type = PageType::kBinary;
    page.title.clear();
    const bool pdf = path.ends_with(".pdf");
    page.content_type = pdf ? "application/pdf" : "image/png";
    page.binary_body = pdf ? kPdf : kPng;
    return page;
  } else if (options_.dynamic && path == "/error/500.html") {
    page.type = PageType::kServerError;
    page.status = 500;
    page.title = "Internal Server Error";
    return page;
  } else if (options_.trap && calendar_month(path)) {
    const uint32_t month = *calendar_month(path);
    links.add(host, calendar_path(month + 1), 1);
    links.add(host, "/", 1);
  } else if (options_.trap && is_deep_trap(path)) {
    links.add_verbatim("x/", url(host, path + "x/"));
  } else {
    for (const auto& redirect : kRedirects) {
      if (!options_.dynamic || redirect.path != path) continue;
      SitePage moved;
      moved.type = PageType::kRedirect;
      moved.status = redirect.status;
      moved.title = "Moved";
      moved.content_type = "text/html; charset=utf-8";
      std::string location(redirect.location);
      if (location == "{page1}") location = url(host, content_path(1));
      if (location == "{next}") location = home_url((host + 1) % host_count());
      if (starts_with(location, "{self}")) location = url(host, location.substr(6));
      moved.location = location;
      moved.redirect_target = resolve_url(url(host, path), location).value_or("");
      return moved;
    }
    return std::nullopt;
  }
  page.links = links.take();
  return page;
}

std::vector<std::string> Site::static_paths() const {
  if (options_.dynamic || options_.trap) throw std::logic_error("static_paths needs dynamic=false, trap=false");
  std::vector<std::string> paths{"/",
                                 "/meta/noindex.html",
                                 "/meta/after-noindex.html",
                                 "/meta/nofollow.html",
                                 "/meta/hidden-1.html",
                                 "/meta/hidden-2.html",
                                 "/nofollow/home.html",
                                 "/private/open.html",
                                 "/files/report.pdf",
                                 "/files/image.png"};
  for (uint32_t i = 0; i < kPrivatePages; ++i) paths.push_back("/private/" + std::to_string(i) + ".html");
  for (uint32_t i = 0; i < options_.pages_per_host; ++i) {
    paths.push_back(content_path(i));
    if (has_nofollow_page(i)) paths.push_back("/nofollow/" + std::to_string(i) + ".html");
  }
  return paths;
}

}  // namespace bloomcrawl::testweb
