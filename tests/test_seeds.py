"""Every seed example runs as a tutorial and prints the numbers its seed documents.

The seed files themselves (``../shared/seeds``) are parsed: a tutorial maps to a
section of a seed (the text between two anchors), the section's output blocks
give the expected output, and every number the tutorial prints (up to the
``--- beyond the seed ---`` marker) is compared with the documented one at 1e-5
relative tolerance, and so are the words True/False/None.  The seeds print no random
values (seed 003's random example prints only shapes), so nothing is skipped.  A few seed numbers are not what the seed's own code
computes; ``CORRECTIONS`` replaces them, each with the reason.
"""
import contextlib
import glob
import io
import os
import re
import runpy
import warnings

import pytest

import eagerad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TUTORIALS = os.path.join(ROOT, "tutorials")
SEEDS = os.path.join(os.path.dirname(ROOT), "shared", "seeds")
BEYOND = "--- beyond the seed ---"
END = None

# tutorial -> (seed number, section start anchor, section end anchor or END)
SECTIONS = {
    "seed0_01_first_order_input": (0, "Import the required modules and APIs",
                                   "## First-order Derivative of the Weight"),
    "seed0_02_first_order_weight": (0, "## First-order Derivative of the Weight",
                                    "## Gradient Value Scaling"),
    "seed0_03_gradient_value_scaling": (0, "## Gradient Value Scaling", "## Stop Gradient"),
    "seed0_04_stop_gradient": (0, "## Stop Gradient", END),
    "seed1_01_input_derivation": (1, "### Input Derivation", "### Weight Derivation"),
    "seed1_02_weight_derivation": (1, "### Weight Derivation", "### Gradient Value Scaling"),
    "seed1_03_gradient_value_scaling": (1, "### Gradient Value Scaling", "## Stop Gradient"),
    "seed1_04_stop_gradient": (1, "## Stop Gradient", "## High-order Derivation"),
    "seed1_05_high_order_single_input_single_output": (
        1, "### Single-input Single-output High-order Derivative",
        "### Single-input Multi-output High-order Derivative"),
    "seed1_06_high_order_single_input_multi_output": (
        1, "### Single-input Multi-output High-order Derivative",
        "### Multiple-Input Multiple-Output High-Order Derivative"),
    "seed1_07_high_order_multi_input_multi_output": (
        1, "### Multiple-Input Multiple-Output High-Order Derivative",
        "## Support for Second-order Differential Operators"),
    "seed2_01_automatic_differentiation": (2, "## Automatic Differentiation",
                                           "### Principle Comparison"),
    "seed2_02_torch_autograd_backward": (2, "#### torch.autograd.backward",
                                         "#### torch.autograd.grad"),
    "seed2_03_torch_autograd_grad": (2, "#### torch.autograd.grad", "#### torch.no_grad"),
    "seed2_04_torch_no_grad": (2, "#### torch.no_grad", "#### torch.enable_grad"),
    "seed2_05_torch_enable_grad": (2, "#### torch.enable_grad", "#### retain_graph"),
    "seed2_06_mindspore_grad": (2, "### mindspore.grad", "### mindspore.value_and_grad"),
    "seed2_07_value_and_grad": (2, "### mindspore.value_and_grad",
                                "### mindspore.ops.GradOperation"),
    "seed2_08_loss_scale": (2, "## loss scale", "## Gradient Cropping"),
    "seed2_09_gradient_clipping": (2, "## Gradient Cropping", "## Gradient Accumulation"),
    "seed3_01_first_order_input": (3, "## First-order Derivation",
                                   "### Computing the Derivative for Weight"),
    "seed3_02_first_order_weight": (3, "### Computing the Derivative for Weight",
                                    "### Returning Auxiliary Variables"),
    "seed3_03_auxiliary_variables": (3, "### Returning Auxiliary Variables",
                                     "### Stopping Gradient Computation"),
    "seed3_04_stop_gradient": (3, "### Stopping Gradient Computation", "## High-order Derivation"),
    "seed3_05_high_order_single_input_single_output": (
        3, "### Single-input Single-output High-order Derivative",
        "### Single-input Multi-output High-order Derivative"),
    "seed3_06_high_order_single_input_multi_output": (
        3, "### Single-input Multi-output High-order Derivative",
        "### Multiple-Input Multiple-Output High-Order Derivative"),
    "seed3_07_high_order_multi_input_multi_output": (
        3, "### Multiple-Input Multiple-Output High-Order Derivative", END),
}

_ROUNDED = ("the seed rounds sum(y[0]) = 0.11 + 3.3 + 1.1 = 4.51 to 4.5 (and twice that, "
            "9.02, to 9.0) while printing 2.7 and 3.6 exactly")
# tutorial -> [(index among the section's printed numbers, seed's number, correct number, why)]
CORRECTIONS = {
    "seed0_04_stop_gradient": [(0, 4.5, 4.51, _ROUNDED), (3, 4.5, 4.51, _ROUNDED),
                               (6, 9.0, 9.02, _ROUNDED), (9, 9.0, 9.02, _ROUNDED)],
    "seed1_04_stop_gradient": [(0, 4.5, 4.51, _ROUNDED), (3, 4.5, 4.51, _ROUNDED),
                               (6, 9.0, 9.02, _ROUNDED), (9, 9.0, 9.02, _ROUNDED)],
    "seed2_02_torch_autograd_backward": [
        (9, 3.0, 1.0, "the seed's snippet has a typo, print(\"out1\", out), so it prints the "
                      "x-gradient 3.0 under the label out1; the tutorial prints out1, "
                      "d(x**2 + y + x)/dy = 1.0")],
}

