#pragma once
// The handle of one collective (torch.distributed's Work): an asynchronous
// call returns it at once; wait() returns when the collective completed on
// this rank, or throws its error.
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "distributed/store.h"
#include "ember/tensor.h"

namespace ember::distributed {

class Work {
 public:
  explicit Work(std::string description) : description_(std::move(description)) {}

  // "all_reduce (sequence 4, rank 1 of 2)": what errors and timeouts name.
  const std::string& description() const { return description_; }
  bool is_completed() const;
  bool is_success() const;
  // The error it failed with, or null.
  std::exception_ptr exception() const;
  // Throws the collective's error; after `timeout` without completion, a
  // DistributedBackend error naming the collective (the collective itself
  // goes on until the group's own timeout ends it). Zero waits forever.
  void wait(Milliseconds timeout = Milliseconds(0)) const;
  // The tensors the collective wrote (the output operands).
  const std::vector<Tensor>& result() const { return result_; }

  void set_result(std::vector<Tensor> result) { result_ = std::move(result); }
  void complete();
  void fail(std::exception_ptr error);

 private:
  std::string description_;
  mutable std::mutex lock_;
  mutable std::condition_variable done_;
  bool completed_ = false;
  std::exception_ptr error_;
  std::vector<Tensor> result_;
};

using WorkPtr = std::shared_ptr<Work>;

}  // namespace ember::distributed
