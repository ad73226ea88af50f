#include "config/schema_paths.h"

#include "config/json_text.h"
#include "config/schema.h"

namespace bloomcrawl::config_detail {
namespace {

class PathCollector {
 public:
  template <class T, class Rule>
  void field(std::string_view name, const T&, Rule) {
    paths.push_back({prefix_ + json_pointer_token(name), false});
  }

  template <class Section>
  void section(std::string_view name, const Section& member) {
    std::string outer = prefix_;
    prefix_ += json_pointer_token(name);
    paths.push_back({prefix_, true});
    describe(*this, member);
    prefix_ = outer;
  }

  std::vector<KeyPath> paths;

 private:
  std::string prefix_;
};

}  // namespace

const std::vector<KeyPath>& all_key_paths() {
  static const std::vector<KeyPath> paths = [] {
    PathCollector collector;
    const CrawlConfig defaults;
    describe(collector, defaults);
    return collector.paths;
  }();
  return paths;
}

}  // namespace bloomcrawl::config_detail
