#include "config/cidr.h"

#include <cstdio>
#include <vector>

namespace bloomcrawl {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == separator) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

// Decimal number without sign or leading zeros, at most `max`; -1 if not one.
int parse_decimal(std::string_view text, int max) {
  if (text.empty() || text.size() > 3 || (text.size() > 1 && text[0] == '0')) return -1;
  int value = 0;
  for (char c : text) {
    if (!is_digit(c)) return -1;
    value = value * 10 + (c - '0');
  }
  return value <= max ? value : -1;
}

bool parse_ipv4(std::string_view text, std::uint8_t* out) {
  std::vector<std::string_view> octets = split(text, '.');
  if (octets.size() != 4) return false;
  for (size_t i = 0; i < 4; ++i) {
    int value = parse_decimal(octets[i], 255);
    if (value < 0) return false;
    out[i] = static_cast<std::uint8_t>(value);
  }
  return true;
}

// Groups of one side of "::" (or the whole address); an IPv4 tail counts as two groups.
bool parse_ipv6_groups(std::string_view text, bool allow_ipv4_tail, std::vector<std::uint16_t>* groups) {
  if (text.empty()) return true;
  std::vector<std::string_view> parts = split(text, ':');
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string_view part = parts[i];
    if (allow_ipv4_tail && i + 1 == parts.size() && part.find('.') != std::string_view::npos) {
      std::uint8_t v4[4];
      if (!parse_ipv4(part, v4)) return false;
      groups->push_back(static_cast<std::uint16_t>(v4[0] << 8 | v4[1]));
      groups->push_back(static_cast<std::uint16_t>(v4[2] << 8 | v4[3]));
      continue;
    }
    if (part.empty() || part.size() > 4) return false;
    unsigned value = 0;
    for (char c : part) {
      int digit = hex_value(c);
      if (digit < 0) return false;
      value = value << 4 | static_cast<unsigned>(digit);
    }
    groups->push_back(static_cast<std::uint16_t>(value));
  }
  return true;
}

bool parse_ipv6(std::string_view text, std::uint8_t* out) {
  size_t gap = text.find("::");
  std::vector<std::uint16_t> head;
  std::vector<std::uint16_t> tail;
  if (gap == std::string_view::npos) {
    if (!parse_ipv6_groups(text, true, &head) || head.size() != 8) return false;
  } else {
    std::string_view after = text.substr(gap + 2);
    if (after.find("::") != std::string_view::npos) return false;
    if (!parse_ipv6_groups(text.substr(0, gap), false, &head) || !parse_ipv6_groups(after, true, &tail)) {
      return false;
    }
    if (head.size() + tail.size() > 7) return false;  // "::" stands for at least one zero group
  }
  std::vector<std::uint16_t> groups = head;
  groups.resize(8 - tail.size(), 0);
  groups.insert(groups.end(), tail.begin(), tail.end());
  for (size_t i = 0; i < 8; ++i) {
    out[2 * i] = static_cast<std::uint8_t>(groups[i] >> 8);
    out[2 * i + 1] = static_cast<std::uint8_t>(groups[i] & 0xff);
  }
  return true;
}

bool prefix_matches(const std::uint8_t* a, const std::uint8_t* b, int prefix_length) {
  int full_bytes = prefix_length / 8;
  for (int i = 0; i < full_bytes; ++i) {
    if (a[i] != b[i]) return false;
  }
  int rest = prefix_length % 8;
  if (rest == 0) return true;
  auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (a[full_bytes] & mask) == (b[full_bytes] & mask);
}

std::string format_network(const Cidr& cidr) {
  char buffer[64];
  if (!cidr.is_v6) {
    std::snprintf(buffer, sizeof buffer, "%u.%u.%u.%u/%d", cidr.address[0], cidr.address[1], cidr.address[2],
                  cidr.address[3], cidr.prefix_length);
    return buffer;
  }
  std::string text;  // uncompressed but unambiguous
  for (int i = 0; i < 8; ++i) {
    std::snprintf(buffer, sizeof buffer, "%s%x", i ? ":" : "", cidr.address[2 * static_cast<size_t>(i)] << 8 | cidr.address[2 * static_cast<size_t>(i) + 1]);
    text += buffer;
  }
  return text + "/" + std::to_string(cidr.prefix_length);
}

}  // namespace

bool Cidr::contains(const std::uint8_t* ip, bool ip_is_v6) const {
  return ip_is_v6 == is_v6 && prefix_matches(address.data(), ip, prefix_length);
}

std::optional<Cidr> parse_cidr(std::string_view text, std::string* error) {
  Cidr cidr;
  size_t slash = text.find('/');
  std::string_view address = text.substr(0, slash);
  cidr.is_v6 = address.find(':') != std::string_view::npos;
  bool parsed = cidr.is_v6 ? parse_ipv6(address, cidr.address.data()) : parse_ipv4(address, cidr.address.data());
  if (!parsed) {
    *error = cidr.is_v6 ? "not an IPv6 address" : "not an IPv4 address (expected four decimal octets, no leading zeros)";
    return std::nullopt;
  }
  int max_prefix = cidr.is_v6 ? 128 : 32;
  cidr.prefix_length = max_prefix;
  if (slash != std::string_view::npos) {
    cidr.prefix_length = parse_decimal(text.substr(slash + 1), max_prefix);
    if (cidr.prefix_length < 0) {
      *error = "prefix length must be a number from 0 to " + std::to_string(max_prefix);
      return std::nullopt;
    }
  }
  Cidr network = cidr;
  int bytes = cidr.is_v6 ? 16 : 4;
  for (int bit = cidr.prefix_length; bit < bytes * 8; ++bit) {
    network.address[bit / 8] &= static_cast<std::uint8_t>(~(0x80 >> (bit % 8)));
  }
  if (network.address != cidr.address) {
    *error = "host bits set past the prefix; did you mean " + format_network(network) + "?";
    return std::nullopt;
  }
  return cidr;
}

}  // namespace bloomcrawl
