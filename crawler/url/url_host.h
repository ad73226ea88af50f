// The WHATWG host parser: turns the raw text between "//" (and userinfo) and the port/path into
// a serialized host. Special schemes get domains (percent-decoded, IDNA-mapped to ASCII,
// checked for forbidden code points) or IPv4 addresses (including the legacy hex/octal and
// fewer-than-four-part forms, normalized to dotted decimal); every scheme accepts "[IPv6]"
// (serialized compressed, lowercase); non-special schemes get opaque hosts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bloomcrawl::url_internal {

// Appends the serialized host to `out`. Returns false (and sets *error if non-null) when the
// host is invalid.
bool parse_host(std::string_view input, bool is_opaque, std::string& out, std::string* error);

// Exposed for tests: the IPv4 parser (WHATWG number forms) on an already ASCII-lowercased
// domain. Bracketed IPv6 goes to base/ip_address.h, whose parser is the standard's.
std::optional<uint32_t> parse_ipv4(std::string_view input, std::string* error);

}  // namespace bloomcrawl::url_internal
