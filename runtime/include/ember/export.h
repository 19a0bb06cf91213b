#pragma once

// Programs exported ahead of time from Python (ember.export) and run by the
// runtime alone: docs/export.md.

#include <memory>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/tensor.h"

namespace ember {

namespace exported {
struct Program;
}

// A dynamic dim of an exported program: min <= size <= max.
struct ExportedDim {
  std::string name;
  int64_t min = 0;
  int64_t max = 0;
};

// An input, weight or output of an exported program; each size is written
// as an expression over the dims ("batch", "64*batch", "3").
struct ExportedTensorSpec {
  std::string name;
  DType dtype = DType::Float32;
  Device device;
  std::vector<std::string> shape;
};

class ExportedProgram {
 public:
  // Reads a file ember.export.save wrote; a malformed, truncated or hostile
  // file throws ember::Error naming what is wrong and where, and nothing in
  // it is ever run as code.
  static ExportedProgram load(const std::string& path);
  // Atomic: a failed save leaves `path` as it was.
  void save(const std::string& path) const;

  // Runs the program on the caller's inputs, in the order of inputs(); an
  // input of the wrong dtype, device or shape (outside a dim's range, or a
  // static size that differs) throws naming the input and the constraint.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) const;

  std::vector<ExportedDim> dims() const;
  std::vector<ExportedTensorSpec> inputs() const;
  std::vector<ExportedTensorSpec> weights() const;
  std::vector<ExportedTensorSpec> outputs() const;
  // The program as it reads: dims, inputs, weights and one line per op.
  std::string code() const;

  explicit ExportedProgram(std::shared_ptr<exported::Program> program);
  const std::shared_ptr<exported::Program>& program() const { return program_; }

 private:
  std::shared_ptr<exported::Program> program_;
};

}  // namespace ember
