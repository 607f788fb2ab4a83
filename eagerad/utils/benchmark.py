"""``torch.utils.benchmark.Timer``'s common use: time a statement, report the mean per run.

>>> m = Timer("sum(range(10))").timeit(100)
>>> len(m.times), m.mean > 0
(1, True)
"""
import statistics
import timeit as _timeit


class Measurement:
    """Per-run times of one ``Timer.timeit`` (seconds): ``times``, ``mean``, ``median``."""

    def __init__(self, stmt, label, times, number):
        self.stmt, self.label, self.times, self.number = stmt, label, times, number

    @property
    def mean(self):
        return statistics.fmean(self.times)

    @property
    def median(self):
        return statistics.median(self.times)

    def __repr__(self):
        unit, scale = ("ms", 1e3) if self.mean >= 1e-3 else ("us", 1e6)
        head = f"{self.label}\n" if self.label else ""
        return (f"<eagerad.utils.benchmark.Measurement object at {id(self):#x}>\n{head}"
                f"{self.stmt}\n  {self.median * scale:.2f} {unit}\n  1 measurement, "
                f"{self.number} runs , 1 thread")


class Timer:
    """Time ``stmt`` (a string run with ``globals``) after ``setup``; ``timeit(number)``
    runs it ``number`` times and returns a ``Measurement`` of the time per run.

    >>> Timer("x * 2", globals={"x": 3}).timeit(10).times[0] >= 0
    True
    """

    def __init__(self, stmt="pass", setup="pass", globals=None, label=None, num_threads=1):
        self.stmt, self.label = stmt, label
        self._timer = _timeit.Timer(stmt, setup, globals=dict(globals or {}))

    def timeit(self, number=1000000):
        total = self._timer.timeit(number)
        return Measurement(self.stmt, self.label, [total / number], number)
