#include "tests/support/test_web_files.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace bloomcrawl::testweb {

void write_file_atomically(const std::string& path, const std::string& contents) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << contents;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + temp);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + temp + " to " + path);
}

}  // namespace bloomcrawl::testweb
