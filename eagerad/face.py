"""Faces: the stamp on each tensor that says whose conventions it follows.

PyTorch and MindSpore give some names different meanings (``x.std()`` divides by
``n - 1`` in one and ``n`` in the other; tensors print differently).  The core never
asks which framework is speaking: every tensor carries a ``Face`` object, set by the
face module that created it (``eagerad.torch``, ``eagerad.mindspore``) and passed from
an op's operands to its results.  The few things that differ are looked up through
it: how the tensor prints, the type of its shape, and the Tensor attributes a face
registers with ``FaceAttribute``.  ``NEUTRAL`` is the engine's own face (``import
eagerad``): where the frameworks disagree, its attributes raise and name both faces.

>>> import eagerad
>>> eagerad.ones(2)._face.name
'eagerad'
"""
import functools

FACES = {}     # name -> Face, filled as face modules are imported (for set_printoptions)


class Shape(tuple):
    """The shape of a tensor: a tuple of ints that also answers PyTorch's ``numel()``.
    A face may subclass it to print differently (``torch.Size([2, 3])``).

    >>> Shape((2, 3)), Shape((2, 3)) == (2, 3), Shape([4]).numel()
    ((2, 3), True, 4)
    """
    __slots__ = ()

    def numel(self):
        """Element count of a tensor of this shape (PyTorch's ``Size.numel``)."""
        n = 1
        for d in self:
            n *= d
        return n


class Face:
    """How tensors of one family print and which attribute implementations they use.

    ``repr``/``str`` take a tensor and return text; ``shape`` wraps a tuple of ints;
    ``attributes`` maps an attribute name to the function or property that tensors of
    this face use in place of the neutral one (see ``FaceAttribute``).

    >>> f = Face("demo", repr=lambda t: "T", str=lambda t: "t")
    >>> f.name, f.shape((2,)).numel()
    ('demo', 2)
    """

    def __init__(self, name, repr, str, shape=Shape):
        self.name = name
        self.repr = repr
        self.str = str
        self.shape = shape
        self.attributes = {}
        FACES[name] = self

    def __repr__(self):
        return f"<face {self.name}>"


class FaceAttribute:
    """A class attribute whose implementation depends on the instance's face.

    Installed once per name by ``install``; ``obj._face.attributes[name]`` wins over the
    neutral ``default`` (a function, a property or any descriptor).  Access on the class
    gives the default.

    >>> class T:
    ...     _face = Face("f1", repr=str, str=str)
    ...     def hello(self):
    ...         return "neutral"
    >>> install(T, "hello")
    >>> T._face.attributes["hello"] = lambda self: "face f1"
    >>> T().hello()
    'face f1'
    """

    def __init__(self, name, default):
        self.name = name
        self.default = default

    def _impl(self, obj):
        return obj._face.attributes.get(self.name, self.default)

    def __get__(self, obj, cls=None):
        if obj is None:
            return self.default
        return self._impl(obj).__get__(obj, cls)

    def __set__(self, obj, value):
        impl = self._impl(obj)
        if not hasattr(impl, "__set__"):
            raise AttributeError(f"attribute {self.name!r} of a tensor cannot be assigned")
        impl.__set__(obj, value)


def install(cls, name):
    """Make ``cls.name`` a ``FaceAttribute`` whose default is the current attribute
    (idempotent); faces then put their implementations in ``Face.attributes``.

    >>> class C:
    ...     def f(self):
    ...         return 1
    >>> install(C, "f"); install(C, "f"); type(C.__dict__["f"]).__name__
    'FaceAttribute'
    """
    current = cls.__dict__.get(name)
    if isinstance(current, FaceAttribute):
        return
    if current is None:
        current = getattr(cls, name, None) or _Absent(name)
    setattr(cls, name, FaceAttribute(name, current))


class _Absent:
    """The neutral default of an attribute only some faces have: reading it is an
    AttributeError that says which faces have it."""

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, cls=None):
        faces = sorted(f"eagerad.{face.name}" for face in FACES.values()
                       if self.name in face.attributes)
        holder = getattr(obj, "_face", None)
        raise AttributeError(f"{type(obj).__name__!r} object has no attribute {self.name!r}: it "
                             f"belongs to {' and '.join(faces) or 'no face'}, and this tensor "
                             f"speaks {getattr(holder, 'name', 'eagerad')} (make it with "
                             "that face's functions)")


def stamp(obj, face):
    """Stamp every tensor in ``obj`` (a tensor, or nested dicts, lists and tuples of them)
    with ``face``; what a face module does to the tensors its functions hand out.

    >>> import eagerad
    >>> f = Face("f2", repr=str, str=str); out = stamp({"a": [eagerad.ones(1)]}, f)
    >>> out["a"][0]._face.name
    'f2'
    """
    if hasattr(obj, "_face") and hasattr(obj, "_data"):
        obj._face = face
    elif isinstance(obj, dict):
        for v in obj.values():
            stamp(v, face)
    elif isinstance(obj, (tuple, list)):
        for v in obj:
            stamp(v, face)
    return obj


def speaking(fn, face):
    """``fn`` whose tensor results (also inside tuples, lists, dicts) are stamped with
    ``face``: how a face module hands out the engine's creation functions.

    >>> import eagerad
    >>> f = Face("f3", repr=str, str=str); ones = speaking(eagerad.ones, f)
    >>> ones(2)._face.name, ones.__name__
    ('f3', 'ones')
    """
    @functools.wraps(fn)
    def made(*args, **kwargs):
        return stamp(fn(*args, **kwargs), face)
    return made


def ambiguous(name, torch_meaning, mindspore_meaning, instead):
    """The error a neutral tensor raises for a name the two frameworks read differently.

    >>> str(ambiguous("x.std()", "divides by n - 1", "by n", "pass correction="))[:30]
    'x.std() means different things'
    """
    return TypeError(
        f"{name} means different things in PyTorch ({torch_meaning}) and MindSpore "
        f"({mindspore_meaning}); {instead}, or use the face whose meaning you want: "
        "`import eagerad.torch as torch` or `import eagerad.mindspore as mindspore` (their "
        "tensors and layers follow that framework)")
