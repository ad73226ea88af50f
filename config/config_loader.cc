// load_config / parse_config / validate_config: text -> JSON -> CrawlConfig, then the checks that
// span fields.
#include <filesystem>

#include "config/config.h"
#include "config/json_reader.h"
#include "config/json_text.h"
#include "config/schema.h"
#include "config/seeds_file.h"

namespace bloomcrawl {
namespace {

using config_detail::Problem;

// Re-applies every field rule to values set in code (the reader already did so for JSON).
class RuleChecker {
 public:
  explicit RuleChecker(std::string source_name) : source_name_(std::move(source_name)) {}

  template <class T, class Rule>
  void field(std::string_view name, const T& member, Rule rule) {
    std::string path = prefix_ + config_detail::json_pointer_token(name);
    if (std::optional<Problem> problem = config_detail::check_member(member, rule)) {
      throw ConfigError(source_name_, path + problem->sub_path, problem->text);
    }
  }

  template <class Section>
  void section(std::string_view name, const Section& member) {
    std::string outer = prefix_;
    prefix_ += config_detail::json_pointer_token(name);
    config_detail::describe(*this, member);
    prefix_ = outer;
  }

 private:
  std::string source_name_;
  std::string prefix_;
};

void check_recrawl(const RecrawlConfig& recrawl, const std::string& source_name) {
  if (recrawl.min_interval_s > recrawl.max_interval_s) {
    throw ConfigError(source_name, "/recrawl/min_interval_s",
                      "must not exceed /recrawl/max_interval_s (" + std::to_string(recrawl.max_interval_s) + "), got " +
                          std::to_string(recrawl.min_interval_s));
  }
  if (recrawl.default_interval_s < recrawl.min_interval_s || recrawl.default_interval_s > recrawl.max_interval_s) {
    throw ConfigError(source_name, "/recrawl/default_interval_s",
                      "must lie within /recrawl/min_interval_s and /recrawl/max_interval_s (" +
                          std::to_string(recrawl.min_interval_s) + ".." + std::to_string(recrawl.max_interval_s) +
                          "), got " + std::to_string(recrawl.default_interval_s));
  }
  if (recrawl.continuous && !recrawl.enabled) {
    throw ConfigError(source_name, "/recrawl/continuous", "needs /recrawl/enabled");
  }
}

void check_across_fields(const CrawlConfig& config, const std::string& source_name, LoadOptions options) {
  if (options.require_seeds && config.seeds.urls.empty() && config.seeds.file_urls.empty()) {
    throw ConfigError(source_name, "/seeds",
                      config.seeds.file.empty()
                          ? "no seed URLs: set /seeds/urls or /seeds/file"
                          : "no seed URLs: /seeds/urls is empty and " + config.seeds.file + " lists none");
  }
  if (config.fetch.connect_timeout_ms > config.fetch.total_timeout_ms) {
    throw ConfigError(source_name, "/fetch/connect_timeout_ms",
                      "must not exceed /fetch/total_timeout_ms (" + std::to_string(config.fetch.total_timeout_ms) +
                          "), got " + std::to_string(config.fetch.connect_timeout_ms));
  }
  if (config.politeness.group_by_ip && config.politeness.group_by != "ip") {
    throw ConfigError(source_name, "/politeness/group_by_ip",
                      R"(is a deprecated alias of /politeness/group_by "ip" and contradicts /politeness/group_by ")" +
                          config.politeness.group_by + "\": set only /politeness/group_by");
  }
  const ClusterConfig& cluster = config.cluster;
  if (cluster.node >= cluster.nodes) {
    throw ConfigError(source_name, "/cluster/node",
                      "must be less than /cluster/nodes (" + std::to_string(cluster.nodes) + "), got " +
                          std::to_string(cluster.node));
  }
  if (cluster.redis.empty() != cluster.name.empty()) {
    throw ConfigError(source_name, cluster.redis.empty() ? "/cluster/redis" : "/cluster/name",
                      "cluster mode needs both /cluster/redis and /cluster/name");
  }
  if (!cluster.password_file.empty() && !cluster.password_env.empty()) {
    throw ConfigError(source_name, "/cluster/password_env",
                      "give /cluster/password_file or /cluster/password_env, not both");
  }
  check_recrawl(config.recrawl, source_name);
}

}  // namespace

CrawlConfig parse_config(std::string_view json_text, std::string_view source_name, LoadOptions options) {
  std::string source(source_name);
  nlohmann::json document = config_detail::parse_json_text(json_text, source);
  CrawlConfig config;
  config_detail::JsonReader(document, source).read(config);
  // The deprecated group_by_ip alone still means group_by "ip"; with both, they must agree.
  if (config.politeness.group_by_ip && !document.contains(nlohmann::json::json_pointer("/politeness/group_by"))) {
    config.politeness.group_by = "ip";
  }
  if (!config.seeds.file.empty()) {
    // Absolute, so the effective config (to_json) names the same file from any directory.
    std::filesystem::path seeds_file = std::filesystem::path(source).parent_path() / config.seeds.file;
    std::error_code error;
    std::filesystem::path absolute = std::filesystem::absolute(seeds_file, error);
    config.seeds.file = (error ? seeds_file : absolute).lexically_normal().string();
    config.seeds.file_urls = config_detail::read_seeds_file(config.seeds.file);
  }
  check_across_fields(config, source, options);
  return config;
}

CrawlConfig load_config(const std::filesystem::path& file, LoadOptions options) {
  // Configs are hand-written; long seed lists belong in seeds.file.
  constexpr std::size_t kMaxConfigBytes = 16 << 20;
  return parse_config(config_detail::read_text_file(file, "config file", kMaxConfigBytes), file.string(), options);
}

void validate_config(const CrawlConfig& config, std::string_view source_name, LoadOptions options) {
  RuleChecker checker{std::string(source_name)};
  config_detail::describe(checker, config);
  check_across_fields(config, std::string(source_name), options);
}

std::vector<std::string> all_seed_urls(const CrawlConfig& config) {
  std::vector<std::string> urls = config.seeds.urls;
  urls.insert(urls.end(), config.seeds.file_urls.begin(), config.seeds.file_urls.end());
  return urls;
}

}  // namespace bloomcrawl
