#include "crawler/queued_url.h"

#include <charconv>

namespace bloomcrawl {

std::string encode_queued_url(std::string_view url, std::string_view parent, uint32_t redirect_hops) {
  std::string out;
  out.reserve(url.size() + parent.size() + 8);
  out.append(url);
  if (!parent.empty() || redirect_hops) {
    out.push_back(' ');
    out.append(parent);
  }
  if (redirect_hops) {
    out.push_back(' ');
    out.append(std::to_string(redirect_hops));
  }
  return out;
}

QueuedUrl decode_queued_url(std::string_view packed) {
  QueuedUrl q;
  size_t sp = packed.find(' ');
  q.url = packed.substr(0, sp);
  if (sp == std::string_view::npos) return q;
  std::string_view rest = packed.substr(sp + 1);
  size_t sp2 = rest.find(' ');
  q.parent = rest.substr(0, sp2);
  if (sp2 != std::string_view::npos) {
    std::string_view hops = rest.substr(sp2 + 1);
    std::from_chars(hops.data(), hops.data() + hops.size(), q.redirect_hops);
  }
  return q;
}

}  // namespace bloomcrawl
