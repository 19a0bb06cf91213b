// The shared EKIR reader checks a document against sdk/docs/kernel-ir.md
// before any generator sees it: every violation is an INVALID_ARGUMENT
// naming the instruction and the field.
#include <ember/kernel_ir/ekir.h>
#include <gtest/gtest.h>
#include <ember/sdk/status.hpp>

#include "ekir_cases.h"

#include <string>
#include <vector>

namespace ember::kernel_ir {
namespace {

// A valid two-loop kernel the cases below break in one place each.
const char* kRowSum = R"({"ekir":"1.0","name":"row_sum","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],
 "outer":[4],
 "loops":[{"extents":[8],"body":[
     {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[8,1]},
     {"id":1,"op":"exp","dtype":"float32","args":[0]},
     {"id":2,"op":"reduce","kind":"sum","dtype":"float32","args":[1]}]},
   {"extents":[],"body":[
     {"id":3,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[2]}]}]})";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

struct BadIr {
  const char* what;
  std::string ir;
  std::vector<std::string> message_has;
};

void expect_invalid(const std::vector<BadIr>& cases) {
  for (const BadIr& bad : cases) {
    try {
      parse_ekir(bad.ir);
      ADD_FAILURE() << bad.what << ": parsed";
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), EMBER_STATUS_INVALID_ARGUMENT) << bad.what << ": " << e.what();
      for (const std::string& part : bad.message_has) {
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
            << bad.what << ": '" << part << "' not in: " << e.what();
      }
    }
  }
}

TEST(KernelIrReader, InvalidIrIsAnInvalidArgumentNamingTheInstructionAndField) {
  const std::string ok = kRowSum;
  const std::vector<BadIr> cases = {
      {"malformed JSON", ok.substr(0, 40), {"EKIR: not valid JSON"}},
      {"not an object", "[1,2]", {"must be a JSON object"}},
      {"unknown version", replaced(ok, R"("ekir":"1.0")", R"("ekir":"2.0")"), {"version '2.0'", "1.0, 1.1, 1.2"}},
      {"unknown op",
       replaced(ok, R"("op":"exp")", R"("op":"frobnicate")"),
       {"instruction 1", "unknown op 'frobnicate'"}},
      {"missing field", replaced(ok, R"("buffer":1,)", ""), {"instruction 3", "store", "field 'buffer' is missing"}},
      {"wrong arity", replaced(ok, R"("args":[0]})", R"("args":[0,0]})"), {"instruction 1", "field 'args' has 2"}},
      {"out of scope", replaced(ok, R"("args":[2]})", R"("args":[1]})"), {"instruction 3", "out of scope", "value 1"}},
      {"undefined value",
       replaced(ok, R"("args":[2]})", R"("args":[99]})"),
       {"instruction 3", "value 99 is not defined"}},
      {"reduce used in its loop",
       replaced(ok, R"(]},
   {"extents":[],"body":[)",
                R"(,{"id":9,"op":"neg","dtype":"float32","args":[2]}]},
   {"extents":[],"body":[)"),
       {"instruction 9", "a reduce of this loop"}},
      {"wrong stride count",
       replaced(ok, R"("strides":[8,1])", R"("strides":[8])"),
       {"instruction 0", "field 'strides' has 1 terms", "2 dimensions"}},
      {"buffer out of range", replaced(ok, R"("buffer":1,)", R"("buffer":5,)"), {"instruction 3", "field 'buffer': 5"}},
      {"store to an input", replaced(ok, R"("buffer":1,)", R"("buffer":0,)"), {"instruction 3", "is an input"}},
      {"dtype mismatch",
       replaced(ok, R"("op":"exp","dtype":"float32")", R"("op":"exp","dtype":"float64")"),
       {"instruction 1", "float32", "float64"}},
      {"op on a dtype it lacks",
       replaced(replaced(replaced(ok, R"("dtype":"float32","role":"input")", R"("dtype":"int32","role":"input")"),
                         R"("op":"load","dtype":"float32")", R"("op":"load","dtype":"int32")"),
                R"("op":"exp","dtype":"float32")", R"("op":"exp","dtype":"int32")"),
       {"instruction 1", "'exp' takes a floating dtype, not int32"}},
      {"duplicate id", replaced(ok, R"({"id":1,)", R"({"id":0,)"), {"field 'id': 0 is already"}},
      {"unknown parameter", replaced(ok, R"("outer":[4])", R"("outer":["p0"])"), {"'p0'", "\"params\""}},
      {"huge parameter", replaced(ok, R"("outer":[4])", R"("outer":["p99999999999999999999"])"), {"field 'outer'[0]"}},
      {"negative extent", replaced(ok, R"("extents":[8])", R"("extents":[-8])"), {"loop 0", "negative"}},
      {"unknown dtype",
       replaced(ok, R"("dtype":"float32","role":"output")", R"("dtype":"complex64","role":"output")"),
       {"buffer 1", "unknown dtype 'complex64'"}},
      {"bad hint", replaced(ok, R"("outer":[4])", R"("outer":[4],"hints":{"deterministic":1})"), {"deterministic"}},
      {"deep nesting", std::string(100000, '['), {"EKIR: not valid JSON"}},
  };
  expect_invalid(cases);
}

// An in-place update (EKIR 1.1): the parameter is read, then written, at
// each element, the gradient only read.
const char* kInPlaceStep = R"({"ekir":"1.1","name":"sgd","params":0,
 "buffers":[{"dtype":"float32","role":"inout"},{"dtype":"float32","role":"input"}],
 "outer":[6],
 "loops":[{"extents":[],"body":[
     {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1]},
     {"id":1,"op":"load","dtype":"float32","buffer":1,"offset":0,"strides":[1]},
     {"id":2,"op":"sub","dtype":"float32","args":[0,1]},
     {"id":3,"op":"store","buffer":0,"offset":0,"strides":[1],"args":[2]}]}]})";

