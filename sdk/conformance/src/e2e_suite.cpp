#include "e2e_suite.h"

#include <cmath>
#include <functional>

#include <ember/ember.h>

namespace ember::conformance {

namespace {

using Params = std::vector<Tensor>;
using Model = std::function<Tensor(const Params& params, const Tensor& x)>;

constexpr int kSteps = 5;
constexpr double kLearningRate = 0.1;
constexpr double kLossRtol = 1e-4;

struct TrainingProblem {
  Model model;
  Params initial;  // on the CPU
  Tensor x, y;     // on the CPU
};

// Losses before each of kSteps SGD steps, all on `device`.
std::vector<double> train(const TrainingProblem& problem, Device device) {
  Params params;
  for (const Tensor& p : problem.initial) params.push_back(p.to(device).clone().detach().requires_grad_());
  const Tensor x = problem.x.to(device);
  const Tensor y = problem.y.to(device);
  std::vector<double> losses;
  for (int step = 0; step < kSteps; ++step) {
    const Tensor loss = cross_entropy(problem.model(params, x), y);
    losses.push_back(loss.item<double>());
    autograd::backward({loss});
    autograd::NoGradGuard no_grad;
    for (Tensor& p : params) {
      if (!p.grad().defined()) fail_check("a parameter got no gradient at step " + std::to_string(step));
      sub_(p, p.grad() * kLearningRate);
      p.set_grad(Tensor());
    }
  }
  return losses;
}

void check_training(const TrainingProblem& problem, Device device, bool partial, std::string& note) {
  const std::vector<double> reference = train(problem, Device("cpu"));
  std::vector<double> losses;
  try {
    losses = train(problem, device);
  } catch (const Error& e) {
    // A device without some op cannot train this model. A certified backend
    // trains it, so that is a failure unless a partial run was asked for.
    if (e.kind() != ErrorKind::NotImplemented) throw;
    const std::string why = std::string("the model cannot train, the device lacks an op: ") + e.what();
    if (partial) throw CheckSkipped(why);
    fail_check(why + " (--partial accepts this gap)");
  }
  for (int step = 0; step < kSteps; ++step) {
    const double error = std::abs(losses[step] - reference[step]);
    expect(std::isfinite(losses[step]) && error <= kLossRtol * std::abs(reference[step]) + 1e-6,
           "loss at step " + std::to_string(step) + " is " + std::to_string(losses[step]) + " on the device, " +
               std::to_string(reference[step]) + " on the CPU");
  }
  expect(losses.back() < losses.front(), "the loss did not fall: " + std::to_string(losses.front()) + " -> " +
                                             std::to_string(losses.back()));
  note = "loss " + std::to_string(losses.front()) + " -> " + std::to_string(losses.back()) + " in " +
         std::to_string(kSteps) + " steps, as on the CPU";
}

Params random_params(const std::vector<std::pair<DimVector, double>>& shapes) {
  Params params;
  for (const auto& [shape, scale] : shapes) params.push_back(randn(shape) * scale);
  return params;
}

// Labels from a fixed random linear rule of the flattened inputs: learnable.
Tensor labels_for(const Tensor& x, int64_t classes) {
  const Tensor flat = x.reshape({x.size(0), -1});
  return argmax(mm(flat, randn({flat.size(1), classes})), 1);
}

TrainingProblem mlp_problem() {
  manual_seed(11);
  TrainingProblem p;
  p.x = randn({32, 10});
  p.y = labels_for(p.x, 4);
  p.initial = random_params({{{16, 10}, 0.3}, {{16}, 0.1}, {{4, 16}, 0.3}, {{4}, 0.1}});
  p.model = [](const Params& w, const Tensor& x) { return linear(relu(linear(x, w[0], w[1])), w[2], w[3]); };
  return p;
}

TrainingProblem cnn_problem() {
  manual_seed(12);
  TrainingProblem p;
  p.x = randn({8, 1, 8, 8});
  p.y = labels_for(p.x, 3);
  p.initial = random_params({{{4, 1, 3, 3}, 0.3}, {{4}, 0.1}, {{3, 36}, 0.2}, {{3}, 0.1}});
  p.model = [](const Params& w, const Tensor& x) {
    const Tensor features = max_pool2d(relu(conv2d(x, w[0], w[1])), {2});
    return linear(features.flatten(1), w[2], w[3]);
  };
  return p;
}

struct E2eCheck {
  const char* id;
  TrainingProblem (*problem)();
};

constexpr E2eCheck kChecks[] = {{"e2e/mlp", mlp_problem}, {"e2e/cnn", cnn_problem}};

}  // namespace

std::vector<std::string> e2e_check_ids() {
  std::vector<std::string> ids;
  for (const E2eCheck& check : kChecks) ids.emplace_back(check.id);
  return ids;
}

std::vector<CheckResult> run_e2e_suite(Device device, const Filter& filter, bool partial) {
  std::vector<CheckResult> results;
  for (const E2eCheck& check : kChecks) {
    if (!filter.matches(check.id)) continue;
    results.push_back(
        run_check(check.id, [&](std::string& note) { check_training(check.problem(), device, partial, note); }));
  }
  return results;
}

}  // namespace ember::conformance
