"""``torch.hub``: eagerad downloads no models; ``load`` says so (build the model and
``load_state_dict`` a checkpoint saved by ``torch.save`` instead).

>>> import eagerad.torch as torch
>>> torch.hub.load("pytorch/vision", "resnet18")
Traceback (most recent call last):
NotImplementedError: torch.hub.load: ...
"""


def load(repo_or_dir, model, *args, **kwargs):
    """Not supported (see the module)."""
    raise NotImplementedError(f"torch.hub.load: eagerad does not fetch hub models "
                              f"({repo_or_dir}:{model}); build the model in code and load its "
                              "weights with load_state_dict")


def load_state_dict_from_url(url, *args, **kwargs):
    """Not supported: eagerad downloads nothing."""
    raise NotImplementedError(f"torch.hub.load_state_dict_from_url: eagerad downloads nothing "
                              f"({url}); download the file and torch.load it")
