"""Public loaders of real model outputs: softmax matrices and top-label logs."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from sklearn.utils import Bunch

from skcal._docstrings import fill_doc
from skcal._param_validation import validate_params
from skcal.datasets._loaders import load_probabilities, load_top_label

_AS_FRAME = {"as_frame": ["boolean"]}


@validate_params(_AS_FRAME, prefer_skip_nested_validation=True)
@fill_doc
def load_cifar10_vgg16(*, as_frame: bool = False) -> Bunch:
    """Load the softmax outputs of a VGG-16 on the CIFAR-10 test set.

    10 classes, 10000 test images; top-1 accuracy 0.9359. The outputs are
    Kumar, Liang and Ma's (verified_calibration, MIT), shipped with skcal;
    ``DESCR`` gives their provenance and licence.

    Read more in the :ref:`User Guide <datasets>`.

    Parameters
    ----------
    %(as_frame)s

    Returns
    -------
    %(softmax_bunch)s

    Examples
    --------
    >>> from skcal.datasets import load_cifar10_vgg16
    >>> from skcal.metrics import expected_calibration_error
    >>> data = load_cifar10_vgg16()
    >>> data.probabilities.shape
    (10000, 10)
    >>> round(expected_calibration_error(data.target, data.probabilities), 4)
    0.0398
    """
    return load_probabilities("cifar10_vgg16", as_frame=as_frame)


@validate_params(_AS_FRAME, prefer_skip_nested_validation=True)
@fill_doc
def load_cifar10_wideresnet(*, as_frame: bool = False) -> Bunch:
    """Load the softmax outputs of a WideResNet-16-4 on the CIFAR-10 test set.

    10 classes, 10000 test images; top-1 accuracy 0.9109. The outputs are
    netcal's (Apache-2.0), shipped with skcal; ``DESCR`` gives their
    provenance and licence.

    Read more in the :ref:`User Guide <datasets>`.

    Parameters
    ----------
    %(as_frame)s

    Returns
    -------
    %(softmax_bunch)s

    Examples
    --------
    >>> from skcal.datasets import load_cifar10_wideresnet
    >>> from skcal.metrics import expected_calibration_error
    >>> data = load_cifar10_wideresnet()
    >>> data.probabilities.shape
    (10000, 10)
    >>> round(expected_calibration_error(data.target, data.probabilities), 4)
    0.0537
    """
    return load_probabilities("cifar10_wideresnet", as_frame=as_frame)


@validate_params(_AS_FRAME, prefer_skip_nested_validation=True)
@fill_doc
def load_cifar10_lenet(*, as_frame: bool = False) -> Bunch:
    """Load the softmax outputs of a LeNet-5 on the CIFAR-10 test set.

    A badly over-confident network: 10 classes, 10000 test images; top-1
    accuracy 0.5308, mean confidence 0.6387. The outputs are netcal's
    (Apache-2.0), shipped with skcal; ``DESCR`` gives their provenance and
    licence.

    Read more in the :ref:`User Guide <datasets>`.

    Parameters
    ----------
    %(as_frame)s

    Returns
    -------
    %(softmax_bunch)s

    Examples
    --------
    >>> from skcal.datasets import load_cifar10_lenet
    >>> from skcal.metrics import expected_calibration_error
    >>> data = load_cifar10_lenet()
    >>> data.probabilities.shape
    (10000, 10)
    >>> round(expected_calibration_error(data.target, data.probabilities), 4)
    0.1079
    """
    return load_probabilities("cifar10_lenet", as_frame=as_frame)


@validate_params(_AS_FRAME, prefer_skip_nested_validation=True)
@fill_doc
def load_cifar100_wideresnet(*, as_frame: bool = False) -> Bunch:
    """Load the softmax outputs of a WideResNet-16-4 on the CIFAR-100 test set.

    100 classes, 10000 test images; top-1 accuracy 0.7543. The outputs are
    netcal's (Apache-2.0), shipped with skcal; ``DESCR`` gives their
    provenance and licence.

    Read more in the :ref:`User Guide <datasets>`.

    Parameters
    ----------
    %(as_frame)s

    Returns
    -------
    %(softmax_bunch)s

    Examples
    --------
    >>> from skcal.datasets import load_cifar100_wideresnet
    >>> from skcal.metrics import expected_calibration_error
    >>> data = load_cifar100_wideresnet()
    >>> data.probabilities.shape
    (10000, 100)
    >>> round(expected_calibration_error(data.target, data.probabilities), 4)
    0.0581
    """
    return load_probabilities("cifar100_wideresnet", as_frame=as_frame)


@validate_params(_AS_FRAME, prefer_skip_nested_validation=True)
@fill_doc
def load_cifar10_resnet110_top_label(*, as_frame: bool = False) -> Bunch:
    """Load the top-label confidences of a ResNet-110 on the CIFAR-10 test set.

    10000 samples; top-1 accuracy 0.9356. Only the predicted class and its
    probability were recorded, as in many logs of deployed models: enough
    for top-label measures (``y_true = target == predicted``, ``y_prob =
    confidence``), not for classwise ones. ``DESCR`` gives the provenance
    and licence (MIT, hollance/reliability-diagrams).

    Read more in the :ref:`User Guide <datasets>`.

    Parameters
    ----------
    %(as_frame)s

    Returns
    -------
    %(top_label_bunch)s

    Examples
    --------
    >>> from skcal.datasets import load_cifar10_resnet110_top_label
    >>> from skcal.metrics import expected_calibration_error
    >>> data = load_cifar10_resnet110_top_label()
    >>> correct = data.target == data.predicted
    >>> round(expected_calibration_error(correct, data.confidence), 4)
    0.0475
    """
    return load_top_label("cifar10_resnet110_top_label", as_frame=as_frame)


@validate_params(_AS_FRAME, prefer_skip_nested_validation=True)
@fill_doc
def load_imagenet_resnet34_top_label(*, as_frame: bool = False) -> Bunch:
    """Load the top-label confidences of a ResNet-34 on the ImageNet validation set.

    50000 samples; top-1 accuracy 0.7511. Only the predicted class and its
    probability were recorded, as in many logs of deployed models: enough
    for top-label measures (``y_true = target == predicted``, ``y_prob =
    confidence``), not for classwise ones. ``DESCR`` gives the provenance
    and licence (MIT, hollance/reliability-diagrams).

    Read more in the :ref:`User Guide <datasets>`.

    Parameters
    ----------
    %(as_frame)s

    Returns
    -------
    %(top_label_bunch)s

    Examples
    --------
    >>> from skcal.datasets import load_imagenet_resnet34_top_label
    >>> from skcal.metrics import expected_calibration_error
    >>> data = load_imagenet_resnet34_top_label()
    >>> correct = data.target == data.predicted
    >>> round(expected_calibration_error(correct, data.confidence), 4)
    0.078
    """
    return load_top_label("imagenet_resnet34_top_label", as_frame=as_frame)
