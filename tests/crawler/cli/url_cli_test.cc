// `bloomcrawl url` end to end: the built binary (BLOOMCRAWL_BIN) reads lines on stdin and prints
// one line per input line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tests/crawler/cli/filter_process.h"

namespace {

struct RunResult {
  std::string out;
  int status = -1;
};

RunResult run_url_command(const std::string& flags, const std::string& input) {
  // ctest runs each test case as its own process, in parallel: one input file per process.
  std::string input_path = testing::TempDir() + "/url_cli_input_" + std::to_string(getpid()) + ".txt";
  {
    std::ofstream file(input_path, std::ios::binary);
    file << input;
  }
  std::string command = std::string(BLOOMCRAWL_BIN) + " url " + flags + " < '" + input_path + "' 2>/dev/null";
  RunResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, pipe)) > 0) result.out.append(chunk, n);
  result.status = pclose(pipe);
  return result;
}

TEST(UrlCli, CanonicalizesOneLinePerInputLine) {
  RunResult r = run_url_command("",
                                "http://Example.com:80/a/./b#x\n"
                                "http://a/b/c/d;p?q\t../g?y#s\r\n"
                                "mailto:someone@example.com\n"
                                "http://exa mple.com/\n"
                                "\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "http://example.com/a/b\n"
            "http://a/b/g?y\n"
            "ERROR\tunsupported_scheme: scheme 'mailto' is not crawled (only http and https)\n"
            "ERROR\tinvalid: invalid host 'exa mple.com': forbidden code point in host\n"
            "ERROR\tinvalid: relative URL without a base at byte 0\n");
}

TEST(UrlCli, LineEndingsNulBytesAndLongLines) {
  const std::string long_path(3 << 20, 'p');  // longer than the 128 KiB read buffer
  const std::string input =
      std::string("http://a/\0x\r\r\nhttp://b/\n\r\nhttp://c/", 35) + long_path + "\nhttp://d/last-without-newline";
  // One CR is the line ending's; the URL parser strips the other as trailing C0 control.
  for (const char* flags : {"", "--line-buffered --max-length 4194304"}) {
    RunResult r = run_url_command(flags, input);
    EXPECT_EQ(r.status, 0);
    const std::string c = flags[0] == '\0' ? "ERROR\ttoo_long: URL is 3145737 bytes, over the limit of 2048\n"
                                           : "http://c/" + long_path + "\n";
    // EXPECT_TRUE: a mismatch must not print 3 MiB.
    EXPECT_TRUE(r.out ==
                "http://a/%00x\n"
                "http://b/\n"
                "ERROR\tinvalid: relative URL without a base at byte 0\n" +
                    c + "http://d/last-without-newline\n")
        << flags << ": " << r.out.substr(0, 200);
  }
}

TEST(UrlCli, IntoHeadStopsQuietly) {
  const std::string dir = testing::TempDir();
  const std::string big = dir + "/url_cli_big_" + std::to_string(getpid()) + ".txt";
  {
    std::ofstream file(big, std::ios::binary);
    for (int i = 0; i < 200000; ++i) file << "http://example.com/item?id=" << i << "\n";
  }
  for (bool ignore_sigpipe : {false, true}) {
    const bloomcrawl::testing_cli::HeadRun r = bloomcrawl::testing_cli::run_into_head("url", big, dir, ignore_sigpipe);
    EXPECT_EQ(r.filter_status, 141) << "ignore_sigpipe " << ignore_sigpipe;
    EXPECT_EQ(r.head_out, "http://example.com/item?id=0\n");
    EXPECT_EQ(r.filter_err, "") << "ignore_sigpipe " << ignore_sigpipe;
  }
}

TEST(UrlCli, WritesEachLineAtOnceToATerminal) {
  EXPECT_EQ(bloomcrawl::testing_cli::terminal_output_while_input_open("url", "HTTP://A/\nhttp://b/./c\n", 2),
            "http://a/\r\nhttp://b/c\r\n");
}

TEST(UrlCli, InvalidBaseIsReportedOnItsLine) {
  RunResult r = run_url_command("", "not a base\tg\nhttp://ok/\tg\n");
  EXPECT_EQ(r.out,
            "ERROR\tinvalid: base URL: relative URL without a base at byte 0\n"
            "http://ok/g\n");
}

