"""``torch.onnx``: importable, so programs that mention it run; exporting is not
supported by eagerad and says so.

>>> import eagerad.torch as torch
>>> torch.onnx.is_in_onnx_export()
False
"""


def export(model, args=(), f=None, *unused, **kwargs):
    """Refuses clearly: eagerad cannot write ONNX graphs.

    >>> export(None)
    Traceback (most recent call last):
    NotImplementedError: torch.onnx.export: ONNX export is not supported by eagerad ...
    """
    raise NotImplementedError("torch.onnx.export: ONNX export is not supported by eagerad (it "
                              "records no static graph); save weights with torch.save instead")


def is_in_onnx_export():
    """Always False: eagerad never runs an ONNX export.

    >>> is_in_onnx_export()
    False
    """
    return False
