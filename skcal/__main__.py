"""``python -m skcal``: the command line (see :mod:`skcal._cli`)."""

# SPDX-License-Identifier: BSD-3-Clause

from skcal._cli import main

if __name__ == "__main__":
    raise SystemExit(main())
