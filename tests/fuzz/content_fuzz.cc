// Fuzzes the content room's readers (docs/content-seen.md): decode_first_capture() (the digest
// index's value), which must throw CheckpointError on damage and round-trip what it accepts, and
// page_text() with simhash64() and the parameter learner on any bytes, which must not crash or hang.
// The first byte picks the reader. Seeds: corpus/content_fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/data_error.h"
#include "crawler/content/page_text.h"
#include "crawler/content/param_learner.h"
#include "crawler/content/simhash.h"
#include "records/first_capture.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    bloomcrawl::FirstCapture capture;
    try {
      capture = bloomcrawl::decode_first_capture(input, "fuzz");
    } catch (const bloomcrawl::CheckpointError&) {
      return 0;
    }
    if (bloomcrawl::decode_first_capture(bloomcrawl::encode_first_capture(capture), "fuzz") != capture) std::abort();
    return 0;
  }
  const bloomcrawl::PageText text = bloomcrawl::page_text(input);
  if (text.text.size() > 2 * input.size() + 1) std::abort();
  // The input as a URL (the bytes up to the first newline) fetched twice with the page's text.
  bloomcrawl::ParamLearner learner(1, true);
  const std::string url(input.substr(0, input.find('\n')));
  const bloomcrawl::PageContent content{
      .digest = "d", .simhash = bloomcrawl::simhash64(text.text), .title = text.title};
  learner.observe(url, content);
  learner.observe(url + "&x=1", content);
  learner.rewrite(url + "?x=2&y");
  return 0;
}
