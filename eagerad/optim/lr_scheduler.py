"""PyTorch's ``torch.optim.lr_scheduler`` namespace (the schedulers live in
``eagerad.nn.lr_scheduler`` beside MindSpore's schedule Cells).

>>> from eagerad.optim.lr_scheduler import StepLR
>>> StepLR.__module__
'eagerad.nn.lr_scheduler'
"""
from ..nn.lr_scheduler import (ChainedScheduler, ConstantLR, CosineAnnealingLR,
                               CosineAnnealingWarmRestarts, ExponentialLR, LambdaLR, LinearLR,
                               LRScheduler, MultiplicativeLR, MultiStepLR, OneCycleLR, PolynomialLR,
                               ReduceLROnPlateau, SequentialLR, StepLR, _LRScheduler)

__all__ = ["ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts",
           "ExponentialLR", "LambdaLR", "LinearLR", "LRScheduler", "MultiplicativeLR",
           "MultiStepLR", "OneCycleLR", "PolynomialLR", "ReduceLROnPlateau", "SequentialLR",
           "StepLR", "_LRScheduler"]
