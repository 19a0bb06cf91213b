"""ExportedProgram: an exported graph with its weights, run through compiled plans."""

from .._C import Tensor


class ExportedProgram:
    """What export() returns and load() reads: call it, or ep.module(), on
    tensors matching its input specs."""

    def __init__(self, program):
        self._program = program
        self._names = [spec["name"] for spec in program.input_specs]

    @property
    def graph_code(self):
        return self._program.code

    def __str__(self):
        return self._program.code

    def __repr__(self):
        return f"ExportedProgram(inputs={self._names}, ops={self._program.num_nodes})"

    @property
    def input_specs(self):
        return self._program.input_specs

    @property
    def output_specs(self):
        return self._program.output_specs

    @property
    def range_constraints(self):
        return {name: (low, high) for name, low, high in self._program.symbols}

    def state_dict(self):
        return {spec["name"]: t for spec, t in zip(self._program.weight_specs, self._program.weights)}

    @property
    def ops(self):
        return self._program.ops

    def __call__(self, *args, **kwargs):
        inputs = list(args)
        if len(inputs) > len(self._names):
            raise TypeError(f"exported program: expected {len(self._names)} inputs ({', '.join(self._names)}), "
                            f"got {len(inputs) + len(kwargs)}")
        for name in self._names[len(inputs):]:
            if name not in kwargs:
                raise TypeError(f"exported program: missing input {name!r} (inputs: {', '.join(self._names)})")
            inputs.append(kwargs.pop(name))
        if kwargs:
            raise TypeError(f"exported program: unexpected input {next(iter(kwargs))!r} "
                            f"(inputs: {', '.join(self._names)})")
        for name, t in zip(self._names, inputs):
            if not isinstance(t, Tensor):
                raise TypeError(f"exported program: input {name!r} must be a tensor, got {type(t).__name__}")
        out = self._program.run(inputs)
        structure = self._program.output_structure
        if structure == "tensor":
            return out[0]
        return list(out) if structure == "list" else tuple(out)

    def module(self):
        """A module whose forward runs the program."""
        from ..nn import Module

        program = self

        class ExportedModule(Module):
            def forward(self, *args, **kwargs):
                return program(*args, **kwargs)

        return ExportedModule()
