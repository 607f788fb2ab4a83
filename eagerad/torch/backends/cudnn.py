"""``torch.backends.cudnn``: accepted flags, no cuDNN behind them."""
enabled = True
benchmark = False
deterministic = False
allow_tf32 = False


def is_available():
    """False: eagerad's CUDA backend does not use cuDNN.

    >>> is_available()
    False
    """
    return False
