#include "crawler/pipeline/queued_url.h"

#include <charconv>

namespace bloomcrawl {

std::string encode_queued_url(const QueuedUrl& q) {
  std::string out;
  out.reserve(q.url.size() + q.parent.size() + 8);
  out.append(q.url);
  const bool flags = q.sitemap;
  if (!q.parent.empty() || q.redirect_hops || flags) out.append(" ").append(q.parent);
  if (q.redirect_hops || flags) out.append(" ").append(std::to_string(q.redirect_hops));
  if (flags) out.append(" s");
  return out;
}

QueuedUrl decode_queued_url(std::string_view packed) {
  QueuedUrl q;
  std::string_view fields[4];
  size_t n = 0;
  while (n < 4) {
    size_t sp = packed.find(' ');
    fields[n++] = packed.substr(0, sp);
    if (sp == std::string_view::npos) break;
    packed.remove_prefix(sp + 1);
  }
  q.url = fields[0];
  q.parent = fields[1];
  std::from_chars(fields[2].data(), fields[2].data() + fields[2].size(), q.redirect_hops);
  q.sitemap = fields[3] == "s";
  return q;
}

}  // namespace bloomcrawl
