// Fused scaled_dot_product_attention and its backward (ops.md "Composite ops
// a backend may override"), float32.
//
// Note [Blocked attention]
// The scores of one (batch, head) are [L, S]; for long sequences that matrix
// is the memory a plain matmul-softmax-matmul spends. Both kernels instead
// walk it in blocks of kBlockQ queries by kBlockK keys, as FlashAttention
// does. The forward keeps, per query, the running maximum m and sum l of
// exp(score - m) and rescales its accumulated output whenever m grows (the
// online softmax); it ends with out = acc / l and writes lse = m + log(l).
// The backward recomputes each block's weights exactly as exp(score - lse)
// and, with D = rowsum(dout * out), gets dscore = P * (dP - D): per block
// dv += P^T dout, dP = dout v^T, dq += dscore k, dk += dscore^T q. Each
// task owns one (batch, head), so the accumulations need no locks. The
// products are oneDNN's sgemm on one thread each (the tasks are the
// parallelism), the pointwise passes vector loops through libmvec. A query
// that sees no key (all scores -inf) has l = 0: its output is 0 and its lse
// -inf, whose weights the backward reads as 0, as PyTorch's kernel does.
#include "vector_math.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../parallel.h"
#include "elementwise.h"
#include "kernels.h"
#include "lane_reduce.h"
#include "onednn.h"

namespace ember::cpu {
namespace {

constexpr int64_t kBlockQ = 64;
constexpr int64_t kBlockK = 256;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// A 4-D operand [N, H, rows, cols] with unit stride along cols.
struct Operand {
  const float* data;
  int64_t stride_n, stride_h, stride_row;

  static Operand of(const DLTensor& t) {
    return {reinterpret_cast<const float*>(sdk::data_ptr(t)), t.strides[0], t.strides[1], t.strides[2]};
  }
  const float* rows(int64_t n, int64_t h, int64_t row) const {
    return data + n * stride_n + h * stride_h + row * stride_row;
  }
};

// The additive mask, its size-1 dims broadcast (stride 0).
struct Mask {
  const float* data = nullptr;
  int64_t stride[4] = {0, 0, 0, 0};

  static Mask of(const ember_kernel_call& call, int64_t index) {
    Mask m;
    if (call.num_inputs <= index) return m;
    const DLTensor& t = call.inputs[index];
    m.data = reinterpret_cast<const float*>(sdk::data_ptr(t));
    for (int d = 0; d < 4; ++d) m.stride[d] = t.shape[d] == 1 ? 0 : t.strides[d];
    return m;
  }
};

struct Problem {
  int64_t batch, heads, queries, keys, dim, value_dim;
  float scale;
  bool causal;
  Mask mask;

