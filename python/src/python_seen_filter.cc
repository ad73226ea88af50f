#include "python/src/python_seen_filter.h"

#include <utility>
#include <vector>

#include "base/dir_lock.h"
#include "python/src/python_keys.h"
#include "seenfilter/checkpoint.h"

namespace bloomcrawl::python {
namespace py = pybind11;

PythonSeenFilter::PythonSeenFilter(const SeenFilterOptions& options) {
  options.validate();
  filter_ = std::make_unique<SeenFilter>(options);
}

std::unique_ptr<PythonSeenFilter> PythonSeenFilter::load(const std::filesystem::path& dir,
                                                         std::optional<uint64_t> memory_limit) {
  FilterSnapshot snapshot;
  {
    py::gil_scoped_release release;
    snapshot = read_checkpoint(dir);
  }
  if (memory_limit) snapshot.options.memory_limit_bytes = *memory_limit;
  return std::make_unique<PythonSeenFilter>(std::make_unique<SeenFilter>(snapshot));
}

void PythonSeenFilter::count(uint64_t fresh, uint64_t duplicates, uint64_t unrecorded) {
  if (fresh != 0) new_.fetch_add(fresh, std::memory_order_relaxed);
  if (duplicates != 0) duplicates_.fetch_add(duplicates, std::memory_order_relaxed);
  if (unrecorded != 0) unrecorded_full_.fetch_add(unrecorded, std::memory_order_relaxed);
}

bool PythonSeenFilter::add(py::handle key) {
  const InsertOutcome outcome = filter_->try_insert(key_bytes(key.ptr()));
  count(outcome == InsertOutcome::kNew, outcome == InsertOutcome::kSeen, outcome == InsertOutcome::kFull);
  return outcome != InsertOutcome::kSeen;
}

py::list PythonSeenFilter::add_many(py::handle keys) {
  const KeyBatch batch(keys);
  const std::vector<std::string_view>& views = batch.views();
  std::vector<InsertOutcome> outcomes(views.size());
  uint64_t fresh = 0;
  uint64_t unrecorded = 0;
  {
    py::gil_scoped_release release;
    filter_->insert_batch(views, outcomes);
    for (const InsertOutcome outcome : outcomes) {
      fresh += outcome == InsertOutcome::kNew;
      unrecorded += outcome == InsertOutcome::kFull;
    }
  }
  count(fresh, views.size() - fresh - unrecorded, unrecorded);
  py::list result(views.size());
  for (size_t i = 0; i < outcomes.size(); ++i) {
    PyObject* answer = outcomes[i] == InsertOutcome::kSeen ? Py_False : Py_True;
    Py_INCREF(answer);
    PyList_SET_ITEM(result.ptr(), static_cast<Py_ssize_t>(i), answer);  // steals the reference
  }
  return result;
}

bool PythonSeenFilter::contains(py::handle key) const { return filter_->contains(key_bytes(key.ptr())); }

py::dict PythonSeenFilter::stats() const {
  const SeenFilterStats s = filter_->stats(false);
  const uint64_t fresh = new_.load(std::memory_order_relaxed);
  const uint64_t duplicates = duplicates_.load(std::memory_order_relaxed);
  const uint64_t unrecorded = unrecorded_full_.load(std::memory_order_relaxed);
  py::dict d;
  d["keys_in"] = fresh + duplicates + unrecorded;
  d["new"] = fresh;
  d["duplicates"] = duplicates;
  d["unrecorded_full"] = unrecorded;
  d["layers"] = s.layers.size();
  d["keys"] = s.keys;
  d["bytes"] = s.bytes;
  d["bits_per_key"] = s.bits_per_key;
  d["estimated_fpr"] = s.estimated_fpr;
  d["estimated_false_positives"] = s.estimated_false_positives;
  d["full"] = s.full;
  d["full_reason"] = s.full_reason;
  return d;
}

std::string PythonSeenFilter::save(const std::filesystem::path& dir, uint32_t keep_manifests) {
  if (keep_manifests < 1) throw std::invalid_argument("keep_manifests must be at least 1");
  py::gil_scoped_release release;
  const std::lock_guard<std::mutex> one_save_at_a_time(save_mu_);
  const DirLock lock(dir);
  CheckpointSaveOptions options;
  options.keep_manifests = keep_manifests;
  return save_checkpoint(filter_->snapshot(), dir, options);
}

}  // namespace bloomcrawl::python
