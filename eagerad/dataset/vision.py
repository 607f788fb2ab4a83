"""``mindspore.dataset.vision``: image transforms on numpy HWC arrays.

Each transform is a callable object, used in ``dataset.map(operations=[...])`` or on one
image directly; results match MindSpore 2.x (whose CPU kernels are OpenCV's): ``Rescale``
and ``Normalize`` give float32, ``Resize`` keeps the dtype and follows OpenCV's
half-pixel bilinear rule or its nearest rule (uint8 bilinear uses OpenCV's 11-bit
fixed-point weights: equal to MindSpore inside the image, at most one grey level apart on
rows clamped at the border), random transforms draw from ``dataset.config``'s generator.

>>> import numpy as np
>>> img = np.full((2, 2, 3), 255, np.uint8)
>>> out = Rescale(1.0 / 255.0, 0.0)(img); out.dtype, float(out.max())
(dtype('float32'), 1.0)
>>> HWC2CHW()(out).shape
(3, 2, 2)
"""
import enum
import functools
import numbers

import numpy as np

from . import config


class Inter(enum.IntEnum):
    """Interpolation modes (``Inter.BILINEAR`` is MindSpore's default for ``Resize``).

    >>> Inter.LINEAR is Inter.BILINEAR
    True
    """
    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = 2
    LINEAR = 2
    BICUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(str, enum.Enum):
    """How ``RandomCrop`` pads: a constant, the edge value, or a mirror image.

    >>> Border.EDGE.value
    'edge'
    """
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


def _image(img, where, ndims=(2, 3)):
    array = img.numpy() if hasattr(img, "numpy") else np.asarray(img)
    if array.ndim not in ndims:
        raise ValueError(f"{where}: expected an image of {' or '.join(map(str, ndims))} "
                         f"dimensions (HW or HWC), got shape {array.shape}")
    return array


def _pair(size, what):
    """(height, width) from an int or a pair of positive ints."""
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        pair = (int(size), int(size))
    elif isinstance(size, (tuple, list)) and len(size) == 2:
        pair = tuple(int(s) for s in size)
    else:
        raise TypeError(f"{what} must be an int or a (height, width) pair, got {size!r}")
    if min(pair) < 1:
        raise ValueError(f"{what} must be positive, got {size!r}")
    return pair


class Rescale:
    """``image * rescale + shift`` to float32, rounded once as MindSpore does
    (``Rescale(1 / 255, 0)`` maps bytes to [0, 1]).

    >>> Rescale(0.5, 1.0)(np.array([[2]], np.uint8))
    array([[2.]], dtype=float32)
    """

    def __init__(self, rescale, shift):
        self.rescale, self.shift = float(rescale), float(shift)

    def __call__(self, img):
        # MindSpore rounds once, as a fused multiply-add of float32 operands: the product of
        # two float32 numbers is exact in float64, so float64 then one rounding to float32
        array = np.asarray(img).astype(np.float32).astype(np.float64)
        rescale, shift = np.float64(np.float32(self.rescale)), np.float64(np.float32(self.shift))
        return (array * rescale + shift).astype(np.float32)


class Normalize:
    """``(image - mean) / std`` per channel, in float32 (channels last unless ``is_hwc=False``).

    >>> Normalize([1.0, 2.0], [2.0, 4.0])(np.array([[[3, 10]]], np.uint8))
    array([[[1., 2.]]], dtype=float32)
    """

    def __init__(self, mean, std, is_hwc=True):
        self.mean = np.asarray(mean, np.float32)
        self.std = np.asarray(std, np.float32)
        if self.mean.shape != self.std.shape or self.mean.ndim != 1:
            raise ValueError(f"Normalize: mean and std must be lists of one length, got "
                             f"{list(self.mean)} and {list(self.std)}")
        if np.any(self.std <= 0):
            raise ValueError(f"Normalize: std must be positive, got {list(self.std)}")
        self.is_hwc = is_hwc

    def __call__(self, img):
        array = _image(img, "Normalize").astype(np.float32)
        channels = array.shape[-1] if self.is_hwc else array.shape[0]
        if array.ndim == 2:
            channels = 1
        if len(self.mean) not in (1, channels):
            raise ValueError(f"Normalize: {len(self.mean)} means for an image with "
                             f"{channels} channels (shape {array.shape})")
        shape = (-1,) if self.is_hwc or array.ndim == 2 else (-1, 1, 1)
        return ((array - self.mean.reshape(shape)) / self.std.reshape(shape)).astype(np.float32)


class HWC2CHW:
    """Channels last -> channels first (a 2-D image gets one channel).

    >>> HWC2CHW()(np.zeros((4, 5, 3))).shape
    (3, 4, 5)
    """

    def __call__(self, img):
        array = _image(img, "HWC2CHW")
        return array[None] if array.ndim == 2 else np.ascontiguousarray(array.transpose(2, 0, 1))


