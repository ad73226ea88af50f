#include "crawler/extract/sitemap.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>

namespace bloomcrawl {
namespace {

bool gzip_magic(std::string_view s) {
  return s.size() >= 2 && static_cast<unsigned char>(s[0]) == 0x1f && static_cast<unsigned char>(s[1]) == 0x8b;
}

// Inflates at most max_bytes; sets *truncated when there was more.
bool gunzip(std::string_view in, size_t max_bytes, std::string& out, bool* truncated, std::string* error) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) {
    *error = "zlib init failed";
    return false;
  }
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = uInt(in.size());
  char buf[65536];
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    size_t n = sizeof buf - zs.avail_out;
    if (out.size() + n > max_bytes) {
      out.append(buf, max_bytes - out.size());
      *truncated = true;
      break;
    }
    out.append(buf, n);
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;  // a cut-off stream: keep what came
  }
  inflateEnd(&zs);
  if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
    *error = std::string("corrupt gzip stream: ") + (zs.msg ? zs.msg : "inflate failed");
    return !out.empty();
  }
  return true;
}

bool iequals_at(std::string_view s, size_t pos, std::string_view word) {
  if (pos + word.size() > s.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[pos + i])) != word[i]) return false;
  }
  return true;
}

// The index just past an optional namespace prefix ("sm:") at `p`.
size_t past_prefix(std::string_view doc, size_t p) {
  size_t colon = p;
  while (colon < doc.size() &&
         (std::isalnum(static_cast<unsigned char>(doc[colon])) || doc[colon] == '-' || doc[colon] == '_'))
    ++colon;
  return colon < doc.size() && doc[colon] == ':' ? colon + 1 : p;
}

bool name_ends_at(std::string_view doc, size_t after) {
  const char c = doc[after];
  return c == '>' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '/';
}

// Finds the next start tag named `name` (any namespace prefix); returns the index just past '>'.
size_t find_start_tag(std::string_view doc, std::string_view name, size_t from) {
  for (size_t lt = doc.find('<', from); lt != std::string_view::npos; lt = doc.find('<', lt + 1)) {
    const size_t p = past_prefix(doc, lt + 1);
    if (!iequals_at(doc, p, name)) continue;
    size_t after = p + name.size();
    if (after >= doc.size()) return std::string_view::npos;
    if (!name_ends_at(doc, after)) continue;
    size_t gt = doc.find('>', after);
    if (gt == std::string_view::npos) return gt;
    if (doc[gt - 1] == '/') continue;  // <loc/>: empty
    return gt + 1;
  }
  return std::string_view::npos;
}

// Finds the next end tag named `name` (any namespace prefix); returns the index of its '<'.
size_t find_end_tag(std::string_view doc, std::string_view name, size_t from) {
  for (size_t lt = doc.find("</", from); lt != std::string_view::npos; lt = doc.find("</", lt + 2)) {
    const size_t p = past_prefix(doc, lt + 2);
    const size_t after = p + name.size();
    if (after < doc.size() && iequals_at(doc, p, name) && name_ends_at(doc, after)) return lt;
  }
  return std::string_view::npos;
}

void append_decoded(std::string_view text, std::string& out) {
  static const std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 9, "<![CDATA[") == 0) {
      size_t end = text.find("]]>", i + 9);
      size_t stop = end == std::string_view::npos ? text.size() : end;
      out.append(text.substr(i + 9, stop - i - 9));
      i = end == std::string_view::npos ? text.size() : end + 3;
      continue;
    }
    if (text[i] == '&') {
      bool matched = false;
      for (const auto& [entity, c] : kEntities) {
        if (text.compare(i, entity.size(), entity) == 0) {
          out.push_back(c);
          i += entity.size();
          matched = true;
          break;
        }
      }
      if (matched) continue;
    }
    out.push_back(text[i++]);
  }
}

std::string trim(std::string s) {
  auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), space));
  s.erase(std::find_if_not(s.rbegin(), s.rend(), space).base(), s.end());
  return s;
}

// The text of the element whose content starts at `pos`, entities and CDATA decoded and trimmed;
// *end is where it stops (the "</" after it, outside CDATA, or the end).
std::string element_text(std::string_view doc, size_t pos, size_t* end) {
  size_t stop = doc.find("</", pos);
  // A CDATA section may contain "</": the text ends at the first "</" outside it.
  const size_t cdata = doc.find("<![CDATA[", pos);
  if (cdata != std::string_view::npos && cdata < stop) {
    const size_t cdata_end = doc.find("]]>", cdata);
    stop = cdata_end == std::string_view::npos ? std::string_view::npos : doc.find("</", cdata_end);
  }
  if (stop == std::string_view::npos) stop = doc.size();
  std::string text;
  append_decoded(doc.substr(pos, stop - pos), text);
  *end = stop;
  return trim(std::move(text));
}

// The text of the first child `name` of `element` (empty: none).
std::string child_text(std::string_view element, std::string_view name, size_t from) {
  const size_t pos = find_start_tag(element, name, from);
  if (pos == std::string_view::npos) return {};
  size_t end = 0;
  return element_text(element, pos, &end);
}

}  // namespace

Sitemap parse_sitemap(std::string_view body, size_t max_locs, size_t max_bytes) {
  Sitemap out;
  std::string inflated;
  if (gzip_magic(body)) {
    if (!gunzip(body, max_bytes, inflated, &out.truncated, &out.error)) return out;
    body = inflated;
  } else if (body.size() > max_bytes) {
    body = body.substr(0, max_bytes);
    out.truncated = true;
  }
  out.is_index = find_start_tag(body, "sitemapindex", 0) != std::string_view::npos;
  const std::string_view element_name = out.is_index ? "sitemap" : "url";
  size_t element_start = 0;  // where the current <loc>'s element may begin: the previous one's end
  for (size_t pos = find_start_tag(body, "loc", 0); pos != std::string_view::npos;) {
    if (out.urls.size() == max_locs) {
      out.truncated = true;
      break;
    }
    size_t end = 0;
    std::string loc = element_text(body, pos, &end);
    const size_t next = find_start_tag(body, "loc", end);
    // The element ends at its closing tag, or where the next <loc> begins when that comes first.
    // Each search stops at the next <loc>: the whole parse stays linear in the body's size.
    const std::string_view before_next = body.substr(0, std::min(next, body.size()));
    const size_t element_end = std::min(find_end_tag(before_next, element_name, end), before_next.size());
    if (!loc.empty()) {
      const std::string_view element = body.substr(0, element_end);
      out.urls.push_back({std::move(loc), child_text(element, "lastmod", element_start),
                          child_text(element, "changefreq", element_start)});
    }
    element_start = element_end;
    pos = next;
  }
  return out;
}

}  // namespace bloomcrawl
