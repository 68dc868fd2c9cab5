"""The user guide's Spark recipe, run on a local Spark session."""

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from skcal.metrics import expected_calibration_error, smooth_ece

GUIDE = Path(__file__).parents[2] / "doc" / "user_guide" / "scale.rst"


def _recipe():
    """The code block that follows the ``.. spark-recipe`` comment."""
    text = GUIDE.read_text()
    block = text.split(".. spark-recipe", 1)[1].split(".. code-block:: python", 1)[1]
    lines = []
    for line in block.splitlines()[1:]:
        if line and not line.startswith("   "):
            break
        lines.append(line[3:])
    return "\n".join(lines)


def test_the_recipe_is_found():
    code = _recipe()
    assert re.search(r"^def spark_summary", code, flags=re.MULTILINE)
    compile(code, str(GUIDE), "exec")


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("java") is None, reason="Spark runs on the JVM: no Java runtime here"
)
# PySpark warns that it has not caught up with pandas 3; the recipe works.
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning")
def test_spark_recipe():
    pytest.importorskip("pyspark", reason="the Spark recipe needs PySpark")
    from pyspark.sql import SparkSession

    namespace = {}
    exec(compile(_recipe(), str(GUIDE), "exec"), namespace)
    rng = np.random.default_rng(0)
    p = rng.uniform(size=5000)
    y = (rng.uniform(size=5000) < p**1.2).astype(int)
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    try:
        import pandas as pd

        frame = spark.createDataFrame(pd.DataFrame({"y": y, "p": p})).repartition(4)
        summary = namespace["spark_summary"](frame, "y", "p", labels=[0, 1])
    finally:
        spark.stop()
    assert summary.n_samples_ == 5000
    np.testing.assert_allclose(
        summary.expected_calibration_error(), expected_calibration_error(y, p)
    )
    np.testing.assert_allclose(summary.smooth_ece(), smooth_ece(y, p), rtol=1e-12)