class ToTensor:
    """HWC image -> CHW float32 array divided by 255 (PIL-style bytes to [0, 1]).

    >>> ToTensor()(np.full((1, 1, 3), 255, np.uint8)).ravel()
    array([1., 1., 1.], dtype=float32)
    """

    def __init__(self, output_type=np.float32):
        self.output_type = np.dtype(output_type)

    def __call__(self, img):
        chw = HWC2CHW()(_image(img, "ToTensor"))
        return (chw.astype(np.float64) / 255.0).astype(self.output_type)


# ------------------------------------------------------------------ resizing

@functools.lru_cache(maxsize=64)
def _linear_taps(n_out, n_in, rows=False):
    """OpenCV's bilinear source indices and weight per output position (half-pixel
    centres; the weight is computed in float32 as OpenCV does).  Past a border OpenCV
    treats the axes differently: a column clamps its index *and* zeroes its weight, a row
    clamps only its indices (``rows=True``) and keeps its weight, both taps then reading the
    border row -- which in uint8's fixed point rounds differently from weight 0."""
    scale = n_in / n_out
    pos = ((np.arange(n_out) + 0.5) * scale - 0.5).astype(np.float32)
    first = np.floor(pos).astype(np.int64)
    frac = (pos - first.astype(np.float32)).astype(np.float32)
    if rows:
        taps = np.clip(first, 0, n_in - 1), np.clip(first + 1, 0, n_in - 1), frac
    else:
        low = first < 0
        frac[low], first[low] = 0.0, 0
        high = first >= n_in - 1
        frac[high], first[high] = 0.0, n_in - 1
        taps = first, np.minimum(first + 1, n_in - 1), frac
    for array in taps:                 # cached: shared by every image of that size
        array.flags.writeable = False
    return taps


def _resize_linear(img, h, w):
    y0, y1, fy = _linear_taps(h, img.shape[0], rows=True)
    x0, x1, fx = _linear_taps(w, img.shape[1])
    extra = (1,) * (img.ndim - 2)
    if img.dtype == np.uint8:                      # OpenCV's fixed point (11-bit weights)
        ax1 = np.rint(fx * 2048).astype(np.int64).reshape((1, -1) + extra)
        ax0 = np.rint((1 - fx) * 2048).astype(np.int64).reshape((1, -1) + extra)
        by1 = np.rint(fy * 2048).astype(np.int64).reshape((-1, 1) + extra)
        by0 = np.rint((1 - fy) * 2048).astype(np.int64).reshape((-1, 1) + extra)
        src = img.astype(np.int64)
        rows0 = src[:, x0] * ax0 + src[:, x1] * ax1
        top, bottom = rows0[y0], rows0[y1]
        out = (((by0 * (top >> 4)) >> 16) + ((by1 * (bottom >> 4)) >> 16) + 2) >> 2
        return np.clip(out, 0, 255).astype(np.uint8)
    work = img.astype(np.float32) if img.dtype != np.float64 else img
    fxr = fx.reshape((1, -1) + extra).astype(work.dtype)
    fyr = fy.reshape((-1, 1) + extra).astype(work.dtype)
    rows = work[:, x0] * (1 - fxr) + work[:, x1] * fxr
    out = rows[y0] * (1 - fyr) + rows[y1] * fyr
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(img.dtype)
    return out.astype(img.dtype)


def _resize_nearest(img, h, w):
    rows = np.minimum(np.floor(np.arange(h) * (img.shape[0] / h)).astype(np.int64), img.shape[0] - 1)
    cols = np.minimum(np.floor(np.arange(w) * (img.shape[1] / w)).astype(np.int64), img.shape[1] - 1)
    return img[rows][:, cols]


class Resize:
    """Resize to ``size`` = (height, width), or make the shorter side ``size`` keeping the
    aspect ratio; ``Inter.BILINEAR`` (default) or ``Inter.NEAREST``.

    >>> Resize((2, 4), Inter.NEAREST)(np.array([[1, 2], [3, 4]], np.uint8))
    array([[1, 1, 2, 2],
           [3, 3, 4, 4]], dtype=uint8)
    """

    def __init__(self, size, interpolation=Inter.BILINEAR):
        if isinstance(size, numbers.Integral) and not isinstance(size, bool):
            if size < 1:
                raise ValueError(f"Resize: size must be positive, got {size}")
            self.size = int(size)
        else:
            self.size = _pair(size, "Resize: size")
        if interpolation not in (Inter.BILINEAR, Inter.NEAREST):
            raise NotImplementedError(f"Resize: interpolation {Inter(interpolation).name} is not "
                                      f"supported (BILINEAR and NEAREST are)")
        self.interpolation = Inter(interpolation)

    def __call__(self, img):
        array = _image(img, "Resize")
        height, width = array.shape[:2]
        if isinstance(self.size, int):
            if height <= width:
                h, w = self.size, int(width * self.size / height)
            else:
                h, w = int(height * self.size / width), self.size
        else:
            h, w = self.size
        if self.interpolation == Inter.NEAREST:
            return _resize_nearest(array, h, w)
        return _resize_linear(array, h, w)


