"""Reuse hints: reuse sections, documented options no step uses, configuration files, API examples, input formats."""
from __future__ import annotations

FILES = {
    "README.md": """# cgtool

## Usage

```
~ >>> cgtool -h
usage: cgtool [-h] [--package PACKAGE] [--max-iter MAX_ITER] [-o OUTPUT]

optional arguments:
  -h, --help            show this help message and exit
  --package PACKAGE     Package containing the code to be analyzed
  --max-iter MAX_ITER   Maximum number of iterations
  -o OUTPUT, --output OUTPUT
                        Output path
```

## Examples

```
cgtool --package pkg pkg/a.py -o cg.json
```

## Using your own data

Edit `configs/experiment_config.yaml` to point to your data. Input files follow the format of `examples/in.json`.

## Input formats

Each line of the input file is a JSON object; see examples/in.json.

## Library use

```python
from cgtool.core import CallGraph
graph = CallGraph("pkg")
```

```python
import numpy as np
np.zeros(3)
```

```python
g = build_graph("pkg")
```
""",
    "setup.py": "setup(entry_points={'console_scripts': ['cgtool=cgtool.__main__:main']})\n",
    "cgtool/__init__.py": "", "cgtool/core.py": "class CallGraph:\n    pass\n\ndef build_graph(p):\n    return p\n",
    "configs/experiment_config.yaml": "a: 1\n", "examples/in.json": "{}", "pkg/a.py": "",
}


def test_reuse_hints(run):
    reuse = run(FILES).reuse
    assert reuse.sections == ["Using your own data", "Input formats", "Library use"]
    assert [o.flag for o in reuse.unused_options] == ["--max-iter"]
    assert reuse.unused_options[0].source == "README.md:12"
    assert reuse.config_files == ["configs/experiment_config.yaml"]
    assert [(a.source, a.modules) for a in reuse.api_examples] == [("README.md:34", ["cgtool"]),
                                                                   ("README.md:44", ["core"])]
    formats = {f.title: f.examples for f in reuse.input_formats}
    assert formats["Input formats"] == ["examples/in.json"]
    assert formats["Using your own data"] == ["configs/experiment_config.yaml", "examples/in.json"]