TEST(UrlCli, HrefModePrintsWhatwgSerializationWithoutCanonicalizing) {
  RunResult r = run_url_command("--href",
                                "HTTP://u:p@Example.com:80/%7e/./x?#f\n"
                                "sc:\\../\n"
                                "http://[::1\n");
  EXPECT_EQ(r.out,
            "http://u:p@example.com/%7e/x?#f\n"
            "sc:\\../\n"
            "ERROR\tinvalid: invalid host '[::1': unterminated IPv6 address\n");
}

TEST(UrlCli, FlagsEnableEachOption) {
  const std::string input = "http://x/A/index.html;jsessionid=9?utm_source=a&b=2&a=1&ref=z\n";
  EXPECT_EQ(run_url_command("", input).out, input);
  EXPECT_EQ(run_url_command("--sort-query", input).out,
            "http://x/A/index.html;jsessionid=9?a=1&b=2&ref=z&utm_source=a\n");
  EXPECT_EQ(run_url_command("--strip-params", input).out, "http://x/A/index.html;jsessionid=9?b=2&a=1&ref=z\n");
  EXPECT_EQ(run_url_command("--strip-param ref", input).out, "http://x/A/index.html;jsessionid=9?b=2&a=1\n");
  EXPECT_EQ(run_url_command("--strip-session-ids", input).out, "http://x/A/index.html?utm_source=a&b=2&a=1&ref=z\n");
  EXPECT_EQ(run_url_command("--lowercase-path", input).out,
            "http://x/a/index.html;jsessionid=9?utm_source=a&b=2&a=1&ref=z\n");
  EXPECT_EQ(run_url_command("--drop-index-pages --strip-session-ids", input).out,
            "http://x/A/?utm_source=a&b=2&a=1&ref=z\n");
}

TEST(UrlCli, MaxLengthRejectsLongUrls) {
  RunResult r = run_url_command("--max-length 20", "http://x/short\nhttp://x/" + std::string(20, 'a') + "\n");
  EXPECT_EQ(r.out,
            "http://x/short\n"
            "ERROR\ttoo_long: URL is 29 bytes, over the limit of 20\n");
  EXPECT_NE(run_url_command("--max-length 0", "http://x/\n").status, 0);
}

TEST(UrlCli, LinksModeResolvesAgainstBaseElementAndCanonicalizes) {
  std::string html_path = testing::TempDir() + "/url_cli_page_" + std::to_string(getpid()) + ".html";
  {
    std::ofstream html(html_path);
    html << "<html><head><base href='/docs/'><link rel=stylesheet href='s.css'></head><body>"
            "<a href='a.html#top'>A</a><a rel=nofollow href='HTTP://O.example:80/x/../y'>B</a>"
            "<a href='mailto:x@y'>m</a><iframe src='//cdn.example/f'></iframe></body></html>";
  }
  RunResult r = run_url_command("--links '" + html_path + "' --base http://site.example/p.html", "");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "stylesheet\thttp://site.example/docs/s.css\n"
            "a\thttp://site.example/docs/a.html\n"
            "a\thttp://o.example/y\tnofollow\n"
            "a\tERROR\tunsupported_scheme: scheme 'mailto' is not crawled (only http and https)"
            "\tmailto:x@y\n"
            "iframe\thttp://cdn.example/f\n");
  // --links without --base is a usage error, not a silent guess.
  EXPECT_NE(run_url_command("--links '" + html_path + "'", "").status, 0);
}

// A legacy-encoded page's links come out as a browser requests them: the path in UTF-8, the
// query in the page's encoding (here windows-1252, from --content-type).
TEST(UrlCli, LinksModeDecodesThePageInItsEncoding) {
  const std::string html_path = testing::TempDir() + "/url_cli_latin_" + std::to_string(getpid()) + ".html";
  std::ofstream(html_path, std::ios::binary) << "<a href='/caf\xe9.html'>c</a><a href='/s2?q=\xe9'>s</a>";
  const std::string args = "--links '" + html_path + "' --base http://site.example/";
  const RunResult r = run_url_command(args + " --content-type 'text/html; charset=ISO-8859-1'", "");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "a\thttp://site.example/caf%C3%A9.html\na\thttp://site.example/s2?q=%E9\n");
  const RunResult utf8 = run_url_command(args + " --content-type 'text/html; charset=utf-8'", "");
  EXPECT_EQ(utf8.out, "a\thttp://site.example/caf%EF%BF%BD.html\na\thttp://site.example/s2?q=%EF%BF%BD\n")
      << "bytes invalid in the declared encoding read as U+FFFD, as a browser reads them";
}

}  // namespace
