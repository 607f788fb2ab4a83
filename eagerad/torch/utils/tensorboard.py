"""``torch.utils.tensorboard``: a ``SummaryWriter`` that writes TensorBoard's event files
itself (``eagerad.event_file``), so programs that log with it run without the
``tensorboard`` package; ``tensorboard --logdir runs`` shows what they wrote.  Scalars,
scalar groups, histograms, text and images are written; the other ``add_*`` methods
raise ``NotImplementedError`` naming themselves.

>>> import tempfile
>>> from eagerad.torch.utils.tensorboard import SummaryWriter
>>> with SummaryWriter(tempfile.mkdtemp()) as writer:
...     writer.add_scalar("Loss/train", 0.25, 10)
"""
import datetime
import os
import socket

import numpy as np

from ...event_file import EventFile


def _number(value):
    return float(value.item() if hasattr(value, "item") else value)


def _array(values):
    return values.detach().numpy() if hasattr(values, "detach") else np.asarray(values)


class SummaryWriter:
    """PyTorch's ``SummaryWriter(log_dir=None, comment='', purge_step=None, max_queue=10,
    flush_secs=120, filename_suffix='')``: ``log_dir`` defaults to
    ``runs/<date>_<host><comment>``.

    >>> import tempfile, os
    >>> w = SummaryWriter(tempfile.mkdtemp()); w.add_scalars("run", {"a": 1.0, "b": 2.0}, 0)
    >>> w.close(); sorted(d for d in os.listdir(w.get_logdir()) if d.startswith("run"))
    ['run_a', 'run_b']
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if log_dir is None:
            stamp = datetime.datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir, self.purge_step = str(log_dir), purge_step
        self._flush_secs, self._suffix = flush_secs, filename_suffix
        self._file = EventFile(self.log_dir, filename_suffix, flush_secs)
        self._groups = {}

    def get_logdir(self):
        """The folder this writer writes to."""
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """Log one number (a Python number or a one-element tensor)."""
        self._file.scalar(tag, _number(scalar_value), global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Log several numbers under ``main_tag``, each in a sub-folder of its own (one
        TensorBoard run per key, as PyTorch does)."""
        for key, value in tag_scalar_dict.items():
            folder = os.path.join(self.log_dir, f"{main_tag}_{key}".replace("/", "_"))
            if folder not in self._groups:
                self._groups[folder] = EventFile(folder, self._suffix, self._flush_secs)
            self._groups[folder].scalar(main_tag, _number(value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        """Log the histogram of ``values``; ``bins`` as numpy's (``'tensorflow'``: 30
        equal bins)."""
        chosen = 30 if bins == "tensorflow" else bins
        if max_bins is not None and isinstance(chosen, int):
            chosen = min(chosen, max_bins)
        self._file.histogram(tag, _array(values), chosen, global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Log a string."""
        self._file.text(tag, text_string, global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """Log an image laid out as ``dataformats`` (``CHW``, ``HWC``, ``HW``)."""
        img = _array(img_tensor)
        layout = dataformats.upper()
        if layout not in ("CHW", "HWC", "HW") or img.ndim != len(layout):
            raise ValueError(f"add_image: img_tensor of shape {img.shape} does not match "
                             f"dataformats={dataformats!r} (CHW, HWC or HW)")
        if layout == "HW":
            img = img[:, :, None]
        elif layout == "CHW":
            img = np.transpose(img, (1, 2, 0))
        self._file.image(tag, img, global_step, walltime)

    def _unsupported(self, name):
        def method(*args, **kwargs):
            raise NotImplementedError(f"SummaryWriter.{name} is not written by eagerad's event "
                                      "writer (it writes scalars, histograms, text and images)")
        return method

    def __getattr__(self, name):
        if name.startswith("add_"):
            return self._unsupported(name)
        raise AttributeError(f"'SummaryWriter' object has no attribute {name!r}")

    def flush(self):
        """Push every event written so far to the disk."""
        for log in [self._file, *self._groups.values()]:
            log.flush()

    def close(self):
        """Flush and close the files."""
        for log in [self._file, *self._groups.values()]:
            log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
