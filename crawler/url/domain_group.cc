#include "crawler/url/domain_group.h"

#include <libpsl.h>

#include <algorithm>

#include "base/ip_address.h"

namespace bloomcrawl {
namespace {

const psl_ctx_t* public_suffixes() {
  // Loaded once and kept for the process; lookups only read it. psl_latest falls back on the data
  // built into libpsl, so it is null only where libpsl was built without any.
  static const psl_ctx_t* const psl = psl_latest(nullptr);
  return psl;
}

// "host:port" -> "host"; a bracketed IPv6 literal keeps its brackets.
std::string_view without_port(std::string_view host_key) {
  const size_t colon = host_key.rfind(':');
  if (colon == std::string_view::npos || host_key.find(']', colon) != std::string_view::npos) return host_key;
  const std::string_view port = host_key.substr(colon + 1);
  const bool numeric =
      !port.empty() && std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
  return numeric ? host_key.substr(0, colon) : host_key;
}

}  // namespace

std::string domain_group(std::string_view host_key) {
  const std::string_view host = without_port(host_key);
  IpAddress ip;
  if (host.empty() || host.front() == '[' || IpAddress::parse(host, &ip)) return "";
  const psl_ctx_t* psl = public_suffixes();
  if (psl == nullptr) return "";
  const std::string name(host);
  const char* domain = psl_registrable_domain(psl, name.c_str());
  return domain != nullptr ? std::string(domain) : std::string();
}

bool public_suffix_list_loaded() { return public_suffixes() != nullptr; }

}  // namespace bloomcrawl
