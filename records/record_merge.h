// The records store's RocksDB merge operator (docs/records.md, "Outcome operand"): a record's
// value and the outcome operands written after it (RecordStore::update) into one record value,
// each operand applied with apply_record_outcome() in the order written; operands with no value
// under them start from the record the first one makes. A value or operand that does not decode
// fails the merge, which RocksDB reports as corruption to the read or compaction that needed it.
#pragma once

#include <memory>

namespace rocksdb {
class MergeOperator;
}

namespace bloomcrawl {

std::shared_ptr<rocksdb::MergeOperator> record_outcome_merge_operator();

}  // namespace bloomcrawl
