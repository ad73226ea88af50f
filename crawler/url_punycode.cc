#include "crawler/url_punycode.h"

#include <cstddef>
#include <cstdint>

namespace bloomcrawl::url_internal {
namespace {

constexpr uint32_t kBase = 36, kTMin = 1, kTMax = 26, kSkew = 38, kDamp = 700;
constexpr uint32_t kInitialBias = 72, kInitialN = 128;
constexpr uint64_t kMaxValue = 0x7FFFFFFF;

uint32_t adapt(uint32_t delta, uint32_t num_points, bool first_time) {
  delta = first_time ? delta / kDamp : delta / 2;
  delta += delta / num_points;
  uint32_t k = 0;
  while (delta > ((kBase - kTMin) * kTMax) / 2) {
    delta /= kBase - kTMin;
    k += kBase;
  }
  return k + (kBase - kTMin + 1) * delta / (delta + kSkew);
}

uint32_t threshold(uint32_t k, uint32_t bias) {
  if (k <= bias) return kTMin;
  if (k >= bias + kTMax) return kTMax;
  return k - bias;
}

char encode_digit(uint32_t d) { return static_cast<char>(d < 26 ? 'a' + d : '0' + (d - 26)); }

int decode_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0' + 26;
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return c - 'A';
  return -1;
}

}  // namespace

bool punycode_encode(const std::vector<char32_t>& input, std::string& out) {
  uint32_t basic = 0;
  for (char32_t c : input) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++basic;
    }
  }
  if (basic > 0) out.push_back('-');
  uint64_t n = kInitialN, delta = 0;
  uint32_t bias = kInitialBias, handled = basic;
  while (handled < input.size()) {
    uint64_t m = kMaxValue + 1;
    for (char32_t c : input) {
      if (c >= n && c < m) m = c;
    }
    delta += (m - n) * (handled + 1);
    if (delta > kMaxValue) return false;
    n = m;
    for (char32_t c : input) {
      if (c < n && ++delta > kMaxValue) return false;
      if (c != n) continue;
      uint64_t q = delta;
      for (uint32_t k = kBase;; k += kBase) {
        uint32_t t = threshold(k, bias);
        if (q < t) break;
        out.push_back(encode_digit(static_cast<uint32_t>(t + (q - t) % (kBase - t))));
        q = (q - t) / (kBase - t);
      }
      out.push_back(encode_digit(static_cast<uint32_t>(q)));
      bias = adapt(static_cast<uint32_t>(delta), handled + 1, handled == basic);
      delta = 0;
      ++handled;
    }
    ++delta;
    ++n;
  }
  return true;
}

bool punycode_decode(std::string_view input, std::vector<char32_t>& out) {
  size_t last_dash = input.rfind('-');
  size_t start = 0;
  if (last_dash != std::string_view::npos) {
    for (size_t i = 0; i < last_dash; ++i) {
      if (static_cast<unsigned char>(input[i]) >= 0x80) return false;
      out.push_back(static_cast<unsigned char>(input[i]));
    }
    start = last_dash + 1;
  }
  uint64_t n = kInitialN, i = 0;
  uint32_t bias = kInitialBias;
  size_t pos = start;
  while (pos < input.size()) {
    uint64_t old_i = i, w = 1;
    for (uint32_t k = kBase;; k += kBase) {
      if (pos >= input.size()) return false;
      int digit = decode_digit(input[pos++]);
      if (digit < 0) return false;
      i += static_cast<uint64_t>(digit) * w;
      if (i > kMaxValue) return false;
      uint32_t t = threshold(k, bias);
      if (static_cast<uint32_t>(digit) < t) break;
      w *= kBase - t;
      if (w > kMaxValue) return false;
    }
    uint64_t length = out.size() + 1;
    bias = adapt(static_cast<uint32_t>(i - old_i), static_cast<uint32_t>(length), old_i == 0);
    n += i / length;
    i %= length;
    if (n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF)) return false;
    out.insert(out.begin() + static_cast<ptrdiff_t>(i), static_cast<char32_t>(n));
    ++i;
  }
  return true;
}

bool decode_utf8(std::string_view input, std::vector<char32_t>& out) {
  for (size_t i = 0; i < input.size();) {
    auto lead = static_cast<unsigned char>(input[i]);
    int length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3
                                 : (lead >> 3) == 0x1E ? 4 : 0;
    if (length == 0 || i + static_cast<size_t>(length) > input.size()) return false;
    char32_t c = length == 1 ? lead : lead & (0x7F >> length);
    for (int j = 1; j < length; ++j) {
      auto next = static_cast<unsigned char>(input[i + static_cast<size_t>(j)]);
      if ((next & 0xC0) != 0x80) return false;
      c = (c << 6) | (next & 0x3F);
    }
    static constexpr char32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < kMinForLength[length] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return false;
    out.push_back(c);
    i += static_cast<size_t>(length);
  }
  return true;
}

void append_utf8(const std::vector<char32_t>& code_points, std::string& out) {
  for (char32_t c : code_points) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
}

}  // namespace bloomcrawl::url_internal
