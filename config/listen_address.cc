#include "config/listen_address.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

namespace bloomcrawl {

ListenAddress parse_listen_address(std::string_view text) {
  auto bad = [&](std::string_view why) {
    std::string message = "\"";
    message.append(text).append("\" is not HOST:PORT: ").append(why);
    return std::invalid_argument(message);
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) throw bad("the port is missing");
  std::string_view host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    const bool ipv6 = std::ranges::all_of(
        host, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.'; });
    if (host.empty() || !ipv6) throw bad("bad IPv6 address");
  } else {
    const bool name = std::ranges::all_of(
        host, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-'; });
    if (host.empty() || !name) throw bad("bad host (an IPv6 address goes in brackets)");
  }
  const std::string_view port = text.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535)
    throw bad("the port must be 0-65535");
  return ListenAddress{std::string(host), uint16_t(value)};
}

}  // namespace bloomcrawl
