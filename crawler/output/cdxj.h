// CDXJ index lines for WARC response records, in the form pywb reads and warcio's indexer writes
// (docs/warc.md, "The CDXJ index"): "URLKEY TIMESTAMP {json}", sorted bytewise.
#pragma once

#include <string>
#include <string_view>

namespace bloomcrawl {

// The SURT-ordered key warcio computes for `url`: lowercased, a leading "www"/"wwwN." dropped, host
// labels reversed and joined by ',', a port after ':', then ')', the path and the sorted query.
std::string cdxj_urlkey(std::string_view url);

// The line's start, up to the JSON's last fields: the writer knows only under its lock where the
// record lands, and appends them with cdxj_finish_line(). `date` is the WARC-Date.
std::string cdxj_line_start(std::string_view url, std::string_view date, std::string_view mime, long status,
                            std::string_view payload_digest);
void cdxj_finish_line(uint64_t length, uint64_t offset, std::string_view filename, std::string* line);

}  // namespace bloomcrawl
