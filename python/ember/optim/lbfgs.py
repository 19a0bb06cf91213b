"""L-BFGS with PyTorch's algorithm and defaults: a quasi-Newton direction
from the last ``history_size`` steps, a fixed step or a strong-Wolfe line
search, several iterations per step(closure). The parameters are treated as
one flat vector; scalars (dot products, step sizes) are Python floats."""

import math

from .. import _C
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, check_hyperparameters


def _dot(a, b):
    return float((a * b).sum())


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1
    and g2, clamped to ``bounds`` (the two points by default); their middle
    when the cubic has no minimum."""
    xmin_bound, xmax_bound = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (xmin_bound + xmax_bound) / 2.0
    d2 = math.sqrt(d2_square)
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, xmin_bound), xmax_bound)


def _strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step size along ``d`` satisfying the strong Wolfe conditions
    (sufficient decrease ``c1``, curvature ``c2``), found by bracketing and
    then zooming with cubic interpolation (Nocedal and Wright, Algorithms
    3.5 and 3.6). ``evaluate(t)`` gives (loss, flat gradient) at x + t d.
    Returns (loss, gradient, t, evaluations)."""
    d_norm = float(d.abs().max())
    f_new, g_new = evaluate(t)
    evaluations = 1
    gtd_new = _dot(g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        sufficient_decrease = f_new <= f + c1 * t * gtd and not (ls_iter > 1 and f_new >= f_prev)
        if sufficient_decrease and abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if not sufficient_decrease or gtd_new >= 0:
            bracket, bracket_f, bracket_g = [t_prev, t], [f_prev, f_new], [g_prev, g_new]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        # Extrapolate, between a hundredth further and ten times as far.
        t_next = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                    bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evaluations += 1
        gtd_new = _dot(g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # Zoom: shrink the bracket until a point satisfies the conditions.
    insufficient_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # A point too close to the bracket's ends makes too little progress:
        # the second time in a row, or outside the bracket, move it inwards.
        margin = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < margin:
            if insufficient_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - margin if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + margin
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = evaluate(t)
        evaluations += 1
        gtd_new = _dot(g_new, d)
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high], bracket_g[high], bracket_gtd[high] = t, f_new, g_new, gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low], bracket_g[low], bracket_gtd[low] = t, f_new, g_new, gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evaluations


class LBFGS(Optimizer):
    """step(closure) runs up to ``max_iter`` iterations (``max_eval``
    closure calls); the closure clears the gradients, computes the loss,
    calls backward and returns the loss. One parameter group only."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        check_hyperparameters(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _gather_flat_grad(self):
        return _C.cat([_C._zeros([p.numel()], p.dtype, p.device) if p.grad is None else p.grad.reshape(-1)
                       for p in self._params], 0)

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            p.add_(update[offset:offset + p.numel()].view(list(p.shape)), alpha=step_size)
            offset += p.numel()

    def _evaluate_along(self, closure, d):
        """evaluate(t) for the line search: the loss and flat gradient at
        x + t d, the parameters left at x."""
        start = [p.clone() for p in self._params]

        def evaluate(t):
            self._add_grad(t, d)
            with enable_grad():
                loss = float(closure())
            flat_grad = self._gather_flat_grad()
            for p, value in zip(self._params, start):
                p.copy_(value)
            return loss, flat_grad

        return evaluate

    def step(self, closure):
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        if group["line_search_fn"] not in (None, "strong_wolfe"):
            raise RuntimeError(f"only 'strong_wolfe' is supported, not line_search_fn={group['line_search_fn']!r}")
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]
        # The whole state lives with the first parameter, as in PyTorch.
        state = self.state.setdefault(self._params[0], {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if float(flat_grad.abs().max()) <= tolerance_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro, H_diag = [], [], [], 1
            else:
                # Update the curvature pairs, then the two-loop recursion.
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = _dot(y, s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / _dot(y, y)
                al = state.setdefault("al", [None] * history_size)
                q = flat_grad.neg()
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = _dot(old_stps[i], q) * ro[i]
                    q.add_(old_dirs[i], alpha=-al[i])
                d = r = q.mul(H_diag)
                for i in range(len(old_dirs)):
                    be_i = _dot(old_dirs[i], r) * ro[i]
                    r.add_(old_stps[i], alpha=al[i] - be_i)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            t = min(1.0, 1.0 / float(flat_grad.abs().sum())) * lr if state["n_iter"] == 1 else lr
            gtd = _dot(flat_grad, d)
            if gtd > -tolerance_change:
                break
            evaluations = 0
            if group["line_search_fn"] == "strong_wolfe":
                loss, flat_grad, t, evaluations = _strong_wolfe(self._evaluate_along(closure, d), t, d, loss,
                                                                flat_grad, gtd, max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                optimal = float(flat_grad.abs().max()) <= tolerance_grad
            else:
                self._add_grad(t, d)
                optimal = False
                if n_iter != max_iter:
                    with enable_grad():
                        loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    optimal = float(flat_grad.abs().max()) <= tolerance_grad
                    evaluations = 1
            current_evals += evaluations
            state["func_evals"] += evaluations
            if n_iter == max_iter or current_evals >= max_eval or optimal:
                break
            if float(d.mul(t).abs().max()) <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss
