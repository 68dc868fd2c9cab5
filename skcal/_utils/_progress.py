"""Progress of long work, on the standard error stream.

Bootstrap intervals, cross-validation and the command line's reports can
take from seconds to minutes. :class:`Progress` shows how far they are on a
terminal, as one line rewritten in place, and says nothing when the output
is not a terminal (a log, a pipe, a notebook's captured stream) unless asked.

``verbose`` follows one rule everywhere:

- ``"auto"`` (the default of every public entry point): a line on a
  terminal, once the work has lasted ``delay`` seconds; nothing otherwise;
- ``True``: from the start, on a terminal in place, elsewhere one line per
  tenth of the work;
- ``False``: nothing.
"""

# SPDX-License-Identifier: BSD-3-Clause

import sys
import time

from skcal._param_validation import StrOptions

VERBOSE_CONSTRAINT = [StrOptions({"auto"}), "boolean"]


# Seconds between two redraws of the line on a terminal.
_REDRAW = 0.1


def _is_terminal(stream):
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except ValueError:  # a closed stream
        return False


class Progress:
    """A counter of done steps, drawn on ``stream`` as the work goes.

    Parameters
    ----------
    total : int
        The number of steps.
    description : str
        What is being done, e.g. ``"bootstrap: 1000 resamples of 569 rows"``.
    verbose : "auto" or bool, default="auto"
        See the module's docstring.
    stream : file-like, default=None
        Where to write; the standard error stream by default.
    delay : float, default=1.0
        With ``verbose="auto"``, seconds of work before the line appears
        (short work shows nothing).

    Examples
    --------
    >>> import io
    >>> stream = io.StringIO()
    >>> with Progress(4, "resamples", verbose=True, stream=stream) as progress:
    ...     for _ in range(4):
    ...         progress.update()
    >>> print(stream.getvalue().strip().splitlines()[-1])
    resamples: 4/4 (100%) in 0s
    """

    def __init__(self, total, description, verbose="auto", *, stream=None, delay=1.0):
        self.total = max(int(total), 1)
        self.description = description
        self.stream = sys.stderr if stream is None else stream
        self.terminal = _is_terminal(self.stream)
        self.enabled = verbose is True or (verbose == "auto" and self.terminal)
        self.delay = 0.0 if verbose is True else delay
        self.done = 0
        self.start = time.perf_counter()
        self._last_draw = -1.0
        self._last_tenth = 0
        self._drawn = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def update(self, steps=1):
        """Count ``steps`` more steps done, and redraw when it is time."""
        self.done = min(self.done + steps, self.total)
        if not self.enabled:
            return
        now = time.perf_counter()
        elapsed = now - self.start
        if elapsed < self.delay:
            return
        if self.terminal:
            if now - self._last_draw >= _REDRAW or self.done == self.total:
                self._write("\r" + self._line(elapsed) + "\033[K")
                self._last_draw = now
                self._drawn = True
            return
        tenth = (10 * self.done) // self.total
        if tenth > self._last_tenth:
            self._last_tenth = tenth
            self._write(self._line(elapsed) + "\n")

    def close(self):
        """Erase the line on a terminal (the result follows it)."""
        if self._drawn:
            self._write("\r\033[K")
            self._drawn = False

    def _line(self, elapsed):
        percent = 100 * self.done // self.total
        line = (
            f"{self.description}: {self.done}/{self.total} ({percent}%) "
            f"in {elapsed:.0f}s"
        )
        if 0 < self.done < self.total:
            remaining = elapsed * (self.total - self.done) / self.done
            line += f", about {remaining:.0f}s left"
        return line

    def _write(self, text):
        self.stream.write(text)
        self.stream.flush()
