// docs/cluster.md's stunnel recipe for a Redis across an untrusted network, run on loopback: a
// password-protected redis-server behind a server-side stunnel (TLS, its certificate made here),
// and a node crawling through the client side (verifyChain, checkHost), as the recipe configures
// it. Debian's hiredis has no TLS, so this is how `rediss://` is done. Skipped, saying why, where
// stunnel (Debian's stunnel4) or openssl is not installed.
#include <sys/types.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/loopback_port.h"
#include "tests/support/page_records.h"
#include "tests/support/redis_server.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web.h"
#include "tests/support/test_web_config.h"

namespace bloomcrawl {
namespace {

constexpr const char* kPassword = "tunnel-pass";

bool installed(const char* program) {
  return std::system((std::string("command -v ") + program + " >/dev/null 2>&1").c_str()) == 0;
}

// One stunnel process in the foreground, its log read from a pipe: ready once it has bound its
// services ("Configuration successful"); stopped (SIGTERM) by the destructor.
class Stunnel {
 public:
  Stunnel(const std::filesystem::path& config, std::filesystem::path pid_file) : pid_file_(std::move(pid_file)) {
    log_pipe_ = ::popen(("exec stunnel " + config.string() + " 2>&1").c_str(), "r");
  }
  ~Stunnel() {
    stop();
    if (log_pipe_ != nullptr) ::pclose(log_pipe_);
  }
  Stunnel(const Stunnel&) = delete;
  Stunnel& operator=(const Stunnel&) = delete;

  // Reads the log until the services are bound; false (the log says why) if stunnel ended first.
  bool wait_ready() { return read_until("Configuration successful"); }
  // Stops stunnel and returns its whole log.
  std::string stop() {
    if (stopped_) return log_;
    stopped_ = true;
    pid_t pid = 0;
    std::ifstream pid_text(pid_file_);
    if (pid_text >> pid && pid > 0) ::kill(pid, SIGTERM);
    read_until("");  // to the end of its output
    return log_;
  }
  const std::string& log() const { return log_; }

 private:
  bool read_until(const std::string& line_part) {
    char line[4096];
    while (log_pipe_ != nullptr && std::fgets(line, sizeof line, log_pipe_) != nullptr) {
      log_ += line;
      if (!line_part.empty() && std::string(line).find(line_part) != std::string::npos) return true;
    }
    return false;
  }

  std::filesystem::path pid_file_;
  FILE* log_pipe_ = nullptr;
  std::string log_;
  bool stopped_ = false;
};

TEST(StunnelCluster, ANodeReachesAPasswordProtectedRedisThroughTls) {
  if (!installed("stunnel") || !installed("openssl")) {
    GTEST_SKIP() << "stunnel (Debian package stunnel4) or openssl is not installed: scripts/install-deps.sh";
  }
  testing::TempDir dir;
  const std::filesystem::path cert = dir.path() / "redis.pem";
  const std::filesystem::path key = dir.path() / "redis.key";
  // The Redis machine's certificate, for the name the nodes check (checkHost).
  ASSERT_EQ(std::system(("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 "
                         "-subj /CN=redis.internal -addext subjectAltName=DNS:redis.internal -keyout " +
                         key.string() + " -out " + cert.string() + " >/dev/null 2>&1")
                            .c_str()),
            0);
  testing::RedisServer redis({.password = kPassword});
  redis.start();
  const int tls_port = testing::unused_loopback_port();
  const int client_port = testing::unused_loopback_port();
  // The recipe's two sides in one process: the node's client end, and the server end in front of
  // a Redis bound to 127.0.0.1.
  const std::filesystem::path config = dir.path() / "stunnel.conf";
  std::ofstream(config) << "foreground = yes\n"
                        << "pid = " << (dir.path() / "stunnel.pid").string() << "\n"
                        << "[redis-node]\nclient = yes\naccept = 127.0.0.1:" << client_port
                        << "\nconnect = 127.0.0.1:" << tls_port << "\nCAfile = " << cert.string()
                        << "\nverifyChain = yes\ncheckHost = redis.internal\n"
                        << "[redis-server]\naccept = 127.0.0.1:" << tls_port << "\nconnect = 127.0.0.1:" << redis.port()
                        << "\ncert = " << cert.string() << "\nkey = " << key.string() << "\n";
  Stunnel stunnel(config, dir.path() / "stunnel.pid");
  ASSERT_TRUE(stunnel.wait_ready()) << stunnel.log();

  testweb::TestWeb web([] {  // a small web: the crawl only has to go through the tunnel
    testweb::TestWebOptions o;
    o.trap = false;
    o.pages_per_host = 10;
    return o;
  }());
  web.start();
  CrawlConfig c = testing::test_web_config(web, dir.path() / "out");
  c.cluster = ClusterConfig{"redis://127.0.0.1:" + std::to_string(client_port), "tunnel", 1, 0};
  c.cluster.url_password = kPassword;
  const nlohmann::json report = Crawler(settings_from_config(c)).run();
  web.stop();
  const std::string log = stunnel.stop();

  EXPECT_EQ(report["crawl"]["stopped_by"], "done") << report.dump(2);
  std::set<std::string> fetched;
  for (const auto& [url, records] : testing::read_page_records(dir.path() / "out")) {
    if (records[0]["status"].get<long>() != 0) fetched.insert(url);
  }
  const std::vector<std::string> truth = web.ground_truth(web.site_depth());
  EXPECT_EQ(fetched, std::set<std::string>(truth.begin(), truth.end()));
  // Both ends carried the node's connections: TLS between them, with the certificate verified.
  EXPECT_NE(log.find("Service [redis-node] accepted connection"), std::string::npos) << log;
  EXPECT_NE(log.find("Service [redis-server] accepted connection"), std::string::npos) << log;
  EXPECT_NE(log.find("Certificate accepted"), std::string::npos) << log;
}

}  // namespace
}  // namespace bloomcrawl
