// Loads a program ember.export.save wrote and runs it with the runtime
// alone, on the CPU plugin: run_exported <file> <input sizes...>. The input
// is arange(numel) / numel in the given shape; each output is printed flat.
#include <ember/ember.h>
#include <ember/export.h>

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: run_exported <program.ember> <input sizes...>\n";
    return 2;
  }
  try {
    const ember::ExportedProgram program = ember::ExportedProgram::load(argv[1]);
    std::cout << program.code();
    std::vector<int64_t> sizes;
    for (int i = 2; i < argc; ++i) sizes.push_back(std::stoll(argv[i]));
    int64_t numel = 1;
    for (int64_t s : sizes) numel *= s;
    const ember::Tensor input = (ember::arange(numel, ember::DType::Float32) / static_cast<double>(numel)).view(sizes);
    const std::vector<ember::Tensor> outputs = program.run({input});
    std::cout.precision(9);
    for (size_t i = 0; i < outputs.size(); ++i) {
      const ember::Tensor flat = outputs[i].to(ember::DType::Float64).contiguous();
      const double* values = static_cast<const double*>(flat.data_ptr());
      std::cout << "output_" << i << " =";
      for (int64_t k = 0; k < flat.numel(); ++k) std::cout << " " << values[k];
      std::cout << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