# Seed code blocks that are notation, not runnable examples (placeholders s1, x1, ...).
ILLUSTRATIONS = ("[[s1, s2, s3]", "[[x1, x2, x3]", "name='z', requires_grad=False)")

_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w])")
_BLOCK = re.compile(r"```(\w*)[ \t]*\n?(.*?)```", re.S)


def _seed_text(number):
    paths = glob.glob(os.path.join(SEEDS, f"{number:03d}_*.txt"))
    if not paths:
        pytest.skip(f"seed {number:03d} not found under {SEEDS}")
    with open(paths[0], encoding="utf-8") as f:
        return f.read()


def _section(text, start, end):
    i = text.index(start)
    j = text.index(end, i + len(start)) if end is not END else len(text)
    return i, j


def _is_code(lang, body):
    if lang.lower() == "python":
        return True
    if lang.lower() == "text":
        return False
    return any(key in body for key in ("print(", "import ", "def ", "class "))


def _expected_output(name):
    """The documented output of a tutorial's section: output blocks plus the commented
    output that ends a code block (seed 002 shows its ValueError that way)."""
    number, start, end = SECTIONS[name]
    text = _seed_text(number)
    i, j = _section(text, start, end)
    lines = []
    for lang, body in _BLOCK.findall(text[i:j]):
        if not _is_code(lang, body):
            lines.append(body)
            continue
        tail = []
        for line in reversed(body.strip().splitlines()):
            if not line.startswith("#"):
                break
            tail.insert(0, line.lstrip("# "))
        if tail and body.strip().splitlines()[-len(tail) - 1].strip() == "":
            lines.extend(tail)
    return "\n".join(lines)


def _numbers(text):
    return [float(m) for m in _NUMBER.findall(text)]


def _run(name):
    """Run a tutorial in this process and return what it prints (up to the marker)."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runpy.run_path(os.path.join(TUTORIALS, name + ".py"), run_name="__main__")
    finally:
        eagerad.set_context(mode=eagerad.PYNATIVE_MODE, device_target="CPU")
    return out.getvalue().split(BEYOND)[0]


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_tutorial_prints_the_seed_numbers(name):
    expected_text = _expected_output(name)
    expected = _numbers(expected_text)
    for index, seed_value, correct, why in CORRECTIONS.get(name, ()):
        assert expected[index] == seed_value, f"correction anchor moved in {name}"
        expected[index] = correct   # see CORRECTIONS for why the seed's number is wrong
    printed = _run(name)
    got = _numbers(printed)
    assert len(got) == len(expected), \
        f"{name} printed {len(got)} numbers, the seed documents {len(expected)}:\n" \
        f"--- printed\n{printed}\n--- seed\n{expected_text}"
    for k, (g, e) in enumerate(zip(got, expected)):
        assert abs(g - e) <= 1e-5 * max(abs(g), abs(e)), \
            f"{name}: number {k} is {g}, the seed documents {e}\n--- printed\n{printed}"
    words = re.compile(r"\b(?:True|False|None)\b")
    assert words.findall(printed) == words.findall(expected_text), \
        f"{name}: True/False/None differ\n--- printed\n{printed}\n--- seed\n{expected_text}"
    for line in expected_text.splitlines():
        if "Error:" in line:
            assert line.strip() in printed, f"{name} should print {line.strip()!r}"


@pytest.mark.parametrize("number", [0, 1, 2, 3])
def test_every_seed_code_block_has_a_tutorial(number):
    text = _seed_text(number)
    ranges = [_section(text, start, end) for n, start, end in SECTIONS.values() if n == number]
    for m in _BLOCK.finditer(text):
        lang, body = m.group(1), m.group(2)
        if not _is_code(lang, body) or any(s in body for s in ILLUSTRATIONS):
            continue
        assert any(i <= m.start() < j for i, j in ranges), \
            f"seed {number:03d}: no tutorial covers the code block {body.strip()[:80]!r}"


def test_tutorial_files_and_readme_agree():
    scripts = {os.path.basename(p)[:-3] for p in glob.glob(os.path.join(TUTORIALS, "seed*.py"))}
    assert scripts == set(SECTIONS)
    with open(os.path.join(TUTORIALS, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    for name in list(SECTIONS) + ["third_derivative", "hessian_vector_product"]:
        assert f"`{name}.py`" in readme


def test_own_tutorials_match_closed_forms():
    """third_derivative.py and hessian_vector_product.py print eagerad's result next to
    the closed form, row after row; the two rows must agree."""
    for name in ("third_derivative", "hessian_vector_product"):
        rows = [line for line in _run(name).splitlines() if line.strip()]
        pairs = [(rows[k], rows[k + 1]) for k in range(0, len(rows) - 1)
                 if "closed form" in rows[k + 1]]
        assert pairs, name
        for mine, closed in pairs:
            a, b = _numbers(mine.split(")", 1)[-1]), _numbers(closed)
            assert len(a) == len(b) and all(abs(x - y) <= 1e-9 * max(1.0, abs(y))
                                            for x, y in zip(a, b)), (name, mine, closed)


@pytest.mark.parametrize("name", sorted(n for n in SECTIONS if "torch" in n))
def test_pytorch_snippets_print_pytorch_format(name):
    """The PyTorch snippets print exactly what the seed shows (``tensor(3., grad_fn=...)``),
    line for line wherever the seed shows a tensor."""
    printed = _run(name).splitlines()
    shown = [line.strip() for line in _expected_output(name).splitlines() if "tensor(" in line]
    at = 0
    for line in shown:
        assert line in printed[at:], f"{name} should print {line!r}; printed:\n" + "\n".join(printed)
        at = printed.index(line, at) + 1
