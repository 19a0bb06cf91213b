// ember::ExportedProgram over an exported::Program (Note [Exported programs]).
#include "ember/export.h"

#include "export/file_format.h"
#include "export/program.h"

namespace ember {

namespace {

std::vector<ExportedTensorSpec> public_specs(const std::vector<exported::TensorSpec>& specs,
                                             const std::vector<std::string>& names) {
  std::vector<ExportedTensorSpec> out;
  for (const exported::TensorSpec& s : specs) {
    ExportedTensorSpec spec{s.name, s.dtype, s.device, {}};
    for (const exported::SymExpr& e : s.shape) spec.shape.push_back(e.str(names));
    out.push_back(std::move(spec));
  }
  return out;
}

}  // namespace

ExportedProgram::ExportedProgram(std::shared_ptr<exported::Program> program) : program_(std::move(program)) {}

ExportedProgram ExportedProgram::load(const std::string& path) { return ExportedProgram(exported::load_program(path)); }

void ExportedProgram::save(const std::string& path) const { exported::save_program(*program_, path); }

std::vector<Tensor> ExportedProgram::run(const std::vector<Tensor>& inputs) const { return program_->run(inputs); }

std::vector<ExportedDim> ExportedProgram::dims() const {
  std::vector<ExportedDim> out;
  for (const exported::Symbol& s : program_->symbols) out.push_back(ExportedDim{s.name, s.min, s.max});
  return out;
}

std::vector<ExportedTensorSpec> ExportedProgram::inputs() const {
  return public_specs(program_->inputs, program_->symbol_names());
}

std::vector<ExportedTensorSpec> ExportedProgram::weights() const {
  return public_specs(program_->weights, program_->symbol_names());
}

std::vector<ExportedTensorSpec> ExportedProgram::outputs() const {
  return public_specs(program_->output_specs(), program_->symbol_names());
}

std::string ExportedProgram::code() const { return program_->code(); }

}  // namespace ember
