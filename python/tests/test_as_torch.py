"""`python -m ember.as_torch`: a PyTorch program runs unchanged, its
`import torch.nn as nn` lines included, and so do the processes it starts."""

import os
import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent("""
    import sys
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.optim.lr_scheduler import StepLR
    import ember

    assert torch is ember and nn is ember.nn and F is ember.nn.functional
    assert nn.Linear is ember.nn.Linear and StepLR is ember.optim.lr_scheduler.StepLR
    assert torch.nn.modules.linear.__name__ == "ember.nn.modules.linear"


    def main():
        torch.manual_seed(0)
        data = TensorDataset(torch.randn(32, 3), torch.randint(0, 2, (32,)))
        loader = DataLoader(data, batch_size=8, num_workers=1, multiprocessing_context="spawn")
        model = nn.Linear(3, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        print("ran", __name__, sys.argv[1:], type(x).__module__)


    if __name__ == "__main__":
        main()
""")


def run_as_torch(*arguments, cwd=None):
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-m", "ember.as_torch", *arguments], capture_output=True, text=True,
                          timeout=300, env=environment, cwd=cwd)


def test_a_pytorch_program_runs_unchanged_with_spawned_workers(tmp_path):
    program = tmp_path / "train.py"
    program.write_text(PROGRAM)
    result = run_as_torch(str(program), "--epochs", "1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ran __main__ ['--epochs', '1'] ember._C"


def test_a_module_runs_with_m(tmp_path):
    (tmp_path / "trainer.py").write_text(
        "import sys\nimport torch.nn\nprint(torch.nn.ReLU()(torch.tensor([-1.0, 2.0])).tolist(), sys.argv[1:])\n")
    result = run_as_torch("-m", "trainer", "x", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[0.0, 2.0] ['x']"


def test_a_submodule_ember_lacks_is_named_with_both_names(tmp_path):
    program = tmp_path / "missing.py"
    program.write_text("import torch.no_such_module\n")
    result = run_as_torch(str(program))
    assert result.returncode != 0
    assert ("ModuleNotFoundError: No module named 'torch.no_such_module': Ember has no 'ember.no_such_module'"
            in result.stderr)


def test_install_refuses_when_pytorch_is_already_imported(tmp_path):
    program = tmp_path / "late.py"
    program.write_text(textwrap.dedent("""
        import sys, types
        sys.modules["torch"] = types.ModuleType("torch")
        import ember.as_torch
        try:
            ember.as_torch.install()
        except RuntimeError as error:
            print(error)
    """))
    result = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert result.returncode == 0, result.stderr
    assert "PyTorch is already imported in this process" in result.stdout


def test_usage_errors_name_what_is_wrong(tmp_path):
    assert run_as_torch().returncode == 2
    missing = run_as_torch(str(tmp_path / "absent.py"))
    assert missing.returncode == 2 and "no such program" in missing.stderr
    assert run_as_torch("-m").returncode == 2


DDP_PROGRAM = textwrap.dedent("""
    import sys
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = DDP(nn.Linear(4, 2))
    torch.manual_seed(dist.get_rank())
    model(torch.randn(8, 4)).pow(2).mean().backward()
    torch.optim.SGD(model.parameters(), lr=0.1).step()
    weight = model.module.weight.detach().clone()
    dist.all_reduce(weight)
    with open(f"{sys.argv[1]}/rank{dist.get_rank()}", "w") as out:  # the workers share one stdout
        out.write(str(float((weight / 2 - model.module.weight).abs().max())))
    dist.destroy_process_group()
""")


def test_a_torchrun_program_runs_under_ember_run(tmp_path):
    program = tmp_path / "ddp.py"
    program.write_text(DDP_PROGRAM)
    result = subprocess.run([sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", "2", "-m",
                             "ember.as_torch", str(program), str(tmp_path)], capture_output=True, text=True,
                            timeout=300, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert result.returncode == 0, result.stderr
    # Both ranks hold the average of their updates: the gradients were all-reduced.
    assert [(tmp_path / f"rank{rank}").read_text() for rank in (0, 1)] == ["0.0", "0.0"]
