// Fuzzes decode_url_record() (docs/records.md, "Value format, version 3") and the JSON line of
// what it accepts, and decode_record_outcome() ("Outcome operand") on the same bytes. Damaged
// input must throw CheckpointError, never crash or hang; an accepted record must round-trip
// through encode_url_record() and render as one line of valid JSON with every field; an accepted
// operand must round-trip and make, applied, a record that round-trips. The first byte splits
// the input: that many bytes (mod 64) of URL, the rest the value. Seeds (corpus/url_record_fuzz)
// are values of real records and operands.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/data_error.h"
#include "records/record_outcome.h"
#include "records/url_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t url_bytes = std::min<size_t>(data[0] % 64, input.size());
  const std::string_view url = input.substr(0, url_bytes);
  const std::string_view value = input.substr(url_bytes);
  try {
    const bloomcrawl::RecordOutcome outcome = bloomcrawl::decode_record_outcome(url, value);
    if (bloomcrawl::decode_record_outcome(url, bloomcrawl::encode_record_outcome(outcome)) != outcome) std::abort();
    bloomcrawl::UrlRecord made = bloomcrawl::record_made_by(url, outcome);
    bloomcrawl::apply_record_outcome(made, outcome);
    if (bloomcrawl::decode_url_record(url, bloomcrawl::encode_url_record(made)) != made) std::abort();
  } catch (const bloomcrawl::CheckpointError&) {
  }
  bloomcrawl::UrlRecord record;
  try {
    record = bloomcrawl::decode_url_record(url, value);
  } catch (const bloomcrawl::CheckpointError&) {
    return 0;
  }
  if (bloomcrawl::decode_url_record(url, bloomcrawl::encode_url_record(record)) != record) std::abort();
  const std::string line = bloomcrawl::url_record_json(record);
  if (line.find('\n') != std::string::npos) std::abort();
  const nlohmann::json json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || json.size() != 20 || json["admitted"] != true) std::abort();
  return 0;
}
