#include "crawler/output/warc_revisit.h"

namespace bloomcrawl {

std::optional<WarcExchange> warc_revisit_of(const FetchResult& result, const OriginalCapture& original) {
  const bool not_modified = result.outcome == FetchOutcome::kNotModified;
  const bool identical = result.outcome == FetchOutcome::kOk && !result.payload_digest.empty() &&
                         result.payload_digest == original.payload_digest;
  if (!not_modified && !identical) {
    return std::nullopt;
  }
  WarcExchange revisit = warc_exchange_of(result);
  revisit.body = {};
  revisit.payload_digest = original.payload_digest;
  revisit.content_type = "warc/revisit";
  revisit.truncated = identical;  // the body was left out on purpose: WARC-Truncated: length
  revisit.revisit_profile = not_modified ? kServerNotModifiedProfile : kIdenticalPayloadDigestProfile;
  revisit.refers_to_uri = original.url;
  revisit.refers_to_date = original.date;
  return revisit;
}

}  // namespace bloomcrawl
