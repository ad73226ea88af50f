#include "crawler/extract/encoding_sniff.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <unicode/utf8.h>

#include "crawler/extract/links_text.h"

namespace bloomcrawl {
namespace {

using links_text::is_html_space;
using links_text::to_ascii_lower;

bool is_ascii_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

bool starts_with_ignore_case(std::string_view text, size_t at, std::string_view prefix) {
  return text.size() - at >= prefix.size() &&
         links_text::equals_ignore_ascii_case(text.substr(at, prefix.size()), prefix);
}

size_t find_ignore_case(std::string_view text, std::string_view word, size_t from) {
  for (size_t i = from; i + word.size() <= text.size(); ++i) {
    if (starts_with_ignore_case(text, i, word)) return i;
  }
  return std::string_view::npos;
}

// The byte order mark's encoding and length (https://encoding.spec.whatwg.org/#bom-sniff).
std::optional<SniffedEncoding> bom_sniff(std::string_view body) {
  if (body.starts_with("\xEF\xBB\xBF")) return SniffedEncoding{Encoding::kUtf8, EncodingSource::kBom, 3};
  if (body.starts_with("\xFE\xFF")) return SniffedEncoding{Encoding::kUtf16Be, EncodingSource::kBom, 2};
  if (body.starts_with("\xFF\xFE")) return SniffedEncoding{Encoding::kUtf16Le, EncodingSource::kBom, 2};
  return std::nullopt;
}

// True if `bytes` are valid UTF-8 and not all ASCII. A sequence cut by the end of `bytes` (a
// page truncated at the byte cap) is not held against them.
bool looks_like_utf8(std::string_view bytes) {
  bool non_ascii = false;
  const char* units = bytes.data();  // U8_NEXT indexes a pointer
  const auto length = static_cast<int32_t>(bytes.size());
  for (int32_t i = 0; i < length;) {
    const int32_t start = i;
    UChar32 code_point;
    U8_NEXT(units, i, length, code_point);
    if (code_point < 0) {
      const auto lead = static_cast<uint8_t>(bytes[static_cast<size_t>(start)]);
      return i == length && length - start < U8_COUNT_TRAIL_BYTES(lead) + 1;
    }
    non_ascii |= code_point >= 0x80;
  }
  return non_ascii;
}

// The prescan's cursor over the first kPrescanBytes bytes. Running off their end ends the
// prescan without a result (kEnd), as a truncated tag cannot be trusted.
class Prescanner {
 public:
  explicit Prescanner(std::string_view bytes) : input_(bytes.substr(0, kPrescanBytes)) {}

  std::optional<Encoding> run();

 private:
  struct Attribute {
    std::string name;
    std::string value;
  };
  static constexpr size_t kEnd = std::string_view::npos;

  bool at_end() const { return position_ >= input_.size(); }
  char byte() const { return input_[position_]; }
  // Moves to the first `c` at or after `from`, or to the end.
  void advance_to(char c, size_t from) {
    position_ = from < input_.size() ? input_.find(c, from) : kEnd;
    if (position_ == kEnd) position_ = input_.size();
  }
  std::optional<Attribute> get_attribute();
  // A <meta ...>: the encoding it declares, if it declares one; otherwise the scan goes on.
  std::optional<Encoding> meta_element();

