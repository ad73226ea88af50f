// The extension module `bloomcrawl._seenfilter`: PythonSeenFilter as `SeenFilter`, the checkpoint
// errors as Python exceptions. The Python API, its stubs (bloomcrawl/_seenfilter.pyi) and the
// decisions behind it are in docs/python.md.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <optional>

#include "base/data_error.h"
#include "base/dir_lock.h"
#include "python/src/python_seen_filter.h"
#include "seenfilter/checkpoint.h"

namespace py = pybind11;
using bloomcrawl::python::PythonSeenFilter;

PYBIND11_MODULE(_seenfilter, m) {
  m.doc() = "bloomcrawl's seen filter (a scalable blocked Bloom filter) and its checkpoints.";

  // OSError: like the errors of open() and read(), it names the file that could not be used.
  py::register_exception<bloomcrawl::CheckpointError>(m, "CheckpointError", PyExc_OSError).doc() =
      "A checkpoint file is missing, truncated, corrupt, of another format or version, or could not "
      "be written. The message starts with the file's path.";
  py::register_exception<bloomcrawl::DirLockedError>(m, "DirectoryLockedError", PyExc_RuntimeError).doc() =
      "Another process (or another save in this one) holds the checkpoint directory's LOCK; the "
      "message names its PID.";

  m.def(
      "checkpoint_exists", [](const std::filesystem::path& dir) { return bloomcrawl::checkpoint_exists(dir); },
      py::arg("dir"),
      "True if `dir` holds a CURRENT file, i.e. a checkpoint was saved there (SeenFilter.load still "
      "verifies every file).");

  py::class_<PythonSeenFilter>(m, "SeenFilter", R"doc(
"Have we seen this key?" in a few bytes per key, with no false negatives.

A scalable Bloom filter: it grows in layers as keys arrive, and the chance that a new key is
wrongly reported as seen stays below `fpr` however far it grows. Keys are str (taken as
UTF-8) or bytes; "a" and b"a" are the same key. Every method may be called from several
threads at once; add_many releases the GIL while it inserts.

capacity: keys in the first layer (later layers grow by `growth`).
fpr: bound on the false-positive rate, in (0, 1).
memory_limit: bytes of all layers together (default 1 GiB); past it the filter stops
    growing, and new keys are reported new but not remembered (see `full`).
growth: capacity ratio of successive layers (>= 1).
tightening: FPR ratio of successive layers, in [0, 1); 0 makes one layer of `capacity` keys
    that never grows (docs/seenfilter.md).

A filter loaded from a compact state (`bloomcrawl dedup --compact --state`, a crawl's
checkpoint) keeps its hash log on disk: once a write there fails, add and add_many raise
RuntimeError naming it rather than drop keys.
)doc")
      .def(py::init([](uint64_t capacity, double fpr, std::optional<uint64_t> memory_limit, double growth,
                       double tightening) {
             bloomcrawl::SeenFilterOptions options;
             options.initial_capacity = capacity;
             options.target_fpr = fpr;
             if (memory_limit) options.memory_limit_bytes = *memory_limit;
             options.growth_factor = growth;
             options.tightening_ratio = tightening;
             return std::make_unique<PythonSeenFilter>(options);
           }),
           py::arg("capacity") = 10000, py::arg("fpr") = 1e-6, py::arg("memory_limit") = py::none(), py::kw_only(),
           py::arg("growth") = bloomcrawl::SeenFilterOptions{}.growth_factor,
           py::arg("tightening") = bloomcrawl::SeenFilterOptions{}.tightening_ratio)
      .def("add", &PythonSeenFilter::add, py::arg("key"),
           "Records `key`; True when it was new (not in the filter before).")
      .def("add_many", &PythonSeenFilter::add_many, py::arg("keys"),
           "Records every key of the iterable, in order; one bool per key, True when it was new (a "
           "repeat later in the same batch is False). The GIL is released while the keys are inserted.")
      .def("__contains__", &PythonSeenFilter::contains, py::arg("key"),
           "True if `key` was added (or, with probability at most `estimated_fpr`, falsely).")
      .def("__len__", &PythonSeenFilter::size, "Keys recorded (including those of a loaded checkpoint).")
      .def_property_readonly("estimated_fpr", &PythonSeenFilter::estimated_fpr,
                             "Chance that a new key would now be reported as seen.")
      .def_property_readonly("full", &PythonSeenFilter::full, "True once the memory limit stopped the filter growing.")
      .def_property_readonly(
          "capacity", [](const PythonSeenFilter& f) { return f.options().initial_capacity; },
          "Keys in the first layer (a loaded filter keeps its saved value).")
      .def_property_readonly(
          "fpr", [](const PythonSeenFilter& f) { return f.options().target_fpr; },
          "The bound on the false-positive rate (a loaded filter keeps its saved value).")
      .def_property_readonly(
          "growth", [](const PythonSeenFilter& f) { return f.options().growth_factor; },
          "Capacity ratio of successive layers.")
      .def_property_readonly(
          "tightening", [](const PythonSeenFilter& f) { return f.options().tightening_ratio; },
          "FPR ratio of successive layers.")
      .def_property_readonly(
          "memory_limit", [](const PythonSeenFilter& f) { return f.options().memory_limit_bytes; },
          "Bytes all layers may take together.")
      .def("stats", &PythonSeenFilter::stats,
           "The figures of `bloomcrawl dedup --stats`: keys_in, new, duplicates, unrecorded_full (counted "
           "by this object's add/add_many calls), layers, keys, bytes, bits_per_key, estimated_fpr, "
           "estimated_false_positives, full, full_reason.")
      .def("save", &PythonSeenFilter::save, py::arg("dir"), py::arg("keep_manifests") = 2,
           "Saves a checkpoint in bloomcrawl's format into `dir` (created if missing; a checkpoint already "
           "there is replaced), crash-safe: a kill at any instant leaves the previous one loadable. "
           "`bloomcrawl inspect DIR` and `bloomcrawl dedup --state DIR` read it. Returns the manifest's "
           "file name. Raises CheckpointError naming a file that could not be written, "
           "DirectoryLockedError while another process uses `dir`.")
      .def_static("load", &PythonSeenFilter::load, py::arg("dir"), py::arg("memory_limit") = py::none(),
                  "The filter saved in `dir` (by save(), `bloomcrawl dedup --state` or a crawl's filter "
                  "checkpoint), with its saved parameters; `memory_limit` may replace the saved limit. "
                  "Raises CheckpointError naming the file that is missing, truncated or corrupt.")
      .def("__repr__", [](const PythonSeenFilter& f) {
        return "<bloomcrawl.SeenFilter keys=" + std::to_string(f.size()) +
               " estimated_fpr=" + py::repr(py::float_(f.estimated_fpr())).cast<std::string>() + ">";
      });
}
