"""The public names of ``eagerad.ops`` (functions and MindSpore primitive classes) and of
Tensor (methods and operators) never shrink: ``public_names.json`` holds the names as they
were when they were still listed by hand (before issue 13 made them come from each op's
``export``), and every one of them must still exist and still mean the same op."""
import json
import pathlib
import types

import numpy as np

import eagerad
from eagerad import ops
from eagerad.face import FaceAttribute
from eagerad.ops.primitives import Primitive
from eagerad.tensor import Tensor

SNAPSHOT = json.loads((pathlib.Path(__file__).with_name("public_names.json")).read_text())


def test_every_ops_function_name_still_exists():
    missing = [n for n in SNAPSHOT["ops"] if not hasattr(ops, n)
               or isinstance(getattr(ops, n), types.ModuleType)]
    assert missing == []


def test_every_primitive_class_still_exists_and_is_a_primitive():
    missing = [n for n in SNAPSHOT["primitives"]
               if not (isinstance(getattr(ops, n, None), type)
                       and issubclass(getattr(ops, n), Primitive))]
    assert missing == []


def test_every_tensor_method_and_operator_still_exists():
    assert [n for n in SNAPSHOT["tensor"] if not hasattr(Tensor, n)] == []


# Where PyTorch and MindSpore read a method differently, it follows the tensor's face
# (issue 19; tests/test_faces.py checks each face's meaning): these are not the op itself.
FACE_DEPENDENT = ["max", "min", "squeeze", "std", "var"]


def test_tensor_methods_that_were_the_ops_function_still_are():
    import eagerad.mindspore  # noqa: F401  (the faces install their methods on import)
    import eagerad.torch  # noqa: F401

    def neutral(attr):      # a FaceAttribute's default is what the engine's own tensors use
        return attr.default if isinstance(attr, FaceAttribute) else attr
    # ``x.sin`` was ``ops.sin`` itself: it still is (no wrapper with other defaults)
    assert [n for n in SNAPSHOT["tensor_is_op"] if n not in FACE_DEPENDENT
            and neutral(Tensor.__dict__.get(n)) is not getattr(ops, n)] == []
    assert [n for n in FACE_DEPENDENT if Tensor.__dict__.get(n) is getattr(ops, n)] == []
    x = eagerad.tensor([[1.0, 5.0, 2.0]])            # where both frameworks agree, the op's values
    assert x.max().item() == ops.max(x).item() == 5.0 and x.min().item() == ops.min(x).item() == 1.0
    assert x.squeeze().tolist() == ops.squeeze(x).tolist() == [1.0, 5.0, 2.0]
    assert x.std(ddof=1).item() == ops.std(x, ddof=1).item() == np.float32(np.sqrt(13 / 3))
    assert x.var(ddof=0).item() == ops.var(x, ddof=0).item()


def test_hand_written_methods_keep_their_meaning():
    x = eagerad.Tensor(np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]]))
    assert x.amax().item() == 5.0 and x.amin(axis=0).tolist() == [1.0, -2.0, -6.0]
    assert x.clamp(-1.0, 1.0).tolist() == [[1.0, -1.0, 1.0], [1.0, 1.0, -1.0]]
    assert x.view(3, 2).shape == (3, 2) and x.unsqueeze(0).shape == (1, 2, 3)
    assert x.permute(1, 0).shape == (3, 2) and x.expand(4, 2, 3).shape == (4, 2, 3)
    assert x.double().dtype == eagerad.float64 and x.type("float32").dtype == eagerad.float32
    assert x.cpu().device == x.device
    assert (-x).tolist() == (x * -1).tolist() and (2 - x).tolist() == (x.neg() + 2).tolist()
    assert ops.Sin()(eagerad.Tensor([0.0])).tolist() == [0.0]
