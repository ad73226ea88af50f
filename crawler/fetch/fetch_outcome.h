// Maps a libcurl transfer error to the FetchOutcome the crawler acts on (retry, give up, back off).
// Limits the fetcher enforces itself (body, decoded and header size, SSRF guard, content gating) are
// decided by the transfer before this mapping is consulted.
#pragma once

#include <curl/curl.h>

#include "crawler/fetch/fetcher.h"

namespace bloomcrawl {

// `os_errno` is CURLINFO_OS_ERRNO: it separates a peer reset from a malformed response, which
// libcurl both reports as CURLE_RECV_ERROR.
FetchOutcome outcome_of_curl_error(CURLcode code, long os_errno);

}  // namespace bloomcrawl
