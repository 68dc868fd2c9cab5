"""Hyper-parameter validation: declarative constraints and the decorators.

Hyper-parameters (``n_bins``, ``strategy``, ``cv``, ...) are checked against
constraints with the vocabulary and messages of scikit-learn's parameter
validation (``Interval``, ``StrOptions``, ``"array-like"``, ...), written here
on public APIs only, so that skcal does not break when scikit-learn
reorganises its private modules. Data (``y_true``, ``y_prob``, ...) is the
business of :mod:`skcal._validation`.
"""

# SPDX-License-Identifier: BSD-3-Clause

import contextvars
import functools
import inspect
import math
from numbers import Integral, Real

import numpy as np

__all__ = [
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "Options",
    "StrOptions",
    "fit_context",
    "parameter_constraints",
    "validate_parameter_constraints",
    "validate_params",
]


class InvalidParameterError(ValueError, TypeError):
    """Raised when a hyper-parameter does not satisfy its constraints.

    It inherits from both ``ValueError`` and ``TypeError`` so that callers can
    catch either, as with scikit-learn's error of the same name.
    """


class _Constraint:
    """Base of all constraints; subclasses define ``is_satisfied_by``, ``__str__``."""


class _InstancesOf(_Constraint):
    def __init__(self, kind):
        self.kind = kind

    def is_satisfied_by(self, value):
        return isinstance(value, self.kind)

    def __str__(self):
        if self.kind is bool:
            return "an instance of 'bool'"
        return f"an instance of {self.kind.__qualname__!r}"


class _NoneConstraint(_Constraint):
    def is_satisfied_by(self, value):
        return value is None

    def __str__(self):
        return "None"


class _ArrayLike(_Constraint):
    def is_satisfied_by(self, value):
        return (
            hasattr(value, "__len__")
            or hasattr(value, "shape")
            or hasattr(value, "__array__")
        ) and not isinstance(value, (str, bytes))

    def __str__(self):
        return "an array-like"


class _Boolean(_Constraint):
    def is_satisfied_by(self, value):
        return isinstance(value, (bool, np.bool_))

    def __str__(self):
        return "an instance of 'bool'"


class _RandomState(_Constraint):
    def is_satisfied_by(self, value):
        return (
            value is None
            or (isinstance(value, Integral) and not isinstance(value, bool))
            or isinstance(value, np.random.RandomState)
        )

    def __str__(self):
        return "an int, a numpy RandomState or None"


class _Callable(_Constraint):
    def is_satisfied_by(self, value):
        return callable(value)

    def __str__(self):
        return "a callable"


class _AnyHashable(_Constraint):
    def is_satisfied_by(self, value):
        try:
            hash(value)
        except TypeError:
            return False
        return True

    def __str__(self):
        return "a hashable label"


class _CVObject(_Constraint):
    """What ``check_cv`` accepts: None, an int >= 2, a splitter or splits."""

    def is_satisfied_by(self, value):
        if value is None:
            return True
        if isinstance(value, Integral) and not isinstance(value, bool):
            return value >= 2
        if callable(getattr(value, "split", None)) and callable(
            getattr(value, "get_n_splits", None)
        ):
            return True
        return hasattr(value, "__iter__") and not isinstance(value, (str, bytes))

    def __str__(self):
        return (
            "an int in the range [2, inf), an object implementing 'split' and "
            "'get_n_splits', an iterable or None"
        )


class Interval(_Constraint):
    """A numeric interval constraint.

    Parameters
    ----------
    type : {numbers.Integral, numbers.Real}
        The numeric type; booleans never satisfy it.
    left, right : float or None
        The bounds; ``None`` means unbounded.
    closed : {"left", "right", "both", "neither"}
        Which bounds belong to the interval.
    """

    def __init__(self, type, left, right, *, closed):
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(
                f"closed must be left, right, both or neither, got {closed}"
            )
        self.type = type
        self.left = left
        self.right = right
        self.closed = closed

    def is_satisfied_by(self, value):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, self.type):
            return False
        if isinstance(value, Real) and math.isnan(value):
            return False
        if self.left is not None:
            lo_ok = (
                value >= self.left
                if self.closed in ("left", "both")
                else value > self.left
            )
            if not lo_ok:
                return False
        if self.right is not None:
            hi_ok = (
                value <= self.right
                if self.closed in ("right", "both")
                else value < self.right
            )
            if not hi_ok:
                return False
        return True

    def __str__(self):
        kind = "an int" if self.type is Integral else "a float"
        lb = "[" if self.closed in ("left", "both") else "("
        rb = "]" if self.closed in ("right", "both") else ")"
        left = "-inf" if self.left is None else self.left
        right = "inf" if self.right is None else self.right
        return f"{kind} in the range {lb}{left}, {right}{rb}"


class Options(_Constraint):
    """A finite set of allowed values of a given type."""

    def __init__(self, type, options):
        self.type = type
        self.options = frozenset(options)

    def is_satisfied_by(self, value):
        return isinstance(value, self.type) and value in self.options

    def __str__(self):
        shown = ", ".join(repr(o) for o in sorted(self.options, key=repr))
        return f"a {self.type.__name__} among {{{shown}}}"


