#include "crawler/url_percent.h"

namespace bloomcrawl::url_internal {
namespace {

constexpr EncodeSet make_c0_control_set() {
  EncodeSet set{};
  for (int c = 0; c < 256; ++c) set[c] = c < 0x20 || c > 0x7E;
  return set;
}

constexpr EncodeSet with(EncodeSet set, std::string_view extra) {
  for (char c : extra) set[static_cast<unsigned char>(c)] = true;
  return set;
}

constexpr EncodeSet kC0Control = make_c0_control_set();
constexpr EncodeSet kFragment = with(kC0Control, " \"<>`");
constexpr EncodeSet kQuery = with(kC0Control, " \"#<>");
constexpr EncodeSet kSpecialQuery = with(kQuery, "'");
constexpr EncodeSet kPath = with(kQuery, "?^`{}");
constexpr EncodeSet kUserinfo = with(kPath, "/:;=@[\\]^|");

}  // namespace

const EncodeSet& encode_set(EncodeSetId id) {
  switch (id) {
    case EncodeSetId::kC0Control: return kC0Control;
    case EncodeSetId::kFragment: return kFragment;
    case EncodeSetId::kQuery: return kQuery;
    case EncodeSetId::kSpecialQuery: return kSpecialQuery;
    case EncodeSetId::kPath: return kPath;
    case EncodeSetId::kUserinfo: return kUserinfo;
  }
  return kC0Control;
}

std::string percent_decode(std::string_view input) {
  std::string out;
  out.reserve(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    if (input[i] == '%' && i + 2 < input.size() && hex_value(input[i + 1]) >= 0 &&
        hex_value(input[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_value(input[i + 1]) * 16 + hex_value(input[i + 2])));
      i += 2;
    } else {
      out.push_back(input[i]);
    }
  }
  return out;
}

}  // namespace bloomcrawl::url_internal
