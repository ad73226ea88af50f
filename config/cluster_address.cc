#include "config/cluster_address.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

namespace bloomcrawl {
namespace {

constexpr std::string_view kScheme = "redis://";
constexpr std::string_view kTlsScheme = "rediss://";
constexpr size_t kMaxNameLength = 64;

bool host_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-'; }

// `text` with its credentials, if any, written as "***@": what an error message may show.
std::string redacted(std::string_view text) {
  const size_t start = text.find("://");
  const size_t at = text.rfind('@');
  if (start == std::string_view::npos || at == std::string_view::npos || at < start) return std::string(text);
  return std::string(text.substr(0, start + 3)) + "***" + std::string(text.substr(at));
}

// Undoes '%XX' escapes; nullopt when one is broken.
std::optional<std::string> percent_decoded(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    unsigned byte = 0;
    if (i + 2 >= text.size()) return std::nullopt;
    auto [end, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 3, byte, 16);
    if (ec != std::errc() || end != text.data() + i + 3) return std::nullopt;
    out += static_cast<char>(byte);
    i += 2;
  }
  return out;
}

}  // namespace

std::string ClusterAddress::server_url() const {
  const bool v6 = host.find(':') != std::string::npos;
  return std::string(kScheme) + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

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
    message.append(redacted(text)).append("\" is not ");
    message.append(name ? "redis://[USER:]PASSWORD@HOST:PORT/NAME" : "redis://HOST:PORT");
    message.append(": ").append(why);
    return std::invalid_argument(message);
  };
  if (text.starts_with(kTlsScheme)) {
    throw bad(
        "rediss:// (TLS) is not available: Debian 12's hiredis (0.14) has no TLS; reach a TLS Redis "
        "through a local stunnel tunnel as docs/cluster.md (\"TLS\") shows");
  }
  if (!text.starts_with(kScheme)) throw bad("it must start with redis://");
  std::string_view rest = text.substr(kScheme.size());
  ClusterAddress address;
  // The credentials end at the last '@': neither the host nor the name may hold one, a password may.
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = rest.substr(0, at);
    const size_t colon = userinfo.find(':');
    const std::optional<std::string> user =
        percent_decoded(colon == std::string_view::npos ? std::string_view() : userinfo.substr(0, colon));
    const std::optional<std::string> password =
        percent_decoded(colon == std::string_view::npos ? userinfo : userinfo.substr(colon + 1));
    if (!user || !password) throw bad("a broken %XX escape in the credentials");
    if (password->empty()) throw bad("the password before '@' is empty");
    address.user = *user;
    address.password = *password;
    rest = rest.substr(at + 1);
  }
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
