#include "config/cluster_address.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

namespace bloomcrawl {
namespace {

constexpr std::string_view kScheme = "redis://";
constexpr size_t kMaxNameLength = 64;

bool host_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-'; }

}  // namespace

std::optional<std::string> cluster_name_problem(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return "a crawl's name has 1-64 characters";
  const bool ok = std::ranges::all_of(
      name, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'; });
  if (!ok) return "a crawl's name has only letters, digits, '.', '_' and '-'";
  return std::nullopt;
}

ClusterAddress parse_cluster_address(std::string_view text, bool name) {
  auto bad = [&](std::string_view why) {
    std::string message = "\"";
    message.append(text).append("\" is not ").append(name ? "redis://HOST:PORT/NAME" : "redis://HOST:PORT");
    message.append(": ").append(why);
    return std::invalid_argument(message);
  };
  if (!text.starts_with(kScheme)) throw bad("it must start with redis://");
  std::string_view rest = text.substr(kScheme.size());
  ClusterAddress address;
  const size_t slash = rest.find('/');
  if (slash != std::string_view::npos) {
    if (!name) throw bad("no path may follow the port");
    address.name = rest.substr(slash + 1);
    if (std::optional<std::string> problem = cluster_name_problem(address.name)) throw bad(*problem);
    rest = rest.substr(0, slash);
  } else if (name) {
    throw bad("the crawl's name is missing after the port");
  }
  size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos) throw bad("the port is missing");
  std::string_view host = rest.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    if (host.empty() || !std::ranges::all_of(host, [](char c) {
          return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
        }))
      throw bad("bad IPv6 address");
  } else if (host.empty() || !std::ranges::all_of(host, host_char)) {
    throw bad("bad host");
  }
  const std::string_view port = rest.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535)
    throw bad("the port must be 1-65535");
  address.host = host;
  address.port = static_cast<uint16_t>(value);
  return address;
}

}  // namespace bloomcrawl
