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
// dv += P^T dout, dP = dout v^T, dq += dscore k, dk += dscore^T q. A
// forward task owns its query blocks, a backward task one (batch, head), so
// the accumulations need no locks. The products are register tiles on the
// task's thread (the tasks are the parallelism) over right operands
// prepared once per task as panels (Note [Panel products]): the forward's
// K^T times the scale (so that q K^T is the scaled scores) and V, for a run
// of query blocks of one head (the whole head unless there are too few heads
// to keep the threads busy); the backward's K^T times the scale, V^T, K, Q
// and dout of its head. Q, K, V and dout whose head dim is a whole number of
// panels serve in place. On the Sapphire Rapids machine of
// docs/benchmarks.md this ran forward and backward at batch 8, 8 heads, seq
// 512 in about 0.9 of the time oneDNN's sgemm took per block, which packs
// both operands on every call. The pointwise passes are vector loops through
// libmvec. Causal blocks on the diagonal stop at the last key their queries
// see, and within them the keys a query does not see get weight 0 without
// an exponential. A query that sees no key (all scores -inf) has l = 0:
// its output is 0 and its lse -inf, whose weights the backward reads as 0,
// as PyTorch's kernel does.
#include "vector_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "../num_threads.h"
#include "../parallel.h"
#include "elementwise.h"
#include "kernels.h"
#include "lane_reduce.h"
#include "panel_product.h"

