// ember::ExportedProgram: a program traced here at several batch sizes,
// saved, loaded and run; its input checks; and the loader fuzzed with
// mutated and truncated files (Note [Checking a loaded graph]).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "compile/tracer.h"
#include "ember/ember.h"
#include "ember/export.h"
#include "export/build_program.h"
#include "export/file_format.h"

namespace ember {
namespace {

// tanh(x @ w + b) over a dynamic batch, with weights w and b.
struct Fixture {
  Tensor w = randn({4, 3});
  Tensor b = randn({3});

  Tensor eager(const Tensor& x) const { return tanh(mm(x, w) + b); }

  exported::Trace trace_at(int64_t batch) const {
    compile::TraceOptions options;
    options.fullgraph = true;
    options.plan.codegen = false;
    compile::Tracer tracer(options, nullptr);
    const Tensor x = tracer.add_input(zeros({batch, 4}));
    tracer.finish({eager(x)});
    tracer.close();
    return exported::Trace{tracer.segments()[0]->graph(), {batch}};
  }

  std::shared_ptr<exported::Program> program(bool dynamic) const {
    exported::ProgramParts parts;
    parts.input_names = {"x"};
    parts.weight_names = {"w", "b"};
    parts.weight_values = {w, b};
    std::vector<exported::Trace> traces;
    if (dynamic) {
      parts.symbols = {exported::Symbol{"batch", 1, 64}};
      for (int64_t batch : {4, 5, 6, 7}) traces.push_back(trace_at(batch));
    } else {
      traces.push_back(trace_at(4));
    }
    return exported::build_program(std::move(parts), traces);
  }
};

std::string temp_path(const char* name) { return testing::TempDir() + name; }

void expect_close(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.sizes().vec(), b.sizes().vec());
  EXPECT_LT(max(abs(a - b)).item().to_double(), 1e-5);
}

TEST(Export, SavedProgramRunsAtEveryBatchInRange) {
  manual_seed(0);
  const Fixture f;
  const std::string path = temp_path("program.ember");
  ExportedProgram(f.program(true)).save(path);
  const ExportedProgram loaded = ExportedProgram::load(path);
  for (int64_t batch : {1, 4, 9, 64}) {
    const Tensor x = randn({batch, 4});
    const std::vector<Tensor> out = loaded.run({x});
    ASSERT_EQ(out.size(), 1u);
    expect_close(out[0], f.eager(x));
  }
  ASSERT_EQ(loaded.inputs().size(), 1u);
  EXPECT_EQ(loaded.inputs()[0].shape, (std::vector<std::string>{"batch", "4"}));
  EXPECT_EQ(loaded.weights().size(), 2u);
  ASSERT_EQ(loaded.outputs().size(), 1u);
  EXPECT_EQ(loaded.outputs()[0].shape, (std::vector<std::string>{"batch", "3"}));
  EXPECT_NE(loaded.code().find("mm(v0, "), std::string::npos);
  std::remove(path.c_str());
}

TEST(Export, InputsOutsideTheSpecsAreErrorsNamingThem) {
  manual_seed(1);
  const ExportedProgram program(Fixture().program(true));
  auto message = [&](std::vector<Tensor> inputs) {
    try {
      program.run(inputs);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({randn({65, 4})}).find("input 'x' dim 0 (batch) is 65, outside the constraint 1 <= batch <= 64"),
            std::string::npos);
  EXPECT_NE(message({randn({3, 5})}).find("dim 1 must be 4"), std::string::npos);
  EXPECT_NE(message({randn({3, 4}, TensorOptions(DType::Float64))}).find("dtype float64"), std::string::npos);
  EXPECT_NE(message({}).find("expected 1 inputs (x), got 0"), std::string::npos);
}

// Mutations of valid files: each either fails to load with an ember::Error,
// or loads a program that runs or refuses its input with one. Nothing else
// (a crash, another exception type) is allowed; the ASan build runs this too.
TEST(Export, FuzzedFilesLoadOrFailCleanly) {
  manual_seed(2);
  const Fixture f;
  const std::vector<std::string> corpus = {exported::serialize_program(*f.program(true)),
                                           exported::serialize_program(*f.program(false))};
  const Tensor x = randn({4, 4});
  std::mt19937_64 rng(12345);
  int loaded = 0;
  constexpr int kCases = 100000;
  for (int i = 0; i < kCases; ++i) {
    std::string bytes = corpus[static_cast<size_t>(i) % corpus.size()];
    const int mutations = 1 + static_cast<int>(rng() % 4);
    for (int m = 0; m < mutations; ++m) {
      const size_t at = rng() % bytes.size();
      switch (rng() % 6) {
        case 0:
          bytes.resize(at);  // truncated
          break;
        case 1:
          bytes[at] = static_cast<char>(rng());
          break;
        case 2:
          bytes[at] = "0123456789-,[]{}\"e."[rng() % 19];  // a JSON-shaped change
          break;
        case 3:
          bytes.insert(at, 1, "0123456789,"[rng() % 11]);
          break;
        case 4:
          bytes.erase(at, 1 + rng() % 8);
          break;
        default:
          bytes[at] = static_cast<char>(bytes[at] ^ (1 << (rng() % 8)));
          break;
      }
      if (bytes.empty()) break;
    }
    std::shared_ptr<exported::Program> program;
    try {
      program = exported::parse_program(bytes);
    } catch (const Error&) {
      continue;
    }
    ++loaded;
    // Eager kernels only: a mutated constant would otherwise compile a new
    // kernel per case (the graph checks guard both paths alike).
    program->codegen = false;
    try {
      (void)program->run(std::vector<Tensor>{x});
    } catch (const Error&) {
    }
  }
  // Mutations of the weights' bytes leave valid programs: some must load.
  EXPECT_GT(loaded, 0);
  RecordProperty("loaded", loaded);
  std::printf("%d of %d mutated files loaded\n", loaded, kCases);
}

// Each integer of the program's JSON (ids, sizes, strides, dims, symbol
// ranges) and each op name, changed while the file stays well-formed: the
// graph checks, not the parser, must refuse what would run wrong.
TEST(Export, FuzzedGraphsLoadOrFailCleanly) {
  manual_seed(3);
  const Fixture f;
  using Json = nlohmann::ordered_json;
  const std::string seed = exported::serialize_program(*f.program(true));
  uint64_t length = 0;
  for (int i = 0; i < 8; ++i) length |= static_cast<uint64_t>(static_cast<unsigned char>(seed[i])) << (8 * i);
  const Json header = Json::parse(seed.substr(8, length));
  const Json program = Json::parse(header["__metadata__"]["program"].get<std::string>());
  const std::string data = seed.substr(8 + length);
  std::vector<Json::json_pointer> numbers;
  std::vector<Json::json_pointer> ops;
  const Json flat = program.flatten();
  for (const auto& [path, value] : flat.items()) {
    if (value.is_number()) numbers.emplace_back(path);
    if (path.size() > 3 && path.substr(path.size() - 3) == "/op") ops.emplace_back(path);
  }
  const char* const kOps[] = {"mm",        "bmm",        "tanh",    "add",     "view",   "expand",
                              "transpose", "slice",      "cat",     "sum",     "conv2d", "max_pool2d",
                              "select",    "as_strided", "permute", "squeeze", "copy"};
  const int64_t kValues[] = {0, 1, 2, 3, 4, -1, 7, 64, 65, int64_t{1} << 31, int64_t{1} << 62};
  const Tensor x = randn({4, 4});
  std::mt19937_64 rng(54321);
  int loaded = 0;
  constexpr int kCases = 10000;
  for (int i = 0; i < kCases; ++i) {
    Json mutated = program;
    const int changes = 1 + static_cast<int>(rng() % 3);
    for (int c = 0; c < changes; ++c) {
      if (rng() % 5 == 0) {
        mutated[ops[rng() % ops.size()]] = kOps[rng() % std::size(kOps)];
      } else {
        Json& n = mutated[numbers[rng() % numbers.size()]];
        n = rng() % 2 ? kValues[rng() % std::size(kValues)] : n.get<int64_t>() + static_cast<int64_t>(rng() % 5) - 2;
      }
    }
    Json h = header;
    h["__metadata__"]["program"] = mutated.dump();
    std::string text = h.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string bytes;
    for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<char>((text.size() >> (8 * b)) & 0xff));
    bytes += text + data;
    std::shared_ptr<exported::Program> p;
    try {
      p = exported::parse_program(bytes);
    } catch (const Error&) {
      continue;
    }
    ++loaded;
    p->codegen = false;
    try {
      (void)p->run(std::vector<Tensor>{x});
    } catch (const Error&) {
    }
  }
  EXPECT_GT(loaded, 0);
  std::printf("%d of %d mutated graphs loaded\n", loaded, kCases);
}

}  // namespace
}  // namespace ember
