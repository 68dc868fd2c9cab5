"""Type aliases of the public API's hints.

The hints say what a parameter accepts, as the parameter constraints
(:mod:`skcal._param_validation`) check it at run time; numpydoc docstrings
say it in words.
"""

# SPDX-License-Identifier: BSD-3-Clause

from collections.abc import Hashable, Iterable, Iterator
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "ArrayLike",
    "CVLike",
    "Label",
    "RandomStateLike",
    "Splitter",
]


class Splitter(Protocol):
    """A cross-validation splitter: ``split`` and ``get_n_splits``."""

    def split(self, *args: Any, **kwargs: Any) -> Iterator[Any]: ...

    def get_n_splits(self, *args: Any, **kwargs: Any) -> int: ...


# A class label: any hashable value (int, str, bool, ...).
Label = Hashable
# What ``random_state`` accepts, as in scikit-learn.
RandomStateLike = int | np.random.RandomState | None
# What ``cv`` accepts: a number of folds, a splitter or an iterable of
# (train, test) index pairs.
CVLike = int | Splitter | Iterable[Any] | None
