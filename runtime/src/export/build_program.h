#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "export/program.h"

namespace ember::exported {

// One trace of the program at one binding of the symbols.
struct Trace {
  compile::Graph graph;
  std::vector<int64_t> symbol_values;
};

// What export knows besides the traces: names of the arguments, the weights
// (the graph inputs after the arguments) with their names, the outputs.
struct ProgramParts {
  std::vector<Symbol> symbols;
  std::vector<std::string> input_names;
  std::vector<std::string> weight_names;
  std::vector<Tensor> weight_values;
  OutputStructure output_structure = OutputStructure::Tuple;
};

// Fits every integer of the traced graphs as an expression over the symbols
// (Note [Sizes as expressions]). The first 3^k traces are a grid: trace t
// sets symbol i to its example size, a second or a third size by digit i of
// t in base 3 (digit 0: the example); the others check the fit. A program whose
// traces differ other than in their integers, or whose integers no
// expression gives, specialises a dynamic dim: the error names it.
std::shared_ptr<Program> build_program(ProgramParts parts, std::span<const Trace> traces);

}  // namespace ember::exported