# ------------------------------------------------------------------ crops and flips

def _padding(padding):
    """(top, bottom, left, right) from MindSpore's int / (lr, tb) / (l, t, r, b) padding."""
    if padding is None:
        return (0, 0, 0, 0)
    if isinstance(padding, numbers.Integral):
        return (padding,) * 4
    if len(padding) == 2:
        return (padding[1], padding[1], padding[0], padding[0])
    if len(padding) == 4:
        left, top, right, bottom = padding
        return (top, bottom, left, right)
    raise ValueError(f"padding must be an int or a sequence of 2 or 4 ints, got {padding!r}")


def _pad(array, top, bottom, left, right, mode, fill_value):
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (array.ndim - 2)
    mode = Border(mode).value
    if mode == "constant":
        fill = fill_value if isinstance(fill_value, numbers.Number) else 0
        out = np.pad(array, widths, mode="constant", constant_values=fill)
        if array.ndim == 3 and isinstance(fill_value, (tuple, list)):
            out = out.copy()
            mask = np.ones(out.shape[:2], bool)
            mask[top:top + array.shape[0], left:left + array.shape[1]] = False
            out[mask] = np.asarray(fill_value, out.dtype)
        return out
    return np.pad(array, widths, mode=mode)


class RandomCrop:
    """Pad by ``padding`` (and up to ``size`` when ``pad_if_needed``), then crop ``size`` at a
    random position.

    >>> config.set_seed(0)
    >>> RandomCrop(2)(np.arange(9).reshape(3, 3)).shape
    (2, 2)
    """

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0,
                 padding_mode=Border.CONSTANT):
        self.size = _pair(size, "RandomCrop: size")
        self.padding = _padding(padding)
        self.pad_if_needed, self.fill_value, self.padding_mode = pad_if_needed, fill_value, padding_mode

    def __call__(self, img):
        array = _image(img, "RandomCrop")
        if any(self.padding):
            array = _pad(array, *self.padding, self.padding_mode, self.fill_value)
        h, w = self.size
        if self.pad_if_needed and (array.shape[0] < h or array.shape[1] < w):
            dh, dw = max(0, h - array.shape[0]), max(0, w - array.shape[1])
            array = _pad(array, dh, dh, dw, dw, self.padding_mode, self.fill_value)
        if array.shape[0] < h or array.shape[1] < w:
            raise ValueError(f"RandomCrop: crop size {self.size} is larger than the (padded) "
                             f"image {array.shape[:2]}")
        rng = config.generator()
        top = int(rng.integers(array.shape[0] - h + 1))
        left = int(rng.integers(array.shape[1] - w + 1))
        return array[top:top + h, left:left + w].copy()


class CenterCrop:
    """Crop ``size`` from the middle (an odd margin leaves the extra row/column at the
    bottom/right, as MindSpore does).

    >>> CenterCrop(1)(np.arange(9).reshape(3, 3))
    array([[4]])
    """

    def __init__(self, size):
        self.size = _pair(size, "CenterCrop: size")

    def __call__(self, img):
        array = _image(img, "CenterCrop")
        h, w = self.size
        if array.shape[0] < h or array.shape[1] < w:
            dh, dw = max(0, h - array.shape[0]), max(0, w - array.shape[1])
            array = _pad(array, dh // 2, dh - dh // 2, dw // 2, dw - dw // 2, Border.CONSTANT, 0)
        top, left = (array.shape[0] - h) // 2, (array.shape[1] - w) // 2
        return array[top:top + h, left:left + w].copy()


class _RandomFlip:
    flip_axis = 0

    def __init__(self, prob=0.5):
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f"{type(self).__name__}: prob must be in [0, 1], got {prob}")
        self.prob = prob

    def __call__(self, img):
        array = _image(img, type(self).__name__)
        if config.generator().random() < self.prob:
            return np.flip(array, axis=self.flip_axis).copy()
        return array


class RandomHorizontalFlip(_RandomFlip):
    """Mirror left-right with probability ``prob``.

    >>> RandomHorizontalFlip(1.0)(np.array([[1, 2, 3]]))
    array([[3, 2, 1]])
    """
    flip_axis = 1


class RandomVerticalFlip(_RandomFlip):
    """Mirror top-bottom with probability ``prob``.

    >>> RandomVerticalFlip(1.0)(np.array([[1], [2]]))
    array([[2],
           [1]])
    """
    flip_axis = 0
