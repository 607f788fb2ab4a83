"""Calls from a lower layer up into a higher one, all registered here.

Imports point only downwards (``tests/test_layering.py``), yet a few lower modules need
something that lives above them.  Each such need is one named hook in ``TABLE``; the
module that provides it calls ``register`` when it is imported, and the lower module
calls ``get`` when it runs.  No module assigns into another module's attributes.

================  ==========================  ======================================  =====================================
hook              registered by               called by                               what for
================  ==========================  ======================================  =====================================
``ops``           ``eagerad.ops``             ``eagerad.tensor``                      numpy protocols route to eagerad ops
``initializer``   ``eagerad.nn.init``         ``eagerad.tensor``                      MindSpore's ``Tensor(shape=, init=)``
``map_samples``   ``eagerad.ops.registry``    ``eagerad.autograd.batching``           a custom Function inside vmap, per sample
``alias``         ``eagerad.ops.registry``    ``eagerad.autograd.forward_ad``         ``make_dual``'s view with its own node
``to_physical``   ``eagerad.vectorize``       ``eagerad.autograd`` (``grad``)         ``autograd.grad`` inside vmap
================  ==========================  ======================================  =====================================

>>> import eagerad
>>> get("alias")(eagerad.ones(1)).shape
(1,)
"""

# hook -> (the module that registers it, the module that calls it)
TABLE = {
    "ops": ("eagerad.ops", "eagerad.tensor"),
    "initializer": ("eagerad.nn.init", "eagerad.tensor"),
    "map_samples": ("eagerad.ops.registry", "eagerad.autograd.batching"),
    "alias": ("eagerad.ops.registry", "eagerad.autograd.forward_ad"),
    "to_physical": ("eagerad.vectorize", "eagerad.autograd"),
}

_provided = {}


def register(name, value):
    """Provide hook ``name`` (a key of ``TABLE``); called once, by the module ``TABLE`` names.

    >>> register("no such hook", len)
    Traceback (most recent call last):
    ...
    KeyError: "no upcall hook 'no such hook'; the hooks are ops, initializer, map_samples, alias, to_physical"
    """
    if name not in TABLE:
        raise KeyError(f"no upcall hook {name!r}; the hooks are {', '.join(TABLE)}")
    _provided[name] = value


def get(name):
    """What was registered for hook ``name``; a clear error when its module is not imported.

    >>> get("map_samples").__name__
    'map_samples'
    """
    try:
        return _provided[name]
    except KeyError:
        if name not in TABLE:
            raise KeyError(f"no upcall hook {name!r}; the hooks are {', '.join(TABLE)}") from None
        raise RuntimeError(f"{TABLE[name][1]} needs {name!r}, which {TABLE[name][0]} registers "
                           "when imported: import eagerad first") from None
