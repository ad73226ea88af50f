#include "crawler/persist/journal_records.h"

#include <stdexcept>

#include "base/coding.h"

namespace bloomcrawl {
namespace {

// The completed record's optional groups (the u32 after its fixed fields says which follow).
constexpr uint32_t kCompletedHasOutputs = 1;    // where the page's outputs ended
constexpr uint32_t kCompletedHasRecord = 2;     // what the page's URL record holds
constexpr uint32_t kCompletedHasDuplicate = 4;  // the URL its body was first fetched at (content seen)

class PayloadWriter {
 public:
  PayloadWriter& u32(uint32_t v) { return fixed(v, 4); }
  PayloadWriter& u64(uint64_t v) { return fixed(v, 8); }
  PayloadWriter& str(std::string_view s) {
    u32(uint32_t(s.size()));
    out_.append(s);
    return *this;
  }
  const std::string& bytes() const { return out_; }

 private:
  PayloadWriter& fixed(uint64_t v, int n) {
    put_le(out_, v, n);
    return *this;
  }
  std::string out_;
};

class PayloadReader {
 public:
  PayloadReader(std::string_view bytes, const char* what) : in_(bytes), what_(what) {}
  uint32_t u32() { return uint32_t(fixed(4)); }
  uint64_t u64() { return fixed(8); }
  std::string str() {
    const uint32_t n = u32();
    need(n);
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  bool at_end() const { return in_.empty(); }
  void done() const {
    if (!in_.empty())
      throw std::runtime_error(std::string(what_) + " record: " + std::to_string(in_.size()) +
                               " unexpected trailing bytes");
  }

 private:
  void need(size_t n) const {
    if (in_.size() < n) throw std::runtime_error(std::string(what_) + " record: payload too short");
  }
  uint64_t fixed(int n) {
    need(size_t(n));
    const uint64_t v = get_le(in_, 0, n);
    in_.remove_prefix(size_t(n));
    return v;
  }
  std::string_view in_;
  const char* what_;
};

struct Encoder {
  JournalBatch& batch;
  void operator()(const AdmittedRecord& r) const {
    PayloadWriter w;
    w.str(r.host).str(r.entry).u32(r.depth).u32(r.queued ? 1 : 0).u64(uint64_t(r.admitted_ms)).str(r.refusal);
    batch.add(uint8_t(JournalRecordType::kAdmitted), w.bytes());
  }
  void operator()(const DispatchedRecord& r) const { batch.add(uint8_t(JournalRecordType::kDispatched), r.url); }
  void operator()(const CompletedRecord& r) const {
    PayloadWriter w;
    w.str(r.url).u32(r.status).u64(r.bytes).u32(r.fetch_ms);
    // The optional groups, after a u32 saying which follow (docs/checkpoint-format.md, "Journal").
    const uint32_t extras = (r.outputs ? kCompletedHasOutputs : 0) | (r.outcome.empty() ? 0 : kCompletedHasRecord) |
                            (r.duplicate_of.empty() ? 0 : kCompletedHasDuplicate);
    if (extras != 0) w.u32(extras);
    if (r.outputs)
      w.u64(r.outputs->pages_end).u64(r.outputs->edges_end).str(r.outputs->warc_file).u64(r.outputs->warc_end);
    if (!r.outcome.empty()) {
      w.str(r.outcome).u64(uint64_t(r.fetched_ms)).str(r.payload_digest).u32(r.truncated ? 1 : 0);
      w.str(r.etag).str(r.last_modified);
    }
    if (!r.duplicate_of.empty()) w.str(r.duplicate_of);
    batch.add(uint8_t(JournalRecordType::kCompleted), w.bytes());
  }
  void operator()(const AuditFalsePositiveRecord& r) const {
    PayloadWriter w;
    w.u64(r.url_hash);
    batch.add(uint8_t(JournalRecordType::kAuditFalsePositive), w.bytes());
  }
  void operator()(const StatsRecord& r) const { batch.add(uint8_t(JournalRecordType::kStats), r.json); }
};

}  // namespace

void add_record(JournalBatch& batch, const JournalEntry& entry) { std::visit(Encoder{batch}, entry); }

std::optional<JournalEntry> decode_record(const JournalRecord& record) {
  switch (JournalRecordType(record.type)) {
    case JournalRecordType::kAdmitted: {
      PayloadReader r(record.payload, "admitted");
      AdmittedRecord a;
      a.host = r.str();
      a.entry = r.str();
      a.depth = r.u32();
      const uint32_t queued = r.u32();
      if (queued > 1) throw std::runtime_error("admitted record: queued flag " + std::to_string(queued));
      a.queued = queued == 1;
      if (!r.at_end()) {
        a.admitted_ms = int64_t(r.u64());
        a.refusal = r.str();
      }
      r.done();
      return a;
    }
    case JournalRecordType::kDispatched: return DispatchedRecord{record.payload};
    case JournalRecordType::kCompleted: {
      PayloadReader r(record.payload, "completed");
      CompletedRecord c;
      c.url = r.str();
      c.status = r.u32();
      c.bytes = r.u64();
      c.fetch_ms = r.u32();
      const uint32_t extras = r.at_end() ? 0 : r.u32();
      if (extras & ~(kCompletedHasOutputs | kCompletedHasRecord | kCompletedHasDuplicate))
        throw std::runtime_error("completed record: unknown optional groups " + std::to_string(extras));
      if (extras & kCompletedHasOutputs) {
        CompletedOutputs& o = c.outputs.emplace();
        o.pages_end = r.u64();
        o.edges_end = r.u64();
        o.warc_file = r.str();
        o.warc_end = r.u64();
      }
      if (extras & kCompletedHasRecord) {
        c.outcome = r.str();
        c.fetched_ms = int64_t(r.u64());
        c.payload_digest = r.str();
        c.truncated = r.u32() != 0;
        c.etag = r.str();
        c.last_modified = r.str();
      }
      if (extras & kCompletedHasDuplicate) c.duplicate_of = r.str();
      r.done();
      return c;
    }
    case JournalRecordType::kAuditFalsePositive: {
      PayloadReader r(record.payload, "audit");
      AuditFalsePositiveRecord a{r.u64()};
      r.done();
      return a;
    }
    case JournalRecordType::kStats: return StatsRecord{record.payload};
  }
  return std::nullopt;
}

}  // namespace bloomcrawl
