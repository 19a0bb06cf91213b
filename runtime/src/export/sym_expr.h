#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ember::exported {

// The largest number of symbols (dynamic dims) one program may have, and
// the highest power of one symbol in a size (Note [Sizes as expressions]).
constexpr int kMaxSymbols = 4;
constexpr int kMaxPower = 2;
// Export traces a program at kMaxPower + 1 sizes of each symbol.
constexpr int kPointsPerSymbol = kMaxPower + 1;

// Note [Sizes as expressions]
// Every integer of an exported graph (a value's size, stride or offset, an
// integer attribute) is a polynomial over the symbols with integer
// coefficients, each symbol at most squared in a term. That covers what a
// program does with its input sizes: a size passed on (batch), a constant
// (64), a product made by reshape or flatten (batch*seq*64), contiguous
// strides (seq*seq of an attention matrix [batch, heads, seq, seq]), a sum
// made by cat (batch + 3). Export finds each polynomial by tracing the
// program at three sizes of each symbol, all their combinations, and
// fitting it exactly (python/ember/export/_trace.py); one more trace checks
// the fit. A number that no such polynomial gives is a size the program
// specialises.
class SymExpr {
 public:
  struct Term {
    int64_t coef = 0;
    uint32_t powers = 0;  // 4 bits per symbol: the power of symbol i in bits 4i..4i+3

    int power(int symbol) const { return static_cast<int>((powers >> (4 * symbol)) & 0xf); }
  };

  SymExpr() = default;
  static SymExpr constant(int64_t value);
  static SymExpr symbol(int index);
  // From terms; merges equal monomials and drops zero coefficients.
  static SymExpr of_terms(std::vector<Term> terms);

  const std::vector<Term>& terms() const { return terms_; }
  bool is_constant() const;
  int64_t constant_value() const;  // the constant term
  // The symbol index when the expression is exactly one symbol, else -1.
  int as_symbol() const;
  uint32_t symbols_used() const;  // bit i: symbol i appears

  // The value at `symbols`; throws (naming `what`) on int64 overflow.
  int64_t eval(std::span<const int64_t> symbols, const std::string& what) const;
  std::string str(std::span<const std::string> names) const;

 private:
  std::vector<Term> terms_;  // sorted by monomial, no zero coefficient
};

// Fits `values`, observed on a grid (trace t sets symbol i to
// points[i][digit i of t in base kPointsPerSymbol]), as a SymExpr;
// false when no integer coefficients give them.
bool fit_on_grid(std::span<const int64_t> values, std::span<const std::vector<int64_t>> points, SymExpr* out);

}  // namespace ember::exported
