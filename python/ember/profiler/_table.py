"""The summary table, laid out as torch.autograd.profiler_util._build_table
prints it (same columns, widths, number formats and footer), so a reader of
PyTorch's tables reads Ember's the same way."""

# What sort_by may name: the numeric attributes of FunctionEvent and
# FunctionEventAvg. PyTorch's "cuda"/"xpu"/"privateuse1" spellings mean "device".
SORT_KEYS = ("cpu_time", "cpu_time_total", "self_cpu_time_total", "device_time", "device_time_total",
             "self_device_time_total", "cpu_memory_usage", "self_cpu_memory_usage", "device_memory_usage",
             "self_device_memory_usage", "count")


def format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def format_memory(nbytes):
    kb, mb, gb = 1024, 1024 ** 2, 1024 ** 3
    if abs(nbytes) >= gb:
        return f"{nbytes * 1.0 / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes * 1.0 / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes * 1.0 / kb:.2f} KB"
    return str(nbytes) + " B"


def sort_attribute(sort_by):
    if not isinstance(sort_by, str):
        raise TypeError(f"table: sort_by must be a str, got {type(sort_by).__name__}")
    attribute = sort_by.replace("cuda", "device").replace("xpu", "device").replace("privateuse1", "device")
    if attribute not in SORT_KEYS:
        raise ValueError(f"table: unknown sort_by key '{sort_by}'; expected one of {', '.join(SORT_KEYS)}")
    return attribute


def _time(time_us, time_unit):
    if time_unit == "s":
        return f"{time_us / 1e6:.3f}s"
    if time_unit == "ms":
        return f"{time_us / 1e3:.3f}ms"
    if time_unit == "us":
        return f"{time_us:.3f}us"
    return format_time(time_us)


def _trim_path(path, width):
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


def build_table(events, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
                max_shapes_column_width=80, header=None, profile_memory=False, top_level_events_only=False,
                time_unit=None):
    if time_unit not in (None, "s", "ms", "us"):
        raise ValueError(f"table: unknown time_unit '{time_unit}'; expected 's', 'ms' or 'us'")
    if not isinstance(row_limit, int) or isinstance(row_limit, bool):
        raise TypeError(f"table: row_limit must be an int, got {type(row_limit).__name__}")
    if sort_by is not None:
        attribute = sort_attribute(sort_by)
        events = sorted(events, key=lambda event: getattr(event, attribute), reverse=True)
    if len(events) == 0:
        return ""

    has_input_shapes = any(event.input_shapes for event in events)
    stacks = [event.stack for event in events if event.stack]
    has_stack = len(stacks) > 0
    has_device_mem = any(event.self_device_memory_usage != 0 for event in events)
    # As PyTorch names the columns by the device ("Self CUDA"); "Device" when several are timed.
    timed = set().union(*(event.timed_device_types for event in events))
    device_name = None if not timed else (next(iter(timed)).upper() if len(timed) == 1 else "Device")

    name_column_width = max(len(event.key) for event in events) + 4
    if max_name_column_width is not None:
        name_column_width = min(name_column_width, max_name_column_width)
    shapes_column_width = max(len(str(event.input_shapes)) for event in events) + 4
    if max_shapes_column_width is not None:
        shapes_column_width = min(shapes_column_width, max_shapes_column_width)
    default_column_width = 12
    src_column_width = None
    if has_stack:
        src_column_width = max(max(len(entry) for entry in stack) for stack in stacks) + 4
        if max_src_column_width is not None:
            src_column_width = min(src_column_width, max_src_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if device_name is not None:
        headers += [f"Self {device_name}", f"Self {device_name} %", f"{device_name} total",
                    f"{device_name} time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
        if has_device_mem:
            headers += ["Device Mem", "Self Device Mem"]
    headers.append("# of Calls")

    spacing = 2
    row_format = ""
    header_sep = ""
    line_length = -spacing

    def add_column(padding, text_dir=">"):
        nonlocal row_format, header_sep, line_length
        row_format += "{: " + text_dir + str(padding) + "}" + " " * spacing
        header_sep += "-" * padding + " " * spacing
        line_length += padding + spacing

    add_column(name_column_width)
    for _ in headers[1:]:
        add_column(default_column_width)
    if has_input_shapes:
        headers.append("Input Shapes")
        add_column(shapes_column_width)
    if has_stack:
        headers.append("Source Location")
        add_column(src_column_width, text_dir="<")

    lines = []
    sum_self_cpu_time_total = sum(event.self_cpu_time_total for event in events)
    sum_self_device_time_total = sum(event.self_device_time_total for event in events)
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [header_sep, row_format.format(*headers), header_sep]

    shown = 0
    for event in events:
        if shown == row_limit:
            break
        if top_level_events_only and event.cpu_parent is not None:
            continue
        shown += 1
        name = event.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name,
               format_time_share(event.self_cpu_time_total, sum_self_cpu_time_total),
               _time(event.self_cpu_time_total, time_unit),
               format_time_share(event.cpu_time_total, sum_self_cpu_time_total),
               _time(event.cpu_time_total, time_unit),
               _time(event.cpu_time, time_unit)]
        if device_name is not None:
            row += [_time(event.self_device_time_total, time_unit),
                    format_time_share(event.self_device_time_total, sum_self_device_time_total),
                    _time(event.device_time_total, time_unit),
                    _time(event.device_time, time_unit)]
        if profile_memory:
            row += [format_memory(event.cpu_memory_usage), format_memory(event.self_cpu_memory_usage)]
            if has_device_mem:
                row += [format_memory(event.device_memory_usage), format_memory(event.self_device_memory_usage)]
        row.append(event.count)
        if has_input_shapes:
            row.append(str(event.input_shapes)[:shapes_column_width])
        if has_stack:
            row.append(_trim_path(event.stack[0], src_column_width) if event.stack else "")
        lines.append(row_format.format(*row))
        if has_stack:
            empty = [""] * (len(headers) - 1)
            for entry in (event.stack or [])[1:]:
                lines.append(row_format.format(*(empty + [_trim_path(entry, src_column_width)])))
            lines.append(row_format.format(*(empty + [""])))
    lines += [header_sep, f"Self CPU time total: {_time(sum_self_cpu_time_total, time_unit)}"]
    if device_name is not None:
        lines.append(f"Self {device_name} time total: {_time(sum_self_device_time_total, time_unit)}")
    return "".join(line + "\n" for line in lines)
