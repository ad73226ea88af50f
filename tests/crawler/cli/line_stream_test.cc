// read_lines and LineWriter over pipes, files and a pseudo-terminal.
#include "crawler/cli/line_stream.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace bloomcrawl {
namespace {

// The lines read_lines finds in `input`, fed to it through a pipe in pieces of `piece` bytes.
std::vector<std::string> lines_of(const std::string& input, size_t piece) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    for (size_t at = 0; at < input.size(); at += piece) {
      const size_t n = std::min(piece, input.size() - at);
      EXPECT_EQ(::write(fds[1], input.data() + at, n), static_cast<ssize_t>(n));
    }
    ::close(fds[1]);
  });
  std::vector<std::string> lines;
  read_lines(fds[0], "test", [&](std::span<const std::string_view> batch) {
    for (std::string_view line : batch) lines.emplace_back(line);
  });
  writer.join();
  ::close(fds[0]);
  return lines;
}

TEST(ReadLines, SplitsOnNewlinesOnlyKeepingEverythingElse) {
  const std::string input = std::string("a\r\n\n\nb\0c\nlast", 13);
  const std::vector<std::string> expected = {"a\r", "", "", std::string("b\0c", 3), "last"};
  for (size_t piece : {size_t{1}, size_t{2}, size_t{5}, input.size()}) {
    EXPECT_EQ(lines_of(input, piece), expected) << "piece " << piece;
  }
  EXPECT_EQ(lines_of("x\n", 1), std::vector<std::string>{"x"});
  EXPECT_TRUE(lines_of("", 1).empty());
}

TEST(ReadLines, LinesLongerThanTheBufferAndAcrossChunks) {
  const std::string long_line(3 << 20, 'x');
  std::string input;
  std::vector<std::string> expected;
  for (int i = 0; i < 50000; ++i) {
    expected.push_back("https://example.com/" + std::to_string(i));
    if (i == 20000 || i == 40000) expected.push_back(long_line);
  }
  for (const std::string& line : expected) input += line + "\n";
  EXPECT_EQ(lines_of(input, 65536), expected);
}

TEST(ReadLines, NewlinesAtEveryOffsetAmongAnyBytes) {
  // Lines of 0 to 150 bytes of any value but '\n' (NUL, CR, bytes >= 0x80), so newlines fall at
  // every offset of the 64-byte blocks the reader scans at once, and on either side of a block.
  std::mt19937 rng(17);
  std::uniform_int_distribution<int> length(0, 150);
  std::uniform_int_distribution<int> byte(0, 255);
  std::string input;
  std::vector<std::string> expected;
  for (int i = 0; i < 3000; ++i) {
    std::string line(static_cast<size_t>(length(rng)), '\0');
    for (char& c : line) {
      do c = static_cast<char>(byte(rng));
      while (c == '\n');
    }
    input += line + "\n";
    expected.push_back(std::move(line));
  }
  for (size_t piece : {size_t{63}, size_t{64}, size_t{4099}, input.size()}) {
    EXPECT_EQ(lines_of(input, piece), expected) << "piece " << piece;
  }
  expected.emplace_back(std::string(100, '\r'));  // a last line without a newline
  EXPECT_EQ(lines_of(input + std::string(100, '\r'), input.size()), expected);
}

// The bytes written to `fd` (a pipe's read end) until it is closed.
std::string drain(int fd) {
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  return out;
}

std::string write_lines(LineWriter::Buffering buffering, const std::vector<std::string>& lines, uint64_t& writes,
                        bool& line_buffered) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  std::string out;
  std::thread reader([&] { out = drain(fds[0]); });
  {
    LineWriter writer("test", fds[1], buffering);
    line_buffered = writer.line_buffered();
    for (const std::string& line : lines) writer.append_line(line);
    writer.flush();
    writes = writer.write_calls();
  }
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
  return out;
}

TEST(LineWriter, BlockBufferedOnAPipeLineBufferedWhenAsked) {
  std::vector<std::string> lines;
  std::string expected;
  for (int i = 0; i < 30000; ++i) {
    lines.push_back(i == 100 ? std::string(3 << 20, 'y') : "line " + std::to_string(i));
    expected += lines.back() + "\n";
  }
  uint64_t writes = 0;
  bool line_buffered = true;
  EXPECT_EQ(write_lines(LineWriter::Buffering::kAuto, lines, writes, line_buffered), expected);
  EXPECT_FALSE(line_buffered);
  // About 3.3 MiB in 1 MiB blocks; a pipe may take a block in more than one write.
  EXPECT_LE(writes, 16u);
  EXPECT_EQ(write_lines(LineWriter::Buffering::kLine, lines, writes, line_buffered), expected);
  EXPECT_TRUE(line_buffered);
  EXPECT_GE(writes, lines.size());
}

TEST(LineWriter, LineBufferedOnATerminal) {
  int master = -1;
  int slave = -1;
  ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  {
    LineWriter writer("test", slave);
    EXPECT_TRUE(writer.line_buffered());
    writer.append("one, ");
    EXPECT_EQ(writer.write_calls(), 0u);
    writer.end_line();
    EXPECT_EQ(writer.write_calls(), 1u);
    writer.append_line("two");
    EXPECT_EQ(writer.write_calls(), 2u);
  }
  // The terminal turns "\n" into "\r\n". Both writes are done, but one read of the master may
  // return only the first, so read until both are there (poll only bounds a broken case).
  const std::string expected = "one, \r\ntwo\r\n";
  std::string got;
  pollfd readable{master, POLLIN, 0};
  while (got.size() < expected.size() && ::poll(&readable, 1, 5000) == 1) {
    char buf[64];
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  EXPECT_EQ(got, expected);
  ::close(slave);
  ::close(master);
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  EXPECT_FALSE(LineWriter("test", null).line_buffered());
  ::close(null);
}

TEST(LineWriter, ClosedReaderIsOutputClosed) {
  struct sigaction ignore {};
  struct sigaction old {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGPIPE, &ignore, &old), 0);  // as a parent that ignores it would leave it
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  LineWriter writer("test", fds[1]);
  writer.append_line("nobody reads this");
  EXPECT_THROW(writer.flush(), OutputClosed);
  writer.flush();  // nothing left to write: the destructor will not try again
  ::close(fds[1]);
  ::sigaction(SIGPIPE, &old, nullptr);
}

}  // namespace
}  // namespace bloomcrawl
