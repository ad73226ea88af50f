#include "records/record_merge.h"

#include <optional>
#include <string_view>

#include <rocksdb/merge_operator.h>

#include "base/data_error.h"
#include "records/record_outcome.h"
#include "records/url_record.h"

namespace bloomcrawl {
namespace {

class RecordOutcomeMerge : public rocksdb::MergeOperator {
 public:
  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    try {
      const std::string_view url = url_of_record_key(std::string_view(in.key.data(), in.key.size()));
      std::optional<UrlRecord> record;
      if (in.existing_value != nullptr) {
        record = decode_url_record(url, std::string_view(in.existing_value->data(), in.existing_value->size()));
      }
      for (const rocksdb::Slice& operand : in.operand_list) {
        apply_record_operand(record, url, std::string_view(operand.data(), operand.size()));
      }
      if (!record) return false;  // RocksDB calls no merge without an operand
      out->new_value = encode_url_record(*record);
      return true;
    } catch (const CheckpointError&) {
      return false;  // corruption: the read or compaction fails, and the store with it
    }
  }

  // Operands are not combined with each other: each is small, and a record rarely collects more
  // than one before a compaction or a read folds them into it.
  const char* Name() const override { return "bloomcrawl.RecordOutcome"; }
};

}  // namespace

std::shared_ptr<rocksdb::MergeOperator> record_outcome_merge_operator() {
  return std::make_shared<RecordOutcomeMerge>();
}

}  // namespace bloomcrawl
