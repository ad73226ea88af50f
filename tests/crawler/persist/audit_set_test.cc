// AuditSet: what --audit counts as the filter's false positive, in every order the crawl's
// workers can report their filter answers.
#include <gtest/gtest.h>

#include <cstdint>

#include "crawler/persist/audit_set.h"

namespace bloomcrawl {
namespace {

constexpr uint64_t kUrl = 0x1234;

TEST(AuditSet, SeenForAUrlNeverAdmittedIsAFalsePositiveCountedOnce) {
  AuditSet audit;
  EXPECT_TRUE(audit.record(kUrl, false)) << "the first such answer is journaled";
  EXPECT_FALSE(audit.record(kUrl, false)) << "a later one is the same wrongly skipped page";
  EXPECT_EQ(audit.false_positives(), 1u);
  EXPECT_EQ(audit.admitted(), 0u);
  EXPECT_EQ(audit.size(), 1u);
}

TEST(AuditSet, SeenAfterTheAdmissionIsATrueDuplicate) {
  AuditSet audit;
  EXPECT_FALSE(audit.record(kUrl, true));
  EXPECT_FALSE(audit.record(kUrl, false));
  EXPECT_EQ(audit.false_positives(), 0u);
  EXPECT_EQ(audit.admitted(), 1u);
}

// The race: A's filter insert says new, B's says seen, and B's audit step runs first.
TEST(AuditSet, SeenBeforeTheAdmittingNewIsWithdrawn) {
  AuditSet audit;
  audit.record(kUrl, false);
  EXPECT_EQ(audit.false_positives(), 1u) << "counted for now";
  audit.record(kUrl, true);
  EXPECT_EQ(audit.false_positives(), 0u);
  EXPECT_EQ(audit.admitted(), 1u);
  EXPECT_EQ(audit.size(), 1u);
}

TEST(AuditSet, RestoredUrlsAreSettled) {
  AuditSet audit;
  audit.restore({1, 2, 3, 4}, 1);
  EXPECT_EQ(audit.false_positives(), 1u);
  EXPECT_EQ(audit.admitted(), 3u);
  EXPECT_FALSE(audit.record(2, false)) << "a URL the checkpoint holds is a duplicate now";
  audit.record(3, true);
  EXPECT_EQ(audit.false_positives(), 1u);
  EXPECT_EQ(audit.admitted(), 3u);
  EXPECT_TRUE(audit.record(5, false));
  EXPECT_EQ(audit.false_positives(), 2u);
}

}  // namespace
}  // namespace bloomcrawl
