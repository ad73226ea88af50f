// Conditional GET (RFC 9110 §13, docs/recrawl.md "The conditional request"): the validators of a
// stored response, sent back so the server can answer 304 Not Modified instead of the body.
//
// Contract:
// - The values are sent exactly as they were received: an ETag with its quotes and any weak `W/`
//   prefix as If-None-Match, a Last-Modified text as If-Modified-Since, never parsed or
//   re-formatted (a re-formatted date is how a crawler silently loses If-Modified-Since).
// - An empty value, or one that could not be a header value (CR, LF, NUL or another control
//   character but tab), is not sent.
// - A 304 is trusted as "not modified" only for a request that sent at least one validator.
#pragma once

#include <string>
#include <vector>

namespace bloomcrawl {

struct ConditionalValidators {
  std::string etag;           // the ETag header's value, as received ("" = none)
  std::string last_modified;  // the Last-Modified header's value, as received ("" = none)
  bool operator==(const ConditionalValidators&) const = default;
};

// The request header lines ("If-None-Match: ..." and "If-Modified-Since: ...") to send; empty when
// no validator is usable.
std::vector<std::string> conditional_header_lines(const ConditionalValidators& validators);

}  // namespace bloomcrawl
