// to_json(): the schema's writer visitor.
#include "config/schema.h"

namespace bloomcrawl {
namespace {

class JsonWriter {
 public:
  explicit JsonWriter(nlohmann::json* out) : out_(out) {}

  template <class T, class Rule>
  void field(std::string_view name, const T& member, Rule) {
    (*out_)[std::string(name)] = member;
  }

  template <class Section>
  void section(std::string_view name, const Section& member) {
    JsonWriter inner(&(*out_)[std::string(name)]);
    *inner.out_ = nlohmann::json::object();
    config_detail::describe(inner, member);
  }

 private:
  nlohmann::json* out_;
};

}  // namespace

nlohmann::json to_json(const CrawlConfig& config) {
  nlohmann::json out = nlohmann::json::object();
  JsonWriter writer(&out);
  config_detail::describe(writer, config);
  return out;
}

}  // namespace bloomcrawl
