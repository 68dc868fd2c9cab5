"""Style keywords of the diagrams: defaults merged with the user's dicts."""

# SPDX-License-Identifier: BSD-3-Clause

# Matplotlib's short aliases, and the plural names of collections, mapped to
# the property names the diagrams use.
_ALIASES = {
    "c": "color",
    "colors": "color",
    "ls": "linestyle",
    "linestyles": "linestyle",
    "lw": "linewidth",
    "linewidths": "linewidth",
    "ec": "edgecolor",
    "edgecolors": "edgecolor",
    "fc": "facecolor",
    "facecolors": "facecolor",
    "aa": "antialiased",
    "antialiaseds": "antialiased",
    "ms": "markersize",
    "mec": "markeredgecolor",
    "mew": "markeredgewidth",
    "mfc": "markerfacecolor",
    "mfcalt": "markerfacecoloralt",
    "ds": "drawstyle",
}


def merge_style_kwargs(defaults, user, *, name="kwargs"):
    """Merge a dict of user style keywords into the defaults, resolving aliases.

    Matplotlib rejects a call that gives both a property and its alias
    (``color`` and ``c``). Every key of both dicts is mapped to its full
    name first, so that ``{"c": "red"}`` overrides a default ``color``; a
    user dict that names one property twice is an error. This is the one
    place where the diagrams merge styles (like scikit-learn's
    ``_validate_style_kwargs``).

    Parameters
    ----------
    defaults : dict
        The diagram's default keywords.
    user : dict or None
        The user's keywords; None means none.
    name : str, default="kwargs"
        The parameter's name, for error messages.

    Returns
    -------
    style : dict
        A new dict: the defaults updated with the user's keywords, every key
        under its full name.
    """
    if user is None:
        user = {}
    if not isinstance(user, dict):
        raise TypeError(
            f"{name} must be a dict of matplotlib keywords or None, got "
            f"{type(user).__name__}."
        )
    seen = {}
    for key in user:
        full = _ALIASES.get(key, key)
        if full in seen:
            raise TypeError(
                f"{name} gives both {seen[full]!r} and {key!r}, which are aliases "
                f"of {full!r}; keep one."
            )
        seen[full] = key
    style = {_ALIASES.get(key, key): value for key, value in defaults.items()}
    style.update((_ALIASES.get(key, key), value) for key, value in user.items())
    return style
