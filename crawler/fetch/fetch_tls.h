// TLS options of a fetcher's easy handles: which certificates are trusted and whether they are
// checked at all.
//
// Contract:
// - Verification (peer certificate and host name) is on unless FetchOptions::tls_verify is false.
// - FetchOptions::ca_file, a PEM bundle, is trusted beside the system's CA directory (libcurl's
//   default CAPATH), not instead of it: a crawl that adds its own CA still reaches the public web.
// - check_tls_options() throws std::invalid_argument when ca_file cannot be read, so a typo fails
//   at start rather than as a TLS error on every https page; it logs a warning when verification
//   is off, so an insecure crawl is never silent.
#pragma once

#include <curl/curl.h>

#include "crawler/fetch/fetcher.h"

namespace bloomcrawl {

void check_tls_options(const FetchOptions& options);

// Sets the TLS options on `easy`; `options` must outlive it (ca_file is passed by pointer).
void set_tls_options(CURL* easy, const FetchOptions& options);

}  // namespace bloomcrawl
