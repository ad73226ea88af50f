#include "crawler/fetch/payload_digest.h"

#include <openssl/evp.h>

#include <cstdint>
#include <new>

namespace bloomcrawl {
namespace {

// SHA-1 fetched from its provider once: OpenSSL 3 looks EVP_sha1() up again at every init, which
// costs as much as digesting a request head, and a WARC page takes three inits.
const EVP_MD* sha1() {
  static const EVP_MD* const md = [] {
    const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA1", nullptr);
    return fetched != nullptr ? fetched : EVP_sha1();
  }();
  return md;
}

}  // namespace

PayloadDigest::PayloadDigest() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) throw std::bad_alloc();
  reset();
}

PayloadDigest::~PayloadDigest() { EVP_MD_CTX_free(ctx_); }

void PayloadDigest::reset() { EVP_DigestInit_ex(ctx_, sha1(), nullptr); }

void PayloadDigest::update(std::string_view bytes) { EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()); }

std::string PayloadDigest::finish() {
  unsigned char sha[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx_, sha, &length);
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out = "sha1:";
  uint64_t buffer = 0;
  int bits = 0;
  for (unsigned i = 0; i < length; ++i) {  // SHA-1: 160 bits: exactly 32 base32 digits, no padding
    buffer = (buffer << 8) | sha[i];
    bits += 8;
    while (bits >= 5) {
      out.push_back(kAlphabet[(buffer >> (bits - 5)) & 31]);
      bits -= 5;
    }
  }
  return out;
}

std::string sha1_base32_digest(std::string_view data) {
  thread_local PayloadDigest digest;
  digest.reset();
  digest.update(data);
  return digest.finish();
}

}  // namespace bloomcrawl
