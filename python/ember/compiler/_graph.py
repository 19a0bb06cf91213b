"""The captured graph as Python sees it, in the spirit of torch.fx."""


class Node:
    """One op call: `op` is "placeholder", "call_function" or "output"; `target` the catalogue op."""

    def __init__(self, name, op, target, args, kwargs, meta):
        self.name = name
        self.op = op
        self.target = target
        self.args = args
        self.kwargs = kwargs
        self.meta = meta

    def __repr__(self):
        return self.name


class Graph:
    def __init__(self, description):
        self._description = description
        values = description["values"]
        names = {}
        self.nodes = []
        for position, value_id in enumerate(description["inputs"]):
            v = values[value_id]
            node = Node(f"v{value_id}", "placeholder", f"input_{position}", (), {},
                        {"shape": tuple(v["shape"]), "dtype": v["dtype"], "device": v["device"]})
            names[value_id] = node
            self.nodes.append(node)
        for n in description["nodes"]:
            args = tuple(values[i]["constant"] if values[i]["origin"] == "constant" else names.get(i, f"v{i}")
                         for i in n["inputs"])
            for output in n["outputs"]:
                v = values[output]
                node = Node(f"v{output}", "call_function", n["op"], args, dict(n["attrs"]),
                            {"shape": tuple(v["shape"]), "dtype": v["dtype"], "device": v["device"]})
                names[output] = node
                self.nodes.append(node)
        outputs = tuple(names.get(i, f"v{i}") for i in description["outputs"])
        self.nodes.append(Node("output", "output", "output", (outputs,), {}, {}))

    def __iter__(self):
        return iter(self.nodes)

    def __str__(self):
        return self._description["code"]


class GraphModule:
    """A captured graph that can be called: ``gm(*inputs)`` runs the compiled plan."""

    def __init__(self, plan):
        self._plan = plan
        self.graph = Graph(plan.graph)

    @property
    def code(self):
        return self._plan.graph["code"]

    def forward(self, *inputs):
        out = self._plan.run(list(inputs))
        return out[0] if len(out) == 1 else tuple(out)

    __call__ = forward

    def print_readable(self):
        print(self.code)
        return self.code
