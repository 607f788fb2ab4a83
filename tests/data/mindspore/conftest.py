"""The scripts here run under real MindSpore (record.py, make_ckpt.py, ...) or are data
modules of the tests: pytest's --doctest-modules must not import them."""
collect_ignore_glob = ["*.py"]
