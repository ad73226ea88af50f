#include "crawler/url/url_host.h"

#include <array>
#include <charconv>

#include "base/ip_address.h"
#include "crawler/url/url_idna.h"
#include "crawler/url/url_percent.h"

namespace bloomcrawl::url_internal {
namespace {

bool fail(std::string* error, const char* message) {
  if (error) *error = message;
  return false;
}

constexpr bool is_forbidden_host_code_point(unsigned char c) {
  switch (c) {
    case 0x00:
    case '\t':
    case '\n':
    case '\r':
    case ' ':
    case '#':
    case '/':
    case ':':
    case '<':
    case '>':
    case '?':
    case '@':
    case '[':
    case '\\':
    case ']':
    case '^':
    case '|': return true;
    default: return false;
  }
}

constexpr bool is_forbidden_domain_code_point(unsigned char c) {
  return is_forbidden_host_code_point(c) || c < 0x20 || c == '%' || c == 0x7F;
}

// For the ASCII fast path: bytes that end it (non-ASCII, '%') or make the domain invalid.
constexpr std::array<bool, 256> kLeaveAsciiFastPath = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) table[c] = c >= 0x80 || is_forbidden_domain_code_point(c);
  return table;
}();

// The IPv4 number parser. Values above 2^32 are clamped (they fail later either way), so
// arbitrarily long digit strings cannot overflow.
std::optional<uint64_t> parse_ipv4_number(std::string_view input) {
  if (input.empty()) return std::nullopt;
  int radix = 10;
  if (input.size() >= 2 && input[0] == '0' && (input[1] == 'x' || input[1] == 'X')) {
    input.remove_prefix(2);
    radix = 16;
  } else if (input.size() >= 2 && input[0] == '0') {
    input.remove_prefix(1);
    radix = 8;
  }
  uint64_t value = 0;
  constexpr uint64_t kClamp = uint64_t{1} << 40;
  for (char c : input) {
    int digit = hex_value(c);
    if (digit < 0 || digit >= radix) return std::nullopt;
    value = value * radix + digit;
    if (value > kClamp) value = kClamp;
  }
  return value;
}

// "Ends in a number": the last non-empty dot-separated label is all digits or a valid
// IPv4 number (e.g. "0x"), which makes the host an IPv4 address candidate.
bool ends_in_a_number(std::string_view input) {
  if (!input.empty() && input.back() == '.') {
    input.remove_suffix(1);
    if (input.empty()) return false;
  }
  size_t dot = input.rfind('.');
  std::string_view last = dot == std::string_view::npos ? input : input.substr(dot + 1);
  if (last.empty()) return false;
  bool all_digits = true;
  for (char c : last) all_digits = all_digits && c >= '0' && c <= '9';
  return all_digits || parse_ipv4_number(last).has_value();
}

void append_ipv4(std::string& out, uint32_t address) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    char digits[4];
    auto result = std::to_chars(digits, digits + sizeof digits, (address >> shift) & 0xFF);
    out.append(digits, result.ptr);
    if (shift) out.push_back('.');
  }
}

void append_ipv6(std::string& out, const std::array<uint16_t, 8>& pieces) {
  // Compress the first longest run of two or more zero pieces.
  int compress = -1;
  int best_length = 1;
  for (int i = 0; i < 8;) {
    int j = i;
    while (j < 8 && pieces[j] == 0) ++j;
    if (j - i > best_length) {
      best_length = j - i;
      compress = i;
    }
    i = j == i ? i + 1 : j;
  }
  out.push_back('[');
  for (int i = 0; i < 8; ++i) {
    if (i == compress) {
      out += i == 0 ? "::" : ":";
      i += best_length - 1;
      continue;
    }
    char digits[4];
    auto result = std::to_chars(digits, digits + sizeof digits, pieces[i], 16);
    out.append(digits, result.ptr);
    if (i != 7) out.push_back(':');
  }
  out.push_back(']');
}

bool parse_opaque_host(std::string_view input, std::string& out, std::string* error) {
  for (char c : input) {
    if (is_forbidden_host_code_point(static_cast<unsigned char>(c))) {
      return fail(error, "forbidden code point in host");
    }
  }
  append_encoded(out, input, kC0ControlSet);
  return true;
}

// Domains that are plain ASCII, contain no percent-escapes and no "xn--" label map to ASCII
// by lowercasing alone (the spec's own shortcut); most crawled hosts take this path. Appends
// the lowercased domain and returns true, or appends nothing and returns false (also when the
// domain holds a forbidden code point: the slow path then reports it).
bool append_plain_ascii_domain(std::string_view input, std::string& out) {
  size_t start = out.size();
  out.resize(start + input.size());
  char* dest = out.data() + start;
  bool label_start = true;
  for (size_t i = 0; i < input.size(); ++i) {
    auto c = static_cast<unsigned char>(input[i]);
    if (kLeaveAsciiFastPath[c] || (label_start && (c | 0x20) == 'x' && input.size() - i >= 4 &&
                                   (input[i + 1] | 0x20) == 'n' && input[i + 2] == '-' && input[i + 3] == '-')) {
      out.resize(start);
      return false;
    }
    dest[i] = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    label_start = c == '.';
  }
  return true;
}

}  // namespace

std::optional<uint32_t> parse_ipv4(std::string_view input, std::string* error) {
  if (!input.empty() && input.back() == '.') input.remove_suffix(1);
  uint64_t numbers[4];
  int count = 0;
  size_t start = 0;
  while (true) {
    size_t dot = input.find('.', start);
    std::string_view part = input.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (count == 4) {
      fail(error, "IPv4 address has more than four parts");
      return std::nullopt;
    }
    std::optional<uint64_t> number = parse_ipv4_number(part);
    if (!number) {
      fail(error, "IPv4 address part is not a number");
      return std::nullopt;
    }
    numbers[count++] = *number;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  for (int i = 0; i + 1 < count; ++i) {
    if (numbers[i] > 255) {
      fail(error, "IPv4 address part exceeds 255");
      return std::nullopt;
    }
  }
  if (numbers[count - 1] >= (uint64_t{1} << (8 * (5 - count)))) {
    fail(error, "IPv4 address out of range");
    return std::nullopt;
  }
  uint64_t address = numbers[count - 1];
  for (int i = 0; i + 1 < count; ++i) address += numbers[i] << (8 * (3 - i));
  return static_cast<uint32_t>(address);
}

bool parse_host(std::string_view input, bool is_opaque, std::string& out, std::string* error) {
  if (!input.empty() && input[0] == '[') {
    if (input.back() != ']' || input.size() < 2) return fail(error, "unterminated IPv6 address");
    const auto pieces = parse_ipv6_groups(input.substr(1, input.size() - 2), error);
    if (!pieces) return false;
    append_ipv6(out, *pieces);
    return true;
  }
  if (is_opaque) return parse_opaque_host(input, out, error);

  size_t start = out.size();
  bool plain = append_plain_ascii_domain(input, out);
  if (!plain && !domain_to_ascii(percent_decode(input), out, error)) return false;
  std::string_view domain(out.data() + start, out.size() - start);
  if (domain.empty()) return fail(error, "empty host");
  if (!plain) {
    for (char c : domain) {
      if (is_forbidden_domain_code_point(static_cast<unsigned char>(c))) {
        return fail(error, "forbidden code point in host");
      }
    }
  }
  if (ends_in_a_number(domain)) {
    std::optional<uint32_t> address = parse_ipv4(domain, error);
    if (!address) return false;
    out.resize(start);
    append_ipv4(out, *address);
  }
  return true;
}

}  // namespace bloomcrawl::url_internal
