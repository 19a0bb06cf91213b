// Sizes as polynomials over the symbols (Note [Sizes as expressions]).
#include "export/sym_expr.h"

#include <algorithm>
#include <bit>

#include "core/shape.h"
#include "ember/error.h"

namespace ember::exported {

SymExpr SymExpr::constant(int64_t value) { return of_terms({Term{value, 0}}); }

SymExpr SymExpr::symbol(int index) { return of_terms({Term{1, 1u << (4 * index)}}); }

SymExpr SymExpr::of_terms(std::vector<Term> terms) {
  std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.powers < b.powers; });
  SymExpr out;
  for (const Term& t : terms) {
    if (!out.terms_.empty() && out.terms_.back().powers == t.powers) {
      const auto sum = checked_add(out.terms_.back().coef, t.coef);
      if (!sum) throw_error(ErrorKind::Value, "a size expression's coefficient overflows int64");
      out.terms_.back().coef = *sum;
    } else {
      out.terms_.push_back(t);
    }
  }
  std::erase_if(out.terms_, [](const Term& t) { return t.coef == 0; });
  return out;
}

bool SymExpr::is_constant() const { return terms_.empty() || (terms_.size() == 1 && terms_[0].powers == 0); }

int64_t SymExpr::constant_value() const { return !terms_.empty() && terms_[0].powers == 0 ? terms_[0].coef : 0; }

int SymExpr::as_symbol() const {
  if (terms_.size() != 1 || terms_[0].coef != 1 || std::popcount(terms_[0].powers) != 1) return -1;
  const int bit = std::countr_zero(terms_[0].powers);
  return bit % 4 == 0 ? bit / 4 : -1;
}

uint32_t SymExpr::symbols_used() const {
  uint32_t used = 0;
  for (const Term& t : terms_) {
    for (int i = 0; i < kMaxSymbols; ++i) {
      if (t.power(i) > 0) used |= 1u << i;
    }
  }
  return used;
}

int64_t SymExpr::eval(std::span<const int64_t> symbols, const std::string& what) const {
  int64_t total = 0;
  for (const Term& t : terms_) {
    std::optional<int64_t> term = t.coef;
    for (int i = 0; i < kMaxSymbols && term; ++i) {
      for (int p = 0; p < t.power(i) && term; ++p) {
        if (static_cast<size_t>(i) >= symbols.size()) {
          throw_error(ErrorKind::Value, what + " names symbol " + std::to_string(i) + ", which the program lacks");
        }
        term = checked_mul(*term, symbols[static_cast<size_t>(i)]);
      }
    }
    const std::optional<int64_t> sum = term ? checked_add(total, *term) : std::nullopt;
    if (!sum) throw_error(ErrorKind::Value, what + " overflows int64 at these sizes");
    total = *sum;
  }
  return total;
}

std::string SymExpr::str(std::span<const std::string> names) const {
  if (terms_.empty()) return "0";
  std::string out;
  for (const Term& t : terms_) {
    const bool negative = t.coef < 0;
    if (!out.empty())
      out += negative ? " - " : " + ";
    else if (negative)
      out += "-";
    const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(t.coef) : static_cast<uint64_t>(t.coef);
    std::string factors;
    for (int i = 0; i < kMaxSymbols * kMaxPower; ++i) {
      if (t.power(i / kMaxPower) <= i % kMaxPower) continue;
      if (!factors.empty()) factors += "*";
      const size_t symbol = static_cast<size_t>(i / kMaxPower);
      if (symbol < names.size()) {
        factors += names[symbol];
      } else {
        factors += 's';
        factors += std::to_string(symbol);
      }
    }
    if (factors.empty()) {
      out += std::to_string(magnitude);
    } else {
      out += magnitude == 1 ? factors : std::to_string(magnitude) + "*" + factors;
    }
  }
  return out;
}

bool fit_on_grid(std::span<const int64_t> values, std::span<const std::vector<int64_t>> points, SymExpr* out) {
  // Separable interpolation: along each symbol in turn, every line of
  // kPointsPerSymbol grid values becomes the coefficients of its polynomial
  // in that symbol (Newton's divided differences, exact for integer
  // polynomials at integer points, then expanded). After every symbol,
  // entry t holds the coefficient of the monomial whose powers are t's digits.
  const int k = static_cast<int>(points.size());
  std::vector<__int128> c(values.begin(), values.end());
  constexpr __int128 kLimit = static_cast<__int128>(1) << 100;
  size_t stride = 1;
  for (int i = 0; i < k; ++i, stride *= kPointsPerSymbol) {
    const std::vector<int64_t>& x = points[static_cast<size_t>(i)];
    for (size_t t = 0; t < c.size(); ++t) {
      if ((t / stride) % kPointsPerSymbol != 0) continue;
      __int128 d[kPointsPerSymbol];
      for (int j = 0; j < kPointsPerSymbol; ++j) d[j] = c[t + static_cast<size_t>(j) * stride];
      for (int level = 1; level < kPointsPerSymbol; ++level) {
        for (int j = kPointsPerSymbol - 1; j >= level; --j) {
          const __int128 step = static_cast<__int128>(x[static_cast<size_t>(j)]) - x[static_cast<size_t>(j - level)];
          const __int128 rise = d[j] - d[j - 1];
          if (step == 0 || rise % step != 0) return false;
          d[j] = rise / step;
        }
      }
      // p(s) = d0 + d1 (s - x0) + d2 (s - x0)(s - x1), expanded by Horner's rule.
      __int128 poly[kPointsPerSymbol] = {};
      poly[0] = d[kPointsPerSymbol - 1];
      for (int j = kPointsPerSymbol - 2; j >= 0; --j) {
        for (int p = kPointsPerSymbol - 1; p >= 1; --p) poly[p] = poly[p - 1] - x[static_cast<size_t>(j)] * poly[p];
        poly[0] = d[j] - x[static_cast<size_t>(j)] * poly[0];
      }
      for (int p = 0; p < kPointsPerSymbol; ++p) {
        if (poly[p] > kLimit || poly[p] < -kLimit) return false;
        c[t + static_cast<size_t>(p) * stride] = poly[p];
      }
    }
  }
  std::vector<SymExpr::Term> terms;
  for (size_t t = 0; t < c.size(); ++t) {
    if (c[t] > INT64_MAX || c[t] < INT64_MIN) return false;
    uint32_t powers = 0;
    size_t rest = t;
    for (int i = 0; i < k; ++i, rest /= kPointsPerSymbol)
      powers |= static_cast<uint32_t>(rest % kPointsPerSymbol) << (4 * i);
    terms.push_back(SymExpr::Term{static_cast<int64_t>(c[t]), powers});
  }
  *out = SymExpr::of_terms(std::move(terms));
  return true;
}

}  // namespace ember::exported
