"""README's first-look examples run and print what README shows (its ```python blocks
with ``>>>`` prompts, in order, in one namespace)."""
import doctest
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_readme_examples_print_what_readme_shows():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    text = "\n".join(b for b in blocks if ">>>" in b)
    assert text.count(">>>") >= 15
    test = doctest.DocTestParser().get_doctest(text, {}, "README", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0, f"{runner.failures} README example(s) print something else"