namespace ember::cpu {
namespace {

constexpr int64_t kBlockQ = 64;
constexpr int64_t kBlockK = 256;
static_assert(kBlockK % kPanelWidth == 0, "key blocks start at a panel");
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
  // Rows [row, ...) of head (n, h) as a matrix, or its transpose.
  StridedMatrix matrix(int64_t n, int64_t h, int64_t row = 0) const { return {rows(n, h, row), stride_row, 1}; }
  StridedMatrix transposed(int64_t n, int64_t h) const { return {rows(n, h, 0), 1, stride_row}; }
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
  // Of a block of keys [k0, k0 + width), `query` sees the first this many.
  int64_t keys_seen(int64_t query, int64_t k0, int64_t width) const {
    return causal ? std::clamp<int64_t>(query + 1 - k0, 0, width) : width;
  }
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

// Adds the mask to a block of scores: rows are queries q0.., columns keys
// k0.. (row stride `width`). The keys a causal query does not see are left
// to the passes that exponentiate (Problem::keys_seen), which give them
// weight 0 without calling exp: libmvec's exp takes a slow path for -inf
// (about 5 ns an element against 0.26), which doubled the exponentials' time
// in causal attention.
EMBER_CPU_ISA_CLONES void mask_scores(const Problem& p, int64_t n, int64_t h, int64_t q0, int64_t rows, int64_t k0,
                                      int64_t width, float* scores) {
  if (p.mask.data == nullptr) return;
  for (int64_t r = 0; r < rows; ++r) {
    float* row = scores + r * width;
    const float* m = p.mask.data + n * p.mask.stride[0] + h * p.mask.stride[1] + (q0 + r) * p.mask.stride[2] +
                     k0 * p.mask.stride[3];
    const int64_t step = p.mask.stride[3];
    for (int64_t j = 0; j < width; ++j) row[j] += m[j * step];
  }
}

// One row of the online softmax: folds a block of scores, of which the
// query sees the first `seen`, into (max, total) and the accumulated output,
// leaving exp(score - max) in `scores` (0 past `seen`). The max and the sum
// are lane reductions (Note [Lane reductions]): as plain loops they ran one
// element at a time, half of the forward's time.
EMBER_CPU_ISA_CLONES void fold_row(float* scores, int64_t seen, int64_t width, float* acc, int64_t value_dim,
                                   float& max, float& total) {
  std::fill(scores + seen, scores + width, 0.0f);
  const float new_max = std::max(max, max_of<float>(scores, seen));
  if (new_max == kNegInf) {
    std::fill(scores, scores + seen, 0.0f);
    return;
  }
  for (int64_t j = 0; j < seen; ++j) scores[j] = std::exp(scores[j] - new_max);
  const float sum = sum_of<float>(scores, seen);
  if (max != new_max) {
    const float correction = std::exp(max - new_max);
    for (int64_t c = 0; c < value_dim; ++c) acc[c] *= correction;
    total *= correction;
  }
  total += sum;
  max = new_max;
}

void forward_block(const Problem& p, const Operand& q, Panels scaled_keys_t, Panels values, int64_t n, int64_t h,
                   int64_t q0, float* out, float* lse, float* scores) {
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
    multiply_panels(rows, width, p.dim, q.matrix(n, h, q0), scaled_keys_t.from_column(k0), scores, width, false);
    mask_scores(p, n, h, q0, rows, k0, width, scores);
    for (int64_t r = 0; r < rows; ++r) {
      fold_row(scores + r * width, p.keys_seen(q0 + r, k0, width), width, acc + r * p.value_dim, p.value_dim, max[r],
               total[r]);
    }
    multiply_panels(rows, p.value_dim, width, {scores, width, 1}, values.from_row(k0), acc, p.value_dim, true);
  }
  float* lse_rows = lse + (n * p.heads + h) * p.queries + q0;
  for (int64_t r = 0; r < rows; ++r) {
    const float inverse = total[r] == 0 ? 0.0f : 1.0f / total[r];
    for (int64_t c = 0; c < p.value_dim; ++c) acc[r * p.value_dim + c] *= inverse;
    lse_rows[r] = total[r] == 0 ? kNegInf : max[r] + std::log(total[r]);
  }
}

struct ForwardBuffers {
  std::vector<float> scaled_keys_t, values, scores;
};

// Queries [q_begin, q_end) of head (n, h), whole blocks.
void forward_queries(const Problem& p, const Operand& q, const Operand& k, const Operand& v, int64_t n, int64_t h,
                     int64_t q_begin, int64_t q_end, float* out, float* lse, ForwardBuffers& b) {
  const int64_t keys = p.key_end(q_end);
  const Panels scaled_keys_t = panels_of(k.transposed(n, h), p.dim, keys, p.scale, b.scaled_keys_t);
  const Panels values = panels_of(v.matrix(n, h), keys, p.value_dim, 1.0f, b.values);
  for (int64_t q0 = q_begin; q0 < q_end; q0 += kBlockQ) {
    forward_block(p, q, scaled_keys_t, values, n, h, q0, out, lse, b.scores.data());
  }
}

void attention_forward(const ember_kernel_call& call) {
  const Problem p = problem_of(call, 3);
  const Operand q = Operand::of(call.inputs[0]);
  const Operand k = Operand::of(call.inputs[1]);
  const Operand v = Operand::of(call.inputs[2]);
  float* out = reinterpret_cast<float*>(sdk::data_ptr(call.outputs[0]));
  float* lse = reinterpret_cast<float*>(sdk::data_ptr(call.outputs[1]));
  const int64_t heads = p.batch * p.heads;
  const int64_t query_blocks = (p.queries + kBlockQ - 1) / kBlockQ;
  // A task packs its head's keys and values once for a run of query blocks:
  // the whole head, unless there are too few heads to share among the threads.
  const int64_t runs = std::clamp<int64_t>(4 * num_threads() / std::max<int64_t>(heads, 1), 1,
                                           std::max<int64_t>(query_blocks, 1));
  const int64_t run_queries = (query_blocks + runs - 1) / runs * kBlockQ;
  // A task's work is about run_queries * S * (E + Ev) multiply-adds.
  const int64_t task_work = std::max<int64_t>(run_queries * p.keys * (p.dim + p.value_dim), 1);
  parallel_for(0, heads * runs, std::max<int64_t>(1, (int64_t{1} << 20) / task_work), [&](int64_t begin, int64_t end) {
    ForwardBuffers buffers;
    buffers.scores.resize(static_cast<size_t>(kBlockQ * kBlockK));
    for (int64_t t = begin; t < end; ++t) {
      const int64_t head = t / runs;
      const int64_t q_begin = t % runs * run_queries;
      const int64_t q_end = std::min(p.queries, q_begin + run_queries);
      if (q_begin < q_end) {
        forward_queries(p, q, k, v, head / p.heads, head % p.heads, q_begin, q_end, out, lse, buffers);
      }
    }
  });
}

// P = exp(score - lse) (0 where lse is -inf or the query does not see the
// key), then dscore = P * (dP - D) * scale in place of dP, for a block of
// queries q0.. by keys k0...
EMBER_CPU_ISA_CLONES void weights_and_score_grads(const Problem& p, int64_t q0, int64_t k0, float* scores,
                                                  float* grads, int64_t rows, int64_t width, const float* lse,
                                                  const float* delta) {
  for (int64_t r = 0; r < rows; ++r) {
    float* s = scores + r * width;
    float* g = grads + r * width;
    const int64_t seen = lse[r] == kNegInf ? 0 : p.keys_seen(q0 + r, k0, width);
    std::fill(s + seen, s + width, 0.0f);
    std::fill(g + seen, g + width, 0.0f);
    const float shift = lse[r];
    const float d = delta[r];
    const float scale = p.scale;
    for (int64_t j = 0; j < seen; ++j) {
      s[j] = std::exp(s[j] - shift);
      g[j] = s[j] * (g[j] - d) * scale;
    }
  }
}

struct BackwardBuffers {
  std::vector<float> scores, score_grads, delta;
  std::vector<float> scaled_keys_t, values_t, keys, queries, output_grads;  // packed
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
  const int64_t keys_seen = p.key_end(p.queries);
  const Panels scaled_keys_t = panels_of(k.transposed(n, h), p.dim, keys_seen, p.scale, b.scaled_keys_t);
  const Panels values_t = panels_of(v.transposed(n, h), p.value_dim, keys_seen, 1.0f, b.values_t);
  const Panels keys = panels_of(k.matrix(n, h), keys_seen, p.dim, 1.0f, b.keys);
  const Panels queries = panels_of(q.matrix(n, h), p.queries, p.dim, 1.0f, b.queries);
  const Panels output_grads = panels_of(dout.matrix(n, h), p.queries, p.value_dim, 1.0f, b.output_grads);
  for (int64_t k0 = 0; k0 < keys_seen; k0 += kBlockK) {
    // A causal query q sees keys up to q: blocks of queries before k0 see none.
    const int64_t first_query = p.causal ? std::min(p.queries, k0) / kBlockQ * kBlockQ : 0;
    for (int64_t q0 = first_query; q0 < p.queries; q0 += kBlockQ) {
      const int64_t rows = std::min(kBlockQ, p.queries - q0);
      // Causal blocks along the diagonal stop at the last key their queries
      // see: the products shrink with the triangle rather than multiply zeros.
      const int64_t width = std::min(kBlockK, p.key_end(q0 + rows) - k0);
      float* scores = b.scores.data();
      float* grads = b.score_grads.data();
      multiply_panels(rows, width, p.dim, q.matrix(n, h, q0), scaled_keys_t.from_column(k0), scores, width, false);
      mask_scores(p, n, h, q0, rows, k0, width, scores);
      multiply_panels(rows, width, p.value_dim, dout.matrix(n, h, q0), values_t.from_column(k0), grads, width, false);
      weights_and_score_grads(p, q0, k0, scores, grads, rows, width, lse + q0, b.delta.data() + q0);
      // P^T and dscore^T are the blocks read through transposed strides.
      multiply_panels(width, p.value_dim, rows, {scores, 1, width}, output_grads.from_row(q0), dv + k0 * p.value_dim,
                      p.value_dim, true);
      multiply_panels(rows, p.dim, width, {grads, width, 1}, keys.from_row(k0), dq + q0 * p.dim, p.dim, true);
      multiply_panels(width, p.dim, rows, {grads, 1, width}, queries.from_row(q0), dk + k0 * p.dim, p.dim, true);
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
    BackwardBuffers buffers;
    buffers.scores.resize(static_cast<size_t>(kBlockQ * kBlockK));
    buffers.score_grads.resize(static_cast<size_t>(kBlockQ * kBlockK));
    buffers.delta.resize(static_cast<size_t>(p.queries));
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
