#include "base/ip_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace bloomcrawl {
namespace {

bool is_digit(int c) { return c >= '0' && c <= '9'; }

int hex_value(int c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool fail(std::string* error, const char* message) {
  if (error) *error = message;
  return false;
}

// Decimal without sign or leading zeros, at most `max`; -1 if not one.
int parse_decimal(std::string_view text, int max) {
  if (text.empty() || text.size() > 3 || (text.size() > 1 && text[0] == '0')) return -1;
  int value = 0;
  for (char c : text) {
    if (!is_digit(c)) return -1;
    value = value * 10 + (c - '0');
  }
  return value <= max ? value : -1;
}

bool parse_ipv4(std::string_view text, uint8_t* out) {
  for (int i = 0; i < 4; ++i) {
    const size_t dot = i < 3 ? text.find('.') : text.size();
    if (dot == std::string_view::npos) return false;
    const int value = parse_decimal(text.substr(0, dot), 255);
    if (value < 0) return false;
    out[i] = static_cast<uint8_t>(value);
    text.remove_prefix(i < 3 ? dot + 1 : dot);
  }
  return true;
}

// The WHATWG URL standard's IPv6 parser (https://url.spec.whatwg.org/#concept-ipv6-parser).
// "::" always takes a group's place, so it stands for one or more zero groups, as in RFC 4291.
bool parse_ipv6(std::string_view input, uint16_t (&pieces)[8], std::string* error) {
  for (uint16_t& piece : pieces) piece = 0;
  int piece_index = 0;
  int compress = -1;
  size_t p = 0;
  auto at = [&](size_t i) -> int { return i < input.size() ? static_cast<unsigned char>(input[i]) : -1; };
  if (at(p) == ':') {
    if (at(p + 1) != ':') return fail(error, "IPv6 address starts with a single ':'");
    p += 2;
    compress = ++piece_index;
  }
  while (at(p) != -1) {
    if (piece_index == 8) return fail(error, "IPv6 address has too many pieces");
    if (at(p) == ':') {
      if (compress != -1) return fail(error, "IPv6 address has more than one '::'");
      ++p;
      compress = ++piece_index;
      continue;
    }
    int value = 0;
    int length = 0;
    while (length < 4 && hex_value(at(p)) >= 0) {
      value = value * 16 + hex_value(at(p));
      ++p;
      ++length;
    }
    if (at(p) == '.') {
      if (length == 0) return fail(error, "IPv6 embedded IPv4 part is empty");
      p -= length;
      if (piece_index > 6) return fail(error, "IPv6 embedded IPv4 address is misplaced");
      int numbers_seen = 0;
      while (at(p) != -1) {
        int ipv4_piece = -1;
        if (numbers_seen > 0) {
          if (at(p) == '.' && numbers_seen < 4) {
            ++p;
          } else {
            return fail(error, "IPv6 embedded IPv4 address is malformed");
          }
        }
        if (!is_digit(at(p))) return fail(error, "IPv6 embedded IPv4 part is not a number");
        while (is_digit(at(p))) {
          const int number = at(p) - '0';
          if (ipv4_piece == -1) {
            ipv4_piece = number;
          } else if (ipv4_piece == 0) {
            return fail(error, "IPv6 embedded IPv4 part has a leading zero");
          } else {
            ipv4_piece = ipv4_piece * 10 + number;
          }
          if (ipv4_piece > 255) return fail(error, "IPv6 embedded IPv4 part exceeds 255");
          ++p;
        }
        pieces[piece_index] = static_cast<uint16_t>(pieces[piece_index] * 0x100 + ipv4_piece);
        ++numbers_seen;
        if (numbers_seen == 2 || numbers_seen == 4) ++piece_index;
      }
      if (numbers_seen != 4) return fail(error, "IPv6 embedded IPv4 address is too short");
      break;
    }
    if (at(p) == ':') {
      ++p;
      if (at(p) == -1) return fail(error, "IPv6 address ends with ':'");
    } else if (at(p) != -1) {
      return fail(error, "invalid character in IPv6 address");
    }
    pieces[piece_index++] = static_cast<uint16_t>(value);
  }
  if (compress != -1) {
    int swaps = piece_index - compress;
    piece_index = 7;
    while (piece_index != 0 && swaps > 0) {
      std::swap(pieces[piece_index], pieces[compress + swaps - 1]);
      --piece_index;
      --swaps;
    }
  } else if (piece_index != 8) {
    return fail(error, "IPv6 address is too short");
  }
  return true;
}

// The network a mistyped range meant, IPv6 uncompressed so no group can be misread.
std::string format_network(const CidrRange& range) {
  if (!range.base.v6) return range.base.to_string() + "/" + std::to_string(range.prefix_bits);
  std::string text;
  char group[8];
  for (size_t i = 0; i < 8; ++i) {
    std::snprintf(group, sizeof group, "%s%x", i ? ":" : "",
                  range.base.bytes[2 * i] << 8 | range.base.bytes[2 * i + 1]);
    text += group;
  }
  return text + "/" + std::to_string(range.prefix_bits);
}

}  // namespace

std::optional<std::array<uint16_t, 8>> parse_ipv6_groups(std::string_view text, std::string* error) {
  uint16_t pieces[8];
  if (!parse_ipv6(text, pieces, error)) return std::nullopt;
  std::array<uint16_t, 8> out;
  std::copy(std::begin(pieces), std::end(pieces), out.begin());
  return out;
}

bool IpAddress::parse(std::string_view text, IpAddress* out) {
  IpAddress a;
  if (text.find(':') == std::string_view::npos) {
    if (!parse_ipv4(text, a.bytes.data() + 12)) return false;
  } else {
    const auto groups = parse_ipv6_groups(text, nullptr);
    if (!groups) return false;
    a.v6 = true;
    for (size_t i = 0; i < 8; ++i) {
      a.bytes[2 * i] = static_cast<uint8_t>((*groups)[i] >> 8);
      a.bytes[2 * i + 1] = static_cast<uint8_t>((*groups)[i] & 0xff);
    }
  }
  *out = a;
  return true;
}

bool IpAddress::from_sockaddr(const sockaddr* address, IpAddress* out) {
  IpAddress a;
  if (address->sa_family == AF_INET) {
    sockaddr_in in;
    std::memcpy(&in, address, sizeof in);
    std::memcpy(a.bytes.data() + 12, &in.sin_addr, 4);
  } else if (address->sa_family == AF_INET6) {
    sockaddr_in6 in6;
    std::memcpy(&in6, address, sizeof in6);
    std::memcpy(a.bytes.data(), &in6.sin6_addr, 16);
    a.v6 = true;
  } else {
    return false;
  }
  *out = a;
  return true;
}

std::string IpAddress::to_string() const {
  char buffer[INET6_ADDRSTRLEN] = {};
  if (v6) {
    inet_ntop(AF_INET6, bytes.data(), buffer, sizeof buffer);
  } else {
    inet_ntop(AF_INET, bytes.data() + 12, buffer, sizeof buffer);
  }
  return buffer;
}

bool CidrRange::contains(const IpAddress& address) const {
  if (address.v6 != base.v6) return false;
  const unsigned offset = base.v6 ? 0 : 12;  // IPv4 lives in the last 4 bytes
  unsigned bits = prefix_bits;
  for (unsigned i = offset; bits > 0; ++i) {
    const unsigned take = bits < 8 ? bits : 8;
    const auto mask = static_cast<uint8_t>(0xFF00u >> take);
    if ((address.bytes[i] & mask) != (base.bytes[i] & mask)) return false;
    bits -= take;
  }
  return true;
}

CidrRange CidrRange::parse(std::string_view text) {
  std::string error;
  std::optional<CidrRange> range = parse_cidr(text, &error);
  if (!range) throw std::invalid_argument("invalid address range '" + std::string(text) + "': " + error);
  return *range;
}

std::optional<CidrRange> parse_cidr(std::string_view text, std::string* error) {
  CidrRange range;
  const size_t slash = text.find('/');
  const std::string_view address = text.substr(0, slash);
  if (!IpAddress::parse(address, &range.base)) {
    *error = address.find(':') != std::string_view::npos
                 ? "not an IPv6 address"
                 : "not an IPv4 address (expected four decimal octets, no leading zeros)";
    return std::nullopt;
  }
  const int max_prefix = range.base.v6 ? 128 : 32;
  range.prefix_bits = static_cast<unsigned>(max_prefix);
  if (slash != std::string_view::npos) {
    const int prefix = parse_decimal(text.substr(slash + 1), max_prefix);
    if (prefix < 0) {
      *error = "prefix length must be a number from 0 to " + std::to_string(max_prefix);
      return std::nullopt;
    }
    range.prefix_bits = static_cast<unsigned>(prefix);
  }
  CidrRange network = range;
  const unsigned offset = range.base.v6 ? 0 : 12;
  for (unsigned bit = range.prefix_bits; bit < static_cast<unsigned>(max_prefix); ++bit) {
    network.base.bytes[offset + bit / 8] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
  }
  if (network != range) {
    *error = "host bits set past the prefix; did you mean " + format_network(network) + "?";
    return std::nullopt;
  }
  return range;
}

}  // namespace bloomcrawl
