#include "crawler/persist/journal_replay.h"

#include <algorithm>

namespace bloomcrawl {
namespace {

struct Apply {
  JournalReplay& r;
  const OutputsCheck& outputs_on_disk;
  void operator()(AdmittedRecord& a) const { r.admitted.push_back(std::move(a)); }
  void operator()(DispatchedRecord& d) const {
    if (!r.outstanding.insert(d.url).second) ++r.refetched;
    r.completed.erase(d.url);
  }
  void operator()(CompletedRecord& c) const {
    if (c.outputs && outputs_on_disk && !outputs_on_disk(c)) {
      r.outputs_lost.insert(std::move(c.url));  // as if never completed: fetched again
      return;
    }
    r.outputs_lost.erase(c.url);
    r.outstanding.erase(c.url);
    if (c.status == 0) {
      ++r.pages_failed;
    } else {
      ++r.pages_fetched;
      r.bytes_received += c.bytes;
      r.fetch_ms_total += c.fetch_ms;
      ++r.status_counts[std::min<uint32_t>(c.status / 100, 5)];
    }
    r.completed.insert(c.url);
    if (!c.outcome.empty()) r.outcomes.push_back(std::move(c));
  }
  void operator()(AuditFalsePositiveRecord& a) const { r.audit_false_positives.push_back(a.url_hash); }
  void operator()(StatsRecord& s) const {
    nlohmann::json j = nlohmann::json::parse(s.json, nullptr, false);
    if (j.is_object()) r.last_stats = std::move(j);  // counters only: a bad one is not worth a stop
  }
};

void apply(JournalContents contents, const std::string& name, JournalReplay& into,
           const OutputsCheck& outputs_on_disk) {
  if (!contents.problem.empty()) into.problems.push_back(name + ": " + contents.problem);
  for (size_t i = 0; i < contents.records.size(); ++i) {
    std::optional<JournalEntry> entry;
    try {
      entry = decode_record(contents.records[i]);
    } catch (const std::exception& e) {
      // A record whose checksum holds but whose payload does not parse was written by a broken
      // or foreign writer: stop here, as for a damaged record.
      into.problems.push_back(name + ": record " + std::to_string(i) + ": " + e.what());
      return;
    }
    if (!entry) continue;
    ++into.records;
    std::visit(Apply{into, outputs_on_disk}, *entry);
  }
}

}  // namespace

void replay_journal_bytes(std::string_view bytes, const std::string& name, JournalReplay& into,
                          const OutputsCheck& outputs_on_disk) {
  apply(parse_journal(bytes, name), name, into, outputs_on_disk);
}

JournalReplay replay_journals(const std::vector<std::filesystem::path>& journals,
                              const std::vector<std::string>& outstanding_at_cut, const OutputsCheck& outputs_on_disk) {
  JournalReplay r;
  r.outstanding.insert(outstanding_at_cut.begin(), outstanding_at_cut.end());
  for (const std::filesystem::path& path : journals) {
    apply(read_journal_file(path), path.string(), r, outputs_on_disk);
  }
  return r;
}

}  // namespace bloomcrawl
