"""Loaders of the real model outputs shipped in ``skcal/datasets/data``."""

# SPDX-License-Identifier: BSD-3-Clause

from importlib import resources
from typing import NamedTuple

import numpy as np
from sklearn.utils import Bunch

CIFAR10_CLASSES = (
    "airplane",
    "automobile",
    "bird",
    "cat",
    "deer",
    "dog",
    "frog",
    "horse",
    "ship",
    "truck",
)

# The fine labels of CIFAR-100, in the order of their indices (alphabetical).
CIFAR100_CLASSES = (
    "apple",
    "aquarium_fish",
    "baby",
    "bear",
    "beaver",
    "bed",
    "bee",
    "beetle",
    "bicycle",
    "bottle",
    "bowl",
    "boy",
    "bridge",
    "bus",
    "butterfly",
    "camel",
    "can",
    "castle",
    "caterpillar",
    "cattle",
    "chair",
    "chimpanzee",
    "clock",
    "cloud",
    "cockroach",
    "couch",
    "crab",
    "crocodile",
    "cup",
    "dinosaur",
    "dolphin",
    "elephant",
    "flatfish",
    "forest",
    "fox",
    "girl",
    "hamster",
    "house",
    "kangaroo",
    "keyboard",
    "lamp",
    "lawn_mower",
    "leopard",
    "lion",
    "lizard",
    "lobster",
    "man",
    "maple_tree",
    "motorcycle",
    "mountain",
    "mouse",
    "mushroom",
    "oak_tree",
    "orange",
    "orchid",
    "otter",
    "palm_tree",
    "pear",
    "pickup_truck",
    "pine_tree",
    "plain",
    "plate",
    "poppy",
    "porcupine",
    "possum",
    "rabbit",
    "raccoon",
    "ray",
    "road",
    "rocket",
    "rose",
    "sea",
    "seal",
    "shark",
    "shrew",
    "skunk",
    "skyscraper",
    "snail",
    "snake",
    "spider",
    "squirrel",
    "streetcar",
    "sunflower",
    "sweet_pepper",
    "table",
    "tank",
    "telephone",
    "television",
    "tiger",
    "tractor",
    "train",
    "trout",
    "tulip",
    "turtle",
    "wardrobe",
    "whale",
    "willow_tree",
    "wolf",
    "woman",
    "worm",
)


class _Spec(NamedTuple):
    """A shipped dataset: its file stem, class names and licence notice."""

    name: str
    classes: tuple | None
    licence: str


SPECS = {
    spec.name: spec
    for spec in (
        _Spec("cifar10_vgg16", CIFAR10_CLASSES, "LICENSE-verified_calibration-MIT.txt"),
        _Spec("cifar10_wideresnet", CIFAR10_CLASSES, "LICENSE-netcal-Apache-2.0.txt"),
        _Spec("cifar10_lenet", CIFAR10_CLASSES, "LICENSE-netcal-Apache-2.0.txt"),
        _Spec("cifar100_wideresnet", CIFAR100_CLASSES, "LICENSE-netcal-Apache-2.0.txt"),
        _Spec(
            "cifar10_resnet110_top_label",
            CIFAR10_CLASSES,
            "LICENSE-reliability-diagrams-MIT.txt",
        ),
        _Spec(
            "imagenet_resnet34_top_label", None, "LICENSE-reliability-diagrams-MIT.txt"
        ),
    )
}


def data_file(name):
    """The traversable resource of a file of ``skcal/datasets/data``."""
    return resources.files("skcal.datasets") / "data" / name


def _description(name):
    path = resources.files("skcal.datasets") / "descr" / f"{name}.rst"
    return path.read_text(encoding="utf-8")


def _arrays(name):
    """The arrays of a shipped archive, fresh (the caller may modify them)."""
    with data_file(f"{name}.npz").open("rb") as file, np.load(file) as archive:
        return {key: archive[key] for key in archive.files}


def _pandas():
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is a test extra
        raise ImportError(
            "as_frame=True needs pandas: pip install pandas (or skcal[cli])."
        ) from exc
    return pd


def load_probabilities(name, *, as_frame=False):
    """A Bunch of a shipped softmax matrix (see the public loaders)."""
    spec = SPECS[name]
    arrays = _arrays(name)
    probabilities = arrays["probabilities"]
    target = arrays["target"].astype(np.int64)
    frame = None
    if as_frame:
        pd = _pandas()
        probabilities = pd.DataFrame(probabilities, columns=list(spec.classes))
        target = pd.Series(target, name="target")
        frame = pd.concat([probabilities, target], axis=1)
    return Bunch(
        probabilities=probabilities,
        target=target,
        target_names=np.asarray(spec.classes),
        frame=frame,
        DESCR=_description(name),
    )


def load_top_label(name, *, as_frame=False):
    """A Bunch of a shipped top-label file (see the public loaders)."""
    spec = SPECS[name]
    arrays = _arrays(name)
    columns = {
        "target": arrays["target"].astype(np.int64),
        "predicted": arrays["predicted"].astype(np.int64),
        "confidence": arrays["confidence"],
    }
    frame = None
    if as_frame:
        frame = _pandas().DataFrame(columns)
        columns = {key: frame[key] for key in columns}
    return Bunch(
        **columns,
        target_names=None if spec.classes is None else np.asarray(spec.classes),
        frame=frame,
        DESCR=_description(name),
    )