  std::string_view input_;
  size_t position_ = 0;
};

// https://html.spec.whatwg.org/#prescan-a-byte-stream-to-determine-its-encoding
std::optional<Encoding> Prescanner::run() {
  // An XML declaration in UTF-16 without a byte order mark ("<?x" in either byte order).
  if (input_.starts_with(std::string_view("<\0?\0x\0", 6))) return Encoding::kUtf16Le;
  if (input_.starts_with(std::string_view("\0<\0?\0x", 6))) return Encoding::kUtf16Be;
  while (!at_end()) {
    if (input_.substr(position_).starts_with("<!--")) {
      // To the '>' of the first "-->", whose dashes may be those of "<!--" itself.
      size_t end = input_.find("-->", position_ + 2);
      if (end == kEnd) return std::nullopt;
      position_ = end + 2;
    } else if (starts_with_ignore_case(input_, position_, "<meta") && position_ + 5 < input_.size() &&
               (is_html_space(input_[position_ + 5]) || input_[position_ + 5] == '/')) {
      position_ += 5;
      if (std::optional<Encoding> found = meta_element()) return found;
      if (at_end()) return std::nullopt;
    } else if (byte() == '<' && position_ + 1 < input_.size() &&
               (is_ascii_alpha(input_[position_ + 1]) ||
                (input_[position_ + 1] == '/' && position_ + 2 < input_.size() &&
                 is_ascii_alpha(input_[position_ + 2])))) {
      // Any other tag: skip its name, then its attributes (a '>' in a quoted value is no end).
      while (!at_end() && !is_html_space(byte()) && byte() != '>') ++position_;
      while (get_attribute()) {
      }
      if (at_end()) return std::nullopt;
    } else if (input_.substr(position_).starts_with("<!") || input_.substr(position_).starts_with("</") ||
               input_.substr(position_).starts_with("<?")) {
      advance_to('>', position_ + 1);
      if (at_end()) return std::nullopt;
    }
    ++position_;  // "next byte"
  }
  return std::nullopt;
}

std::optional<Encoding> Prescanner::meta_element() {
  std::vector<std::string> names;
  bool got_pragma = false;
  enum class NeedPragma { kNull, kYes, kNo } need_pragma = NeedPragma::kNull;
  enum class Charset { kNull, kFailure, kFound } charset_state = Charset::kNull;
  Encoding charset = Encoding::kUtf8;
  while (std::optional<Attribute> attribute = get_attribute()) {
    if (std::find(names.begin(), names.end(), attribute->name) != names.end()) continue;
    names.push_back(attribute->name);
    if (attribute->name == "http-equiv") {
      if (attribute->value == "content-type") got_pragma = true;
    } else if (attribute->name == "content") {
      std::optional<Encoding> found = meta_content_charset(attribute->value);
      if (found && charset_state == Charset::kNull) {
        charset = *found;
        charset_state = Charset::kFound;
        need_pragma = NeedPragma::kYes;
      }
    } else if (attribute->name == "charset") {
      std::optional<Encoding> found = encoding_from_label(attribute->value);
      charset_state = found ? Charset::kFound : Charset::kFailure;
      if (found) charset = *found;
      need_pragma = NeedPragma::kNo;
    }
  }
  if (at_end()) return std::nullopt;  // the tag runs past the prescanned bytes
  if (need_pragma == NeedPragma::kNull || (need_pragma == NeedPragma::kYes && !got_pragma) ||
      charset_state != Charset::kFound) {
    return std::nullopt;
  }
  if (charset == Encoding::kUtf16Be || charset == Encoding::kUtf16Le) return Encoding::kUtf8;
  if (charset == Encoding::kXUserDefined) return Encoding::kWindows1252;
  return charset;
}

// https://html.spec.whatwg.org/#concept-get-attributes-when-sniffing. Names and values come
// out in ASCII lower case. Leaves the position on the byte after the attribute, or on '>'
// (or at the end) when there is none.
std::optional<Prescanner::Attribute> Prescanner::get_attribute() {
  while (!at_end() && (is_html_space(byte()) || byte() == '/')) ++position_;
  if (at_end() || byte() == '>') return std::nullopt;
  Attribute attribute;
  // The name, up to '=' (not as its first byte), whitespace, '/' or '>'.
  for (;; ++position_) {
    if (at_end()) return std::nullopt;
    char c = byte();
    if (c == '=' && !attribute.name.empty()) break;
    if (is_html_space(c)) {
      while (!at_end() && is_html_space(byte())) ++position_;
      if (at_end()) return std::nullopt;
      if (byte() != '=') return attribute;  // a name without a value
      break;
    }
    if (c == '/' || c == '>') return attribute;
    attribute.name.push_back(to_ascii_lower(c));
  }
  ++position_;  // past '='
  while (!at_end() && is_html_space(byte())) ++position_;
  if (at_end()) return std::nullopt;
  char c = byte();
  if (c == '"' || c == '\'') {
    const char quote = c;
    for (++position_; !at_end(); ++position_) {
      if (byte() == quote) {
        ++position_;
        return attribute;
      }
      attribute.value.push_back(to_ascii_lower(byte()));
    }
    return std::nullopt;
  }
  if (c == '>') return attribute;
  for (; !at_end(); ++position_) {
    if (is_html_space(byte()) || byte() == '>') return attribute;
    attribute.value.push_back(to_ascii_lower(byte()));
  }
  return std::nullopt;
}

}  // namespace

const char* encoding_source_name(EncodingSource source) {
  switch (source) {
    case EncodingSource::kBom: return "bom";
    case EncodingSource::kContentType: return "content-type";
    case EncodingSource::kMeta: return "meta";
    case EncodingSource::kUtf8Detected: return "utf8-detected";
    case EncodingSource::kDefault: return "default";
  }
  return "default";
}

SniffedEncoding sniff_encoding(std::string_view body, std::string_view content_type) {
  if (std::optional<SniffedEncoding> bom = bom_sniff(body)) return *bom;
  if (std::optional<Encoding> declared = content_type_charset(content_type)) {
    return {*declared, EncodingSource::kContentType, 0};
  }
  if (std::optional<Encoding> declared = prescan_meta_charset(body)) return {*declared, EncodingSource::kMeta, 0};
  if (looks_like_utf8(body)) return {Encoding::kUtf8, EncodingSource::kUtf8Detected, 0};
  return {Encoding::kWindows1252, EncodingSource::kDefault, 0};
}

// https://mimesniff.spec.whatwg.org/#parse-a-mime-type, its parameters only.
std::optional<Encoding> content_type_charset(std::string_view content_type) {
  const auto is_http_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  size_t i = content_type.find(';');
  while (i < content_type.size()) {
    ++i;  // past ';'
    while (i < content_type.size() && is_http_space(content_type[i])) ++i;
    size_t name_start = i;
    while (i < content_type.size() && content_type[i] != ';' && content_type[i] != '=') ++i;
    std::string_view name = content_type.substr(name_start, i - name_start);
    if (i >= content_type.size() || content_type[i] == ';') continue;  // a name without a value
    ++i;                                                               // past '='
    std::string value;
    if (i < content_type.size() && content_type[i] == '"') {
      // An HTTP quoted string: backslash escapes the next character; the rest up to ';' is dropped.
      for (++i; i < content_type.size() && content_type[i] != '"'; ++i) {
        if (content_type[i] == '\\' && i + 1 < content_type.size()) ++i;
        value.push_back(content_type[i]);
      }
      i = content_type.find(';', i);
      if (i == std::string_view::npos) i = content_type.size();
    } else {
      size_t value_start = i;
      i = content_type.find(';', i);
      if (i == std::string_view::npos) i = content_type.size();
      size_t value_end = i;
      while (value_end > value_start && is_http_space(content_type[value_end - 1])) --value_end;
      value = content_type.substr(value_start, value_end - value_start);
      if (value.empty()) continue;
    }
    if (links_text::equals_ignore_ascii_case(name, "charset")) return encoding_from_label(value);
  }
  return std::nullopt;
}

std::optional<Encoding> prescan_meta_charset(std::string_view bytes) { return Prescanner(bytes).run(); }

// https://html.spec.whatwg.org/#algorithm-for-extracting-a-character-encoding-from-a-meta-element
std::optional<Encoding> meta_content_charset(std::string_view content) {
  size_t position = 0;
  for (;;) {
    size_t found = find_ignore_case(content, "charset", position);
    if (found == std::string_view::npos) return std::nullopt;
    position = found + 7;
    while (position < content.size() && is_html_space(content[position])) ++position;
    if (position >= content.size() || content[position] != '=') continue;  // look again from here
    ++position;
    while (position < content.size() && is_html_space(content[position])) ++position;
    if (position >= content.size()) return std::nullopt;
    const char first = content[position];
    if (first == '"' || first == '\'') {
      size_t close = content.find(first, position + 1);
      if (close == std::string_view::npos) return std::nullopt;
      return encoding_from_label(content.substr(position + 1, close - position - 1));
    }
    size_t end = position;
    while (end < content.size() && !is_html_space(content[end]) && content[end] != ';') ++end;
    return encoding_from_label(content.substr(position, end - position));
  }
}

}  // namespace bloomcrawl
