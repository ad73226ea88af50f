#include "tests/support/site_links.h"

#include <algorithm>
#include <cctype>

namespace bloomcrawl::testweb {
namespace {

std::string uppercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::vector<std::string_view> directory_segments(std::string_view dir) {
  std::vector<std::string_view> out;
  size_t pos = 1;
  while (pos < dir.size()) {
    const size_t slash = dir.find('/', pos);
    if (slash == std::string_view::npos) break;
    out.push_back(dir.substr(pos, slash - pos));
    pos = slash + 1;
  }
  return out;
}

}  // namespace

LinkWriter::LinkWriter(const Site& site, size_t base_host, std::string base_dir, uint64_t seed)
    : site_(site), base_host_(base_host), base_dir_(std::move(base_dir)), random_(seed) {}

std::string LinkWriter::relative_path(std::string_view path) const {
  const size_t last_slash = path.rfind('/');
  const auto from = directory_segments(base_dir_);
  const auto to = directory_segments(path.substr(0, last_slash + 1));
  size_t common = 0;
  while (common < from.size() && common < to.size() && from[common] == to[common]) ++common;
  std::string out;
  for (size_t i = common; i < from.size(); ++i) out += "../";
  for (size_t i = common; i < to.size(); ++i) out += std::string(to[i]) + "/";
  out += path.substr(last_slash + 1);
  return out.empty() ? "./" : out;
}

std::string LinkWriter::mutate_path(std::string path) {
  const size_t insert_at = path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1;
  switch (random_.below(5)) {
    case 0: return path.insert(insert_at, "./");
    case 1: return path.insert(insert_at, "zz/../");
    case 2: {
      std::vector<size_t> candidates;
      for (size_t i = 0; i < path.size(); ++i) {
        if (std::isalnum(static_cast<unsigned char>(path[i]))) candidates.push_back(i);
      }
      if (candidates.empty()) return path;
      const size_t at = candidates[random_.below(static_cast<uint32_t>(candidates.size()))];
      static constexpr char kUpper[] = "0123456789ABCDEF";
      static constexpr char kLower[] = "0123456789abcdef";
      const char* hex = random_.one_in(2) ? kUpper : kLower;
      const auto byte = static_cast<unsigned char>(path[at]);
      return path.replace(at, 1, std::string{'%', hex[byte >> 4], hex[byte & 15]});
    }
    default: return path;
  }
}

void LinkWriter::add(size_t host, std::string_view path_query, uint32_t copies, bool nofollow) {
  const std::string target = site_.url(host, path_query);
  const size_t q = std::min(path_query.find('?'), path_query.size());
  const std::string_view path = path_query.substr(0, q);
  const std::string_view query = path_query.substr(q);
  const std::string authority = site_.options().hosts[host] + ":" + std::to_string(site_.options().port);
  for (uint32_t copy = 0; copy < copies; ++copy) {
    uint32_t style = random_.below(5);
    if (host != base_host_ && style >= 3) style = random_.below(3);
    SiteLink link{.target = target, .nofollow = nofollow, .base_relative = style >= 3};
    std::string written_path = mutate_path(style == 4 ? relative_path(path) : std::string(path));
    switch (style) {
      case 0: link.href = "http://" + authority; break;
      case 1: link.href = "HTTP://" + uppercase(authority); break;
      case 2: link.href = "//" + authority; break;
      default: break;
    }
    link.href += written_path;
    link.href += query;
    switch (random_.below(4)) {
      case 0: link.href += "#s" + std::to_string(random_.below(9)); break;
      case 1: link.href += "#"; break;
      default: break;
    }
    if (random_.one_in(6)) link.href = "  " + link.href + "\n ";
    links_.push_back(std::move(link));
  }
}

void LinkWriter::add_verbatim(std::string href, std::string target, bool nofollow) {
  links_.push_back(SiteLink{.href = std::move(href), .target = std::move(target), .nofollow = nofollow});
}

}  // namespace bloomcrawl::testweb