  // Keys [0, key_end) can be seen by some query of [q0, q1).
  int64_t key_end(int64_t q1) const { return causal ? std::min(keys, q1) : keys; }
};

Problem problem_of(const ember_kernel_call& call, int64_t mask_index) {
  const DLTensor& q = call.inputs[mask_index == 3 ? 0 : 1];
  const DLTensor& v = call.inputs[mask_index == 3 ? 2 : 3];
  return {q.shape[0],
          q.shape[1],
          q.shape[2],
          v.shape[2],
          q.shape[3],
          v.shape[3],
          static_cast<float>(sdk::attr_float(call, "scale")),
          sdk::attr_bool(call, "is_causal"),
          Mask::of(call, mask_index)};
}

void sgemm(char trans_a, char trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  const dnnl_status_t status = dnnl_sgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (status != dnnl_success) {
    sdk::fail(EMBER_STATUS_INTERNAL,
              "scaled_dot_product_attention: dnnl_sgemm failed with status " + std::to_string(status));
  }
}

// Adds the mask to a block of scores and hides the keys a causal query does
// not see: rows are queries q0.., columns keys k0.. (row stride `width`).
EMBER_CPU_ISA_CLONES void mask_scores(const Problem& p, int64_t n, int64_t h, int64_t q0, int64_t rows, int64_t k0,
                                      int64_t width, float* scores) {
  for (int64_t r = 0; r < rows; ++r) {
    float* row = scores + r * width;
    if (p.mask.data != nullptr) {
      const float* m = p.mask.data + n * p.mask.stride[0] + h * p.mask.stride[1] + (q0 + r) * p.mask.stride[2] +
                       k0 * p.mask.stride[3];
      const int64_t step = p.mask.stride[3];
      for (int64_t j = 0; j < width; ++j) row[j] += m[j * step];
    }
    if (p.causal) {
      for (int64_t j = std::max<int64_t>(0, q0 + r + 1 - k0); j < width; ++j) row[j] = kNegInf;
    }
  }
}

// One row of the online softmax: folds a block of scores into (max, total)
// and the accumulated output, leaving exp(score - max) in `scores`. The max
// and the sum are lane reductions (Note [Lane reductions]): as plain loops
// they ran one element at a time, half of the forward's time.
EMBER_CPU_ISA_CLONES void fold_row(float* scores, int64_t width, float* acc, int64_t value_dim, float& max,
                                   float& total) {
  const float new_max = std::max(max, max_of<float>(scores, width));
  if (new_max == kNegInf) {
    for (int64_t j = 0; j < width; ++j) scores[j] = 0;
    return;
  }
  for (int64_t j = 0; j < width; ++j) scores[j] = std::exp(scores[j] - new_max);
  const float sum = sum_of<float>(scores, width);
  if (max != new_max) {
    const float correction = std::exp(max - new_max);
    for (int64_t c = 0; c < value_dim; ++c) acc[c] *= correction;
    total *= correction;
  }
  total += sum;
  max = new_max;
}

void forward_block(const Problem& p, const Operand& q, const Operand& k, const Operand& v, int64_t n, int64_t h,
                   int64_t q0, float* out, float* lse, std::vector<float>& scores) {
  const int64_t rows = std::min(kBlockQ, p.queries - q0);
  float* acc = out + ((n * p.heads + h) * p.queries + q0) * p.value_dim;
  float max[kBlockQ];
  float total[kBlockQ];
  std::fill(max, max + rows, kNegInf);
  std::fill(total, total + rows, 0.0f);
  std::fill(acc, acc + rows * p.value_dim, 0.0f);
  const int64_t key_end = p.key_end(q0 + rows);
  for (int64_t k0 = 0; k0 < key_end; k0 += kBlockK) {
    const int64_t width = std::min(kBlockK, key_end - k0);
    sgemm('N', 'T', rows, width, p.dim, p.scale, q.rows(n, h, q0), q.stride_row, k.rows(n, h, k0), k.stride_row, 0,
          scores.data(), width);
    mask_scores(p, n, h, q0, rows, k0, width, scores.data());
    for (int64_t r = 0; r < rows; ++r) {
      fold_row(scores.data() + r * width, width, acc + r * p.value_dim, p.value_dim, max[r], total[r]);
    }
    sgemm('N', 'N', rows, p.value_dim, width, 1, scores.data(), width, v.rows(n, h, k0), v.stride_row, 1, acc,
          p.value_dim);
  }
  float* lse_rows = lse + (n * p.heads + h) * p.queries + q0;
  for (int64_t r = 0; r < rows; ++r) {
    const float inverse = total[r] == 0 ? 0.0f : 1.0f / total[r];
    for (int64_t c = 0; c < p.value_dim; ++c) acc[r * p.value_dim + c] *= inverse;
    lse_rows[r] = total[r] == 0 ? kNegInf : max[r] + std::log(total[r]);
  }
}

void attention_forward(const ember_kernel_call& call) {
  const Problem p = problem_of(call, 3);
  const Operand q = Operand::of(call.inputs[0]);
  const Operand k = Operand::of(call.inputs[1]);
  const Operand v = Operand::of(call.inputs[2]);
  float* out = reinterpret_cast<float*>(sdk::data_ptr(call.outputs[0]));
  float* lse = reinterpret_cast<float*>(sdk::data_ptr(call.outputs[1]));
  const int64_t query_blocks = (p.queries + kBlockQ - 1) / kBlockQ;
  const int64_t tasks = p.batch * p.heads * query_blocks;
  // A block's work is about kBlockQ * S * (E + Ev) multiply-adds.
  const int64_t block_work = kBlockQ * std::max<int64_t>(p.keys, 1) * (p.dim + p.value_dim);
  parallel_for(0, tasks, std::max<int64_t>(1, (int64_t{1} << 20) / block_work), [&](int64_t begin, int64_t end) {
    use_onednn_threads(0);
    std::vector<float> scores(static_cast<size_t>(kBlockQ * kBlockK));
    for (int64_t t = begin; t < end; ++t) {
      const int64_t bh = t / query_blocks;
      forward_block(p, q, k, v, bh / p.heads, bh % p.heads, (t % query_blocks) * kBlockQ, out, lse, scores);
    }
  });
}

// P = exp(score - lse) (0 where lse is -inf), then dscore = P * (dP - D) * scale
// in place of dP.
EMBER_CPU_ISA_CLONES void weights_and_score_grads(float* scores, float* grads, int64_t rows, int64_t width,
                                                  const float* lse, const float* delta, float scale) {
  for (int64_t r = 0; r < rows; ++r) {
    float* s = scores + r * width;
    float* g = grads + r * width;
    if (lse[r] == kNegInf) {
      std::fill(s, s + width, 0.0f);
      std::fill(g, g + width, 0.0f);
      continue;
    }
    const float shift = lse[r];
    const float d = delta[r];
    for (int64_t j = 0; j < width; ++j) {
      s[j] = std::exp(s[j] - shift);
      g[j] = s[j] * (g[j] - d) * scale;
    }
  }
}

struct BackwardBuffers {
  std::vector<float> scores, score_grads, delta;
};

void backward_head(const Problem& p, const Operand& dout, const Operand& q, const Operand& k, const Operand& v,
                   const Operand& out, const float* lse, int64_t n, int64_t h, float* dq, float* dk, float* dv,
                   BackwardBuffers& b) {
  const int64_t head = n * p.heads + h;
  dq += head * p.queries * p.dim;
  dk += head * p.keys * p.dim;
  dv += head * p.keys * p.value_dim;
  lse += head * p.queries;
  std::fill(dq, dq + p.queries * p.dim, 0.0f);
  std::fill(dk, dk + p.keys * p.dim, 0.0f);
  std::fill(dv, dv + p.keys * p.value_dim, 0.0f);
  for (int64_t i = 0; i < p.queries; ++i) {
    const float* g = dout.rows(n, h, i);
    const float* o = out.rows(n, h, i);
    b.delta[static_cast<size_t>(i)] = reduce_lanes(
        int64_t{0}, p.value_dim, 0.0f, [](float x, float y) { return x + y; },
        [g, o](int64_t c) { return g[c] * o[c]; });
  }
  // Keys no query sees (causal, past the last query) keep zero gradients.
  for (int64_t k0 = 0; k0 < p.key_end(p.queries); k0 += kBlockK) {
    // A causal query q sees keys up to q: blocks of queries before k0 see none.
    const int64_t first_query = p.causal ? std::min(p.queries, k0) / kBlockQ * kBlockQ : 0;
    for (int64_t q0 = first_query; q0 < p.queries; q0 += kBlockQ) {
      const int64_t rows = std::min(kBlockQ, p.queries - q0);
      // Causal blocks along the diagonal stop at the last key their queries
      // see: the products shrink with the triangle rather than multiply zeros.
      const int64_t width = std::min(kBlockK, p.key_end(q0 + rows) - k0);
      float* scores = b.scores.data();
      float* grads = b.score_grads.data();
      sgemm('N', 'T', rows, width, p.dim, p.scale, q.rows(n, h, q0), q.stride_row, k.rows(n, h, k0), k.stride_row, 0,
            scores, width);
      mask_scores(p, n, h, q0, rows, k0, width, scores);
      sgemm('N', 'T', rows, width, p.value_dim, 1, dout.rows(n, h, q0), dout.stride_row, v.rows(n, h, k0), v.stride_row,
            0, grads, width);
      weights_and_score_grads(scores, grads, rows, width, lse + q0, b.delta.data() + q0, p.scale);
      sgemm('T', 'N', width, p.value_dim, rows, 1, scores, width, dout.rows(n, h, q0), dout.stride_row, 1,
            dv + k0 * p.value_dim, p.value_dim);
      sgemm('N', 'N', rows, p.dim, width, 1, grads, width, k.rows(n, h, k0), k.stride_row, 1, dq + q0 * p.dim, p.dim);
      sgemm('T', 'N', width, p.dim, rows, 1, grads, width, q.rows(n, h, q0), q.stride_row, 1, dk + k0 * p.dim, p.dim);
    }
  }
}

// Inputs (dout, q, k, v, out, lse[, mask]); outputs (dq, dk, dv), contiguous.
void attention_backward(const ember_kernel_call& call) {
  const Problem p = problem_of(call, 6);
  const Operand dout = Operand::of(call.inputs[0]);
  const Operand q = Operand::of(call.inputs[1]);
  const Operand k = Operand::of(call.inputs[2]);
  const Operand v = Operand::of(call.inputs[3]);
  const Operand out = Operand::of(call.inputs[4]);
  const float* lse = reinterpret_cast<const float*>(sdk::data_ptr(call.inputs[5]));
  float* dq = reinterpret_cast<float*>(sdk::data_ptr(call.outputs[0]));
  float* dk = reinterpret_cast<float*>(sdk::data_ptr(call.outputs[1]));
  float* dv = reinterpret_cast<float*>(sdk::data_ptr(call.outputs[2]));
  parallel_for(0, p.batch * p.heads, 1, [&](int64_t begin, int64_t end) {
    use_onednn_threads(0);
    BackwardBuffers buffers{std::vector<float>(static_cast<size_t>(kBlockQ * kBlockK)),
                            std::vector<float>(static_cast<size_t>(kBlockQ * kBlockK)),
                            std::vector<float>(static_cast<size_t>(p.queries))};
    for (int64_t bh = begin; bh < end; ++bh) {
      backward_head(p, dout, q, k, v, out, lse, bh / p.heads, bh % p.heads, dq, dk, dv, buffers);
    }
  });
}

}  // namespace

void register_attention_kernels(const sdk::Registrar& r) {
  r.add("scaled_dot_product_attention", EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&attention_forward>);
  r.add("scaled_dot_product_attention_backward", EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&attention_backward>);
}

}  // namespace ember::cpu
