"""Real model outputs shipped with skcal, loaded like scikit-learn's datasets.

Softmax matrices and top-label logs of published image classifiers, with
their true labels. Each loader returns a :class:`~sklearn.utils.Bunch`
whose ``DESCR`` names the upstream source and its licence; the licence
notices are shipped beside the data, in ``skcal/datasets/data``.
"""

# SPDX-License-Identifier: BSD-3-Clause

from skcal.datasets._networks import (
    load_cifar10_lenet,
    load_cifar10_resnet110_top_label,
    load_cifar10_vgg16,
    load_cifar10_wideresnet,
    load_cifar100_wideresnet,
    load_imagenet_resnet34_top_label,
)

__all__ = [
    "load_cifar10_lenet",
    "load_cifar10_resnet110_top_label",
    "load_cifar10_vgg16",
    "load_cifar10_wideresnet",
    "load_cifar100_wideresnet",
    "load_imagenet_resnet34_top_label",
]
