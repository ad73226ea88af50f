#include "crawler/observe/host_allowlist.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "base/ip_address.h"

namespace bloomcrawl {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); });
  return out;
}

// A host as compared: lower case, IPv6 without brackets, no trailing dot.
std::string normalized(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  return lower(host);
}

// The host part of a Host header value, or nullopt when the value is not HOST[:PORT].
std::optional<std::string_view> host_of(std::string_view header) {
  std::string_view host = header;
  std::string_view port;
  if (header.starts_with('[')) {
    const size_t close = header.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = header.substr(0, close + 1);
    port = header.substr(close + 1);
    if (!port.empty() && !port.starts_with(':')) return std::nullopt;
  } else if (const size_t colon = header.find(':'); colon != std::string_view::npos) {
    host = header.substr(0, colon);
    port = header.substr(colon);
  }
  if (!port.empty()) {
    port.remove_prefix(1);
    if (port.empty() || !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
  }
  if (host.empty()) return std::nullopt;
  return host;
}

bool is_ip_literal(std::string_view host) {
  IpAddress ip;
  return IpAddress::parse(host, &ip);
}

}  // namespace

HostAllowlist::HostAllowlist(std::string_view listen_host, const std::vector<std::string>& configured) {
  const std::string listen = normalized(listen_host);
  names_.push_back(listen);
  IpAddress ip;
  const bool parsed = IpAddress::parse(listen, &ip);
  const std::array<uint8_t, 16> v6_loopback{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  const bool loopback = listen == "localhost" || (parsed && (ip.v6 ? ip.bytes == v6_loopback : ip.bytes[12] == 127));
  if (loopback) names_.emplace_back("localhost");
  any_ip_literal_ = listen == "0.0.0.0" || listen == "::";
  for (const std::string& name : configured) names_.push_back(normalized(name));
}

bool HostAllowlist::allows(std::string_view host_header) const {
  const std::optional<std::string_view> host = host_of(host_header);
  if (!host) return false;
  const std::string name = normalized(*host);
  if (any_ip_literal_ && is_ip_literal(name)) return true;
  return std::find(names_.begin(), names_.end(), name) != names_.end();
}

}  // namespace bloomcrawl
