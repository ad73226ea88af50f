// metrics.listen: HOST:PORT, checked where the config is read.
#include "config/listen_address.h"

#include <gtest/gtest.h>

#include "config/config.h"
#include "config/config_error.h"

namespace bloomcrawl {
namespace {

TEST(ListenAddressTest, ParsesHostAndPort) {
  EXPECT_EQ(parse_listen_address("127.0.0.1:9464"), (ListenAddress{"127.0.0.1", 9464}));
  EXPECT_EQ(parse_listen_address("localhost:0"), (ListenAddress{"localhost", 0}));
  EXPECT_EQ(parse_listen_address("[::1]:9464"), (ListenAddress{"::1", 9464}));
}

TEST(ListenAddressTest, RefusesWhatIsNotHostPort) {
  for (const char* bad : {"9464", ":9464", "127.0.0.1:", "127.0.0.1:65536", "::1:9464", "host name:1", "h:x"}) {
    EXPECT_THROW(parse_listen_address(bad), std::invalid_argument) << bad;
  }
}

TEST(ListenAddressTest, TheConfigFieldIsCheckedByItsPath) {
  EXPECT_EQ(parse_config(R"({"seeds": {"urls": ["http://a.test/"]}, "metrics": {"listen": "127.0.0.1:9464"}})", "c")
                .metrics.listen,
            "127.0.0.1:9464");
  EXPECT_TRUE(parse_config(R"({"seeds": {"urls": ["http://a.test/"]}})", "c").metrics.listen.empty());
  try {
    parse_config(R"({"seeds": {"urls": ["http://a.test/"]}, "metrics": {"listen": "9464"}})", "c");
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/metrics/listen"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace bloomcrawl
