// Writes a text file so that a reader polling for it never sees it half-written: write a temp file
// next to it, then rename over the target. Throws std::runtime_error naming the path on failure.
#pragma once

#include <string>

namespace bloomcrawl::testweb {

void write_file_atomically(const std::string& path, const std::string& contents);

}  // namespace bloomcrawl::testweb
