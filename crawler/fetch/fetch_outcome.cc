#include "crawler/fetch/fetch_outcome.h"

#include <cerrno>

namespace bloomcrawl {

const char* fetch_outcome_name(FetchOutcome outcome) {
  switch (outcome) {
    case FetchOutcome::kOk: return "ok";
    case FetchOutcome::kCancelled: return "cancelled";
    case FetchOutcome::kTimeout: return "timeout";
    case FetchOutcome::kConnectFailed: return "connect_failed";
    case FetchOutcome::kDnsFailed: return "dns_failed";
    case FetchOutcome::kBlockedAddress: return "blocked_address";
    case FetchOutcome::kHeaderTooLarge: return "header_too_large";
    case FetchOutcome::kProtocolError: return "protocol_error";
    case FetchOutcome::kConnectionReset: return "connection_reset";
    case FetchOutcome::kTlsError: return "tls_error";
    case FetchOutcome::kOtherError: return "other_error";
    case FetchOutcome::kNotModified: return "not_modified";
  }
  return "unknown";
}

FetchOutcome outcome_of_curl_error(CURLcode code, long os_errno) {
  switch (code) {
    case CURLE_OK: return FetchOutcome::kOk;
    case CURLE_OPERATION_TIMEDOUT: return FetchOutcome::kTimeout;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return FetchOutcome::kDnsFailed;
    case CURLE_COULDNT_CONNECT: return FetchOutcome::kConnectFailed;
    case CURLE_GOT_NOTHING: return FetchOutcome::kConnectionReset;
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
      if (os_errno == ECONNRESET || os_errno == EPIPE || os_errno == ECONNABORTED) {
        return FetchOutcome::kConnectionReset;
      }
      return FetchOutcome::kProtocolError;  // e.g. malformed chunked encoding
    case CURLE_PARTIAL_FILE:                // closed before Content-Length bytes arrived
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_BAD_CONTENT_ENCODING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_TOO_MANY_REDIRECTS: return FetchOutcome::kProtocolError;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_USE_SSL_FAILED: return FetchOutcome::kTlsError;
    default: return FetchOutcome::kOtherError;
  }
}

}  // namespace bloomcrawl
