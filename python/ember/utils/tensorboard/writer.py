"""SummaryWriter: PyTorch's interface for writing TensorBoard event files
(scalars, histograms, images, text, hyperparameters), over the
`tensorboard` package's event file writer."""

import os
import socket
import time
import warnings
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import summary as _summary

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Events appended to one event file of a log folder, flushed every flush_secs or max_queue events."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self._writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self._writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self._writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        self.add_event(Event(summary=summary), global_step, walltime)

    def flush(self):
        self._writer.flush()

    def close(self):
        self._writer.close()

    def reopen(self):
        self._writer.reopen()


class SummaryWriter:
    """Writes to `log_dir` (runs/<date>_<host><comment> by default), as torch.utils.tensorboard.SummaryWriter."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120, filename_suffix=""):
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = str(log_dir)
        self.purge_step, self.max_queue, self.flush_secs = purge_step, max_queue, flush_secs
        self.filename_suffix = filename_suffix
        self._bins = None
        self.file_writer = None
        self.all_writers = {}
        self._get_file_writer()

    def _get_file_writer(self):
        if self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # TensorBoard drops events at or after this step that an earlier run wrote.
                self.file_writer.add_event(Event(step=self.purge_step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=self.purge_step, session_log=SessionLog(
                    status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def _write(self, summary, global_step, walltime):
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        self._write(_summary.scalar(tag, scalar_value, new_style, double_precision), global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each scalar under main_tag, in its own run folder <log_dir>/<main_tag>_<tag>, so TensorBoard draws
        them in one chart."""
        walltime = time.time() if walltime is None else walltime
        for tag, value in tag_scalar_dict.items():
            folder = os.path.join(self._get_file_writer().get_logdir(), f"{main_tag}_{tag}".replace("/", "_"))
            if folder not in self.all_writers:
                self.all_writers[folder] = FileWriter(folder, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers[folder].add_summary(_summary.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        if isinstance(bins, str) and bins == "tensorflow":
            self._bins = self._bins or _summary.tensorflow_bins()
            bins = self._bins
        self._write(_summary.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        self._write(_summary.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        self._write(_summary.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of them, tiled) as an image."""
        import numpy

        figures = figure if isinstance(figure, list) else [figure]
        images = []
        for each in figures:
            each.canvas.draw()
            images.append(numpy.asarray(each.canvas.buffer_rgba())[:, :, :3].transpose(2, 0, 1))
            if close:
                import matplotlib.pyplot as plt
                plt.close(each)
        if isinstance(figure, list):
            self.add_images(tag, numpy.stack(images), global_step, walltime)
        else:
            self.add_image(tag, images[0], global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._write(_summary.text(tag, text_string), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None):
        """The hyperparameters and their metrics as one run of TensorBoard's HPARAMS tab: a subfolder
        (run_name, or the time) holding the hparams summaries and each metric as a scalar."""
        if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries = _summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        folder = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=folder) as run:
            for each in summaries:
                run.file_writer.add_summary(each, global_step)
            for name, value in metric_dict.items():
                run.add_scalar(name, value, global_step)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        warnings.warn("SummaryWriter.add_graph: Ember writes no model graph to TensorBoard (PyTorch's traces it "
                      "with torch.jit); the call is ignored", UserWarning, stacklevel=2)

    def flush(self):
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        for writer in self.all_writers.values():
            writer.close()
        self.file_writer = None
        self.all_writers = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
