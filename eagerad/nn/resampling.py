"""PyTorch's shape-changing layers ``Upsample``, ``Unflatten``, ``PixelShuffle``,
``PixelUnshuffle`` and the two-input ``Bilinear`` layer.

>>> import eagerad
>>> from eagerad.nn.resampling import PixelShuffle
>>> PixelShuffle(2)(eagerad.ones(1, 8, 3, 3)).shape
(1, 2, 6, 6)
"""
import math

from .. import ops
from ..ops.resize import interpolate
from ..tensor import Parameter
from .cell import Cell
from .init import uniform


class Upsample(Cell):
    """PyTorch's ``Upsample(size=None, scale_factor=None, mode='nearest',
    align_corners=None)``: ``F.interpolate`` as a layer.

    >>> Upsample(scale_factor=2)(eagerad.ones(1, 1, 2, 2)).shape
    (1, 1, 4, 4)
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        if (size is None) == (scale_factor is None):
            raise ValueError("Upsample: give exactly one of size= and scale_factor=")
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, input):
        """``input`` resized.

        >>> Upsample(size=3).construct(eagerad.ones(1, 1, 2)).shape
        (1, 1, 3)
        """
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           self.recompute_scale_factor)


class Unflatten(Cell):
    """PyTorch's ``Unflatten(dim, unflattened_size)``: axis ``dim`` split into the
    shape ``unflattened_size`` (one entry may be -1).

    >>> Unflatten(1, (2, 3))(eagerad.ones(4, 6)).shape
    (4, 2, 3)
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def construct(self, input):
        """``input`` with axis ``dim`` unflattened.

        >>> Unflatten(-1, (2, -1)).construct(eagerad.ones(4)).shape
        (2, 2)
        """
        dim = self.dim % input.ndim if input.ndim else self.dim
        shape = input.shape[:dim] + self.unflattened_size + input.shape[dim + 1:]
        known = math.prod(s for s in self.unflattened_size if s != -1)
        if (-1 not in self.unflattened_size and known != input.shape[dim]) or \
                (known and input.shape[dim] % known):
            raise ValueError(f"Unflatten: size {input.shape[dim]} of axis {self.dim} of the "
                             f"input {input.shape} cannot be split into {self.unflattened_size}")
        return input.reshape(shape)


class PixelShuffle(Cell):
    """PyTorch's ``PixelShuffle(upscale_factor)``: (N, C*r*r, H, W) -> (N, C, H*r, W*r).

    >>> PixelShuffle(2)(eagerad.arange(4.0).reshape(1, 4, 1, 1)).reshape(-1).tolist()
    [0.0, 1.0, 2.0, 3.0]
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def construct(self, input):
        """The channels of ``input`` spread over space.

        >>> PixelShuffle(1).construct(eagerad.ones(1, 1, 2, 2)).shape
        (1, 1, 2, 2)
        """
        r = self.upscale_factor
        *lead, c, h, w = input.shape
        if c % (r * r):
            raise ValueError(f"PixelShuffle: channels {c} of input {input.shape} must be "
                             f"divisible by upscale_factor**2 = {r * r}")
        x = input.reshape(-1, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3)
        return x.reshape(*lead, c // (r * r), h * r, w * r)


class PixelUnshuffle(Cell):
    """PyTorch's ``PixelUnshuffle(downscale_factor)``: inverse of ``PixelShuffle``.

    >>> PixelUnshuffle(2)(eagerad.ones(1, 1, 4, 4)).shape
    (1, 4, 2, 2)
    """

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def construct(self, input):
        """Space blocks of ``input`` moved into channels.

        >>> PixelUnshuffle(1).construct(eagerad.ones(1, 1, 2, 2)).shape
        (1, 1, 2, 2)
        """
        r = self.downscale_factor
        *lead, c, h, w = input.shape
        if h % r or w % r:
            raise ValueError(f"PixelUnshuffle: height and width of input {input.shape} must "
                             f"be divisible by downscale_factor={r}")
        x = input.reshape(-1, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4)
        return x.reshape(*lead, c * r * r, h // r, w // r)


class Bilinear(Cell):
    """PyTorch's ``Bilinear(in1_features, in2_features, out_features, bias=True)``:
    ``y_k = x1 . W_k . x2 + b_k``, ``W`` (out, in1, in2) and ``b`` U(-1/sqrt(in1), ...).

    >>> Bilinear(2, 3, 4)(eagerad.ones(5, 2), eagerad.ones(5, 3)).shape
    (5, 4)
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        kw = {} if dtype is None else {"dtype": dtype}
        bound = 1.0 / math.sqrt(in1_features)
        self.weight = Parameter(uniform((out_features, in1_features, in2_features), bound, **kw),
                                name="weight")
        if bias:
            self.bias = Parameter(uniform((out_features,), bound, **kw), name="bias")
        else:
            object.__setattr__(self, "bias", None)

    def construct(self, input1, input2):
        """The bilinear form of ``input1`` and ``input2`` (matching leading axes).

        >>> Bilinear(1, 1, 1, bias=False).construct(eagerad.ones(1), eagerad.ones(1)).shape
        (1,)
        """
        if input1.shape[-1] != self.in1_features or input2.shape[-1] != self.in2_features:
            raise ValueError(f"Bilinear: inputs must end in {self.in1_features} and "
                             f"{self.in2_features} features, got {input1.shape} and {input2.shape}")
        out = ops.einsum("...i,oij,...j->...o", input1, self.weight, input2)
        return out if self.bias is None else out + self.bias
