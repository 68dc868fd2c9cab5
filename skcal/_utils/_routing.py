"""Metadata routing of the cross-fitting meta-estimators.

:class:`~skcal.calibration.RecalibratedClassifierCV` and
:class:`~skcal.regression.RecalibratedRegressorCV` route the parameters of
``fit`` the same way: to the wrapped model's ``fit`` and the splitter's
``split`` under metadata routing, and otherwise ``sample_weight`` to the
model when its ``fit`` takes it.
"""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

from sklearn import get_config
from sklearn.model_selection import check_cv
from sklearn.utils import get_tags
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.validation import has_fit_parameter


def routed_fit_params(owner, sample_weight, fit_params, role):
    """Fit parameters of ``owner.estimator`` and split parameters of the splitter.

    Parameters
    ----------
    owner : estimator
        The meta-estimator, with ``estimator`` and ``cv`` parameters and the
        routing of :class:`CrossFitMixin`.
    sample_weight : ndarray or None
        The validated weights.
    fit_params : dict
        The other parameters given to ``owner.fit``.
    role : str
        What the wrapped model is ("classifier", "regressor"), for the
        warning.

    Returns
    -------
    estimator_params, split_params : dict
    """
    if get_config().get("enable_metadata_routing", False):
        routed = process_routing(
            owner, "fit", sample_weight=sample_weight, **fit_params
        )
        return dict(routed.estimator.fit), dict(routed.splitter.split)
    params = dict(fit_params)
    if sample_weight is not None:
        if has_fit_parameter(owner.estimator, "sample_weight"):
            params["sample_weight"] = sample_weight
        else:
            warnings.warn(
                f"sample_weight is not passed to {type(owner.estimator).__name__}"
                f", whose fit has no sample_weight parameter: the {role}s "
                "are fitted unweighted and only the recalibrators use the "
                "weights, so the model may not be the weighted one. Pass the "
                f"weights under the name the {role}'s fit accepts (such as "
                "<step>__sample_weight for a Pipeline), or enable metadata "
                "routing to choose where they go.",
                UserWarning,
                stacklevel=4,  # the user's fit, past the caller and fit_context
            )
    return params, {}


class CrossFitMixin:
    """Routing and input tags of a meta-estimator that fits ``estimator`` on folds.

    ``fit``'s metadata go to the estimator's ``fit`` and the splitter's
    ``split``; sparse input is accepted when the estimator accepts it.
    """

    def get_metadata_routing(self):
        """Where the metadata of ``fit`` go: the wrapped model and the splitter.

        Returns
        -------
        routing : :class:`~sklearn.utils.metadata_routing.MetadataRouter`
            The routing information.
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                estimator=self.estimator,
                method_mapping=MethodMapping().add(caller="fit", callee="fit"),
            )
            .add(
                splitter=check_cv(self.cv),
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = get_tags(self.estimator).input_tags.sparse
        return tags
