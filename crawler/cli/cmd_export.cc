// `bloomcrawl export DIR`: every URL record of the crawl whose checkpoint or output directory is
// DIR, one JSON line each, host by host (docs/records.md), streamed in bounded memory (Nutch's
// `readdb -dump`). A DIR without a records store is an error (exit 1).
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>

#include "crawler/cli/command.h"
#include "crawler/cli/line_stream.h"
#include "crawler/cli/records_source.h"

namespace bloomcrawl::cli {
namespace {

int run_export(const std::string& dir) {
  RecordsSource source(dir);
  uint64_t records = 0;
  try {
    LineWriter out("export", STDOUT_FILENO);
    source.store().scan_all([&](const UrlRecord& record) {
      out.append_line(url_record_json(record));
      ++records;
      return true;
    });
    out.flush();
  } catch (const OutputClosed&) {
    return kOutputClosedExitStatus;
  }
  std::cerr << "bloomcrawl export: " << records << " records\n";
  return 0;
}

RunFn setup_export(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  app.add_option("dir", *dir, "a crawl's checkpoint directory or output directory (running or stopped)")->required();
  app.footer(
      "Prints every URL record as one JSON line, host by host, in bounded memory. A checkpoint directory is read as "
      "of its newest generation; an output directory's records/ as of what the crawl has written out "
      "(docs/records.md).");
  return [dir] { return run_export(*dir); };
}

}  // namespace

BLOOMCRAWL_COMMAND("export", "print every URL record of a crawl as JSON lines", setup_export);

}  // namespace bloomcrawl::cli
