#include "autograd/inplace_views.h"

#include <mutex>
#include <string>

#include "ember/error.h"
#include "ember/ops.h"

namespace ember::autograd {
namespace {

// The base's gradient with the written view's region replaced by the
// in-place op's gradient for its `self` input (Note [In-place writes
// through views]). Inputs: the base's gradient; next edges: the base's
// history before the write, then the op's inputs other than self.
class CopySlices : public Node {
 public:
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> inplace_node, int64_t self_input,
             std::vector<Edge> next_edges)
      : Node("CopySlices", std::move(next_edges), 1),
        base_sizes_(base.sizes()),
        base_strides_(base.strides()),
        view_sizes_(view.sizes()),
        view_strides_(view.strides()),
        view_offset_(view.storage_offset() - base.storage_offset()),
        inplace_node_(std::move(inplace_node)),
        self_input_(self_input) {}

  std::vector<Tensor> apply(std::vector<Tensor> grads) override {
    std::vector<Tensor> out(next_edges().size());
    const Tensor& grad = grads[0];
    if (!grad.defined()) return out;
    Tensor result = empty_strided(base_sizes_, base_strides_, TensorOptions(grad.dtype(), grad.device()));
    result.copy_(grad);
    Tensor region = result.as_strided(view_sizes_, view_strides_, view_offset_);
    std::vector<Tensor> inner = inplace_node_->apply({region.clone()});
    if (self_input_ >= 0 && inner[static_cast<size_t>(self_input_)].defined()) {
      region.copy_(inner[static_cast<size_t>(self_input_)]);
    } else {
      region.fill_(0);
    }
    out[0] = std::move(result);
    size_t next = 1;
    for (size_t i = 0; i < inner.size() && next < out.size(); ++i) {
      if (static_cast<int64_t>(i) != self_input_) out[next++] = std::move(inner[i]);
    }
    return out;
  }

  void release_saved() override { inplace_node_->release_saved(); }

 private:
  DimVector base_sizes_;
  DimVector base_strides_;
  DimVector view_sizes_;
  DimVector view_strides_;
  int64_t view_offset_;
  std::shared_ptr<Node> inplace_node_;
  int64_t self_input_;
};

// Rebuilding histories is rare (a view used after its storage was written),
// so one lock keeps threads sharing a view from building it twice.
std::mutex g_regenerate_mutex;

void regenerate_history(const Tensor& view, uint32_t version) {
  TensorImpl* impl = view.impl();
  std::lock_guard<std::mutex> lock(g_regenerate_mutex);
  if (impl->history_version() == version) return;
  const Tensor base(impl->view_base());
  if (base.requires_grad() && is_floating(view.dtype())) {
    Tensor regenerated;
    {
      EnableGradGuard record;
      regenerated = base.as_strided(view.sizes(), view.strides(), view.storage_offset());
    }
    AutogradMeta& meta = impl->ensure_autograd_meta();
    meta.grad_fn = regenerated.impl()->autograd_meta()->grad_fn;
    meta.output_nr = 0;
  }
  impl->set_history_version(version);
}

}  // namespace

void refresh_view_history(const Tensor& view) {
  TensorImpl* impl = view.impl();
  if (!impl->is_view()) return;
  const uint32_t version = impl->storage()->version();
  if (impl->history_version() == version) return;
  regenerate_history(view, version);
}

void rebase_view_history(const Tensor& view, const std::shared_ptr<Node>& inplace_node, int64_t self_input) {
  const Tensor base(view.impl()->view_base());
  if (!is_floating(base.dtype())) return;
  if (view.storage_offset() < base.storage_offset()) {
    throw_error(ErrorKind::NotImplemented,
                "an in-place write into a view that starts before its base's first element (an as_strided view "
                "with a smaller storage offset) cannot be recorded by autograd; clone() the view first");
  }
  std::vector<Edge> edges{gradient_edge(base)};
  const auto& op_edges = inplace_node->next_edges();
  for (size_t i = 0; i < op_edges.size(); ++i) {
    if (static_cast<int64_t>(i) != self_input) edges.push_back(op_edges[i]);
  }
  auto copy_slices = make_node<CopySlices>(base, view, inplace_node, self_input, std::move(edges));
  AutogradMeta& meta = base.impl()->ensure_autograd_meta();
  meta.grad_fn = std::move(copy_slices);
  meta.output_nr = 0;
}

}  // namespace ember::autograd