TEST(KernelIrReader, AnInoutBufferIsReadOnlyWhereItsOneStoreWritesBeforeIt) {
  const Kernel kernel = parse_ekir(kInPlaceStep);
  EXPECT_EQ(kernel.buffers[0].role, BufferRole::inout);
  const std::string ok = kInPlaceStep;
  const std::string end = R"(}]}]})";
  const std::string second_store = R"(},{"id":4,"op":"store","buffer":0,"offset":0,"strides":[1],"args":[2]}]}]})";
  const std::vector<BadIr> cases = {
      {"inout in 1.0", replaced(ok, R"("ekir":"1.1")", R"("ekir":"1.0")"), {"buffer 0", "since EKIR 1.1"}},
      {"read at another element",
       replaced(ok, R"("buffer":0,"offset":0,"strides":[1]},)", R"("buffer":0,"offset":0,"strides":[0]},)"),
       {"instruction 0", "other than at the element its store writes"}},
      {"read after the store",
       replaced(ok, end, R"(},{"id":4,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1]}]}]})"),
       {"instruction 4", "before that store"}},
      {"stored twice", replaced(ok, end, second_store), {"buffer 0", "stored more than once"}},
      {"never stored",
       replaced(replaced(ok, R"("role":"input"}])", R"("role":"output"}])"), R"("store","buffer":0)",
                R"("store","buffer":1)"),
       {"buffer 0", "never stored"}},
  };
  expect_invalid(cases);
}

TEST(KernelIrReader, AConstantMayBeALaunchParameterSinceEkir12) {
  const Kernel kernel = parse_ekir(testing::kParameterConstants);
  const Instruction& count = kernel.loops[1].body[1];
  ASSERT_EQ(count.op, Op::constant);
  EXPECT_EQ(count.constant.param, 1);
  EXPECT_FALSE(kernel.loops[1].body[0].constant.param.has_value());
  const std::string ok = testing::kParameterConstants;
  const std::vector<BadIr> cases = {
      {"in 1.1", replaced(ok, R"("ekir":"1.2")", R"("ekir":"1.1")"), {"instruction 3", "needs EKIR 1.2"}},
      {"unknown parameter", replaced(ok, R"("value":"p2"})", R"("value":"p3"})"), {"instruction 6", "'p3'"}},
      {"a bool",
       replaced(replaced(ok, R"({"id":6,"op":"const","dtype":"float32")", R"({"id":6,"op":"const","dtype":"bool")"),
                R"({"id":7,"op":"add","dtype":"float32","args":[5,6]})",
                R"({"id":7,"op":"where","dtype":"float32","args":[6,5,5]})"),
       {"instruction 6", "converts only to an integer dtype"}},
      {"not a parameter", replaced(ok, R"("value":"p2"})", R"("value":"pi"})"), {"instruction 6", "launch parameter \"pK\", not \"pi\""}},
  };
  expect_invalid(cases);
}

TEST(KernelIrReader, AValidKernelReadsAsTypedLoops) {
  const Kernel kernel = parse_ekir(kRowSum);
  EXPECT_EQ(kernel.name, "row_sum");
  ASSERT_EQ(kernel.loops.size(), 2u);
  ASSERT_EQ(kernel.loops[0].body.size(), 3u);
  EXPECT_EQ(kernel.loops[0].body[2].op, Op::reduce);
  EXPECT_EQ(kernel.loops[0].body[2].kind, ReduceKind::sum);
  const Instruction& store = kernel.loops[1].body[0];
  EXPECT_EQ(store.op, Op::store);
  ASSERT_EQ(store.args.size(), 1u);
  EXPECT_EQ(kernel.at(store.args[0]).op, Op::reduce);
  EXPECT_FALSE(kernel.deterministic);
}

}  // namespace
}  // namespace ember::kernel_ir