class StrOptions(Options):
    """A finite set of allowed strings."""

    def __init__(self, options):
        super().__init__(str, options)

    def __str__(self):
        shown = ", ".join(repr(o) for o in sorted(self.options))
        return f"a str among {{{shown}}}"


class HasMethods(_Constraint):
    """Objects that expose all the given methods."""

    def __init__(self, methods):
        self.methods = [methods] if isinstance(methods, str) else list(methods)

    def is_satisfied_by(self, value):
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def __str__(self):
        names = ", ".join(repr(m) for m in self.methods)
        return f"an object implementing {names}"


def _make_constraint(constraint):
    if isinstance(constraint, _Constraint):
        return constraint
    if constraint is None:
        return _NoneConstraint()
    if isinstance(constraint, str):
        named = {
            "array-like": _ArrayLike,
            "boolean": _Boolean,
            "random_state": _RandomState,
            "hashable": _AnyHashable,
            "cv_object": _CVObject,
        }
        if constraint not in named:
            raise ValueError(f"Unknown constraint {constraint!r}")
        return named[constraint]()
    if constraint is callable:
        return _Callable()
    if isinstance(constraint, type):
        return _InstancesOf(constraint)
    raise ValueError(f"Unknown constraint {constraint!r}")


def validate_parameter_constraints(constraints, params, caller_name):
    """Check ``params`` against ``constraints`` and raise a readable error.

    Parameters
    ----------
    constraints : dict
        Maps a parameter name to a list of constraints, any of which may be
        satisfied. Names missing from ``constraints`` are not checked.
    params : dict
        The parameter values.
    caller_name : str
        The function or class named in the error message.

    Raises
    ------
    InvalidParameterError
        When a value satisfies none of its constraints.
    """
    for name, value in params.items():
        if name not in constraints:
            continue
        options = [_make_constraint(c) for c in constraints[name]]
        if any(c.is_satisfied_by(value) for c in options):
            continue
        shown = [str(c) for c in options]
        if len(shown) == 1:
            text = shown[0]
        else:
            text = f"{', '.join(shown[:-1])} or {shown[-1]}"
        raise InvalidParameterError(
            f"The {name!r} parameter of {caller_name} must be {text}. "
            f"Got {value!r} instead."
        )


_SKIP_VALIDATION = contextvars.ContextVar("skcal_skip_validation", default=False)


def validate_params(parameter_constraints, *, prefer_skip_nested_validation):
    """Decorate a public function so that its parameters are validated.

    Parameters
    ----------
    parameter_constraints : dict
        One entry per parameter of the decorated function.
    prefer_skip_nested_validation : bool
        If True, public functions called by the decorated one skip their own
        parameter validation (the outer call already checked everything).
    """

    def decorator(func):
        signature = inspect.signature(func)
        # The class of a classmethod (and an instance) is no parameter to check.
        names = set(signature.parameters) - {"cls", "self"}
        missing = names ^ set(parameter_constraints)
        if missing:
            raise ValueError(
                f"Constraints of {func.__qualname__} do not match its signature: "
                f"{sorted(missing)}"
            )

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if _SKIP_VALIDATION.get():
                return func(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            validate_parameter_constraints(
                parameter_constraints, bound.arguments, caller_name=func.__qualname__
            )
            token = _SKIP_VALIDATION.set(prefer_skip_nested_validation)
            try:
                return func(*args, **kwargs)
            finally:
                _SKIP_VALIDATION.reset(token)

        wrapper._skcal_parameter_constraints = parameter_constraints
        return wrapper

    return decorator


def fit_context(*, prefer_skip_nested_validation):
    """Decorate an estimator's ``fit`` so that its hyper-parameters are validated.

    The estimator's ``_parameter_constraints`` are checked against
    ``get_params(deep=False)`` when ``fit`` starts, unless an enclosing
    validated call asked to skip nested validation. This is the estimator
    counterpart of :func:`validate_params`.

    Parameters
    ----------
    prefer_skip_nested_validation : bool
        If True, estimators and functions called inside ``fit`` skip their own
        parameter validation. Use False when a parameter holds a user's
        estimator, whose own parameters have not been checked.
    """

    def decorator(fit_method):
        @functools.wraps(fit_method)
        def wrapper(estimator, *args, **kwargs):
            if not _SKIP_VALIDATION.get():
                validate_parameter_constraints(
                    estimator._parameter_constraints,
                    estimator.get_params(deep=False),
                    caller_name=type(estimator).__name__,
                )
            token = _SKIP_VALIDATION.set(prefer_skip_nested_validation)
            try:
                return fit_method(estimator, *args, **kwargs)
            finally:
                _SKIP_VALIDATION.reset(token)

        return wrapper

    return decorator


def parameter_constraints(function):
    """The constraints a :func:`validate_params` decorator gave a function.

    Parameters
    ----------
    function : callable
        A function (or the function of a classmethod) decorated by
        :func:`validate_params`.

    Returns
    -------
    constraints : dict
        ``{parameter: list of constraints}``; a copy.
    """
    function = getattr(function, "__func__", function)
    return dict(function._skcal_parameter_constraints)
