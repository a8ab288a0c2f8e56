"""Every code block of README.md and python/README.md runs as written, and what it claims holds.

Which blocks (fenced with three backticks; indented blocks and fences without a language are
listings and are not run):

- ``python``: run by the .venv's Python in a fresh process, statement by statement.
- ``sh`` (also ``bash``, ``shell``): run by ``bash -e -o pipefail``.
- ``c``, ``cpp``: a complete program (one that defines ``main``) is compiled against
  include/, linked with the build's library and run; a fragment is reported as skipped
  ("a fragment, not a complete program").
- any other language (``cmake``, ``json``, ``output``, ...) is not code to run.

Where and with what: each README gets one scratch directory, shared by its blocks in file order.
It holds a symlink to every entry of the repository root except ``build``, and ``build/release``
is a symlink to ``$ZCAST_BUILD_DIR`` (default build/release: the release build), so a snippet's
relative paths (``build/release/zcast_read_chunk``, ``conformance/vectors``, ``.venv/bin/zcast``)
work as from the repository root while the files it writes land in the scratch directory. A path
under ``/tmp/`` in a snippet is redirected to the scratch directory's ``tmp/`` (parallel runs do
not collide). PATH starts with .venv/bin; ZCAST_BUILD_DIR is set.

Claims checked:

- ``expr   # -> VALUE`` after a Python expression statement (on any of its lines, or alone on
  the line right below it): VALUE is a Python expression evaluated in the block's namespace
  (``inf``, ``nan`` and ``np`` defined) and compared with the result: numpy arrays and scalars as their ``tolist()``, NaN equal to
  NaN, ``...`` as the last item of a list standing for any further items; an expected numpy
  scalar or array must also have the result's dtype. Failing that, VALUE is matched as text
  against ``repr()`` and ``str()`` of the result, ``...`` matching any text.
- ``stmt   # raises NAME: MESSAGE``: the statement raises the exception NAME (evaluated in the
  namespace, e.g. ``zcast.CastError``) and its message matches MESSAGE, ``...`` matching any
  text. Comment lines right below, at the same column, continue VALUE or MESSAGE.
- A ```` ```output ```` block after a run block: what the block prints (stdout and stderr
  together) contains those lines, consecutive, each matching (``...`` within a line matches any
  text; a line of only ``...`` matches any number of lines).
- A comment after an expression that is a bare literal value (``# [2, 2, 255]``) is an error:
  write ``# -> [2, 2, 255]`` so that it is checked, or say it in words.

Directives, an HTML comment on the line before the fence (blank lines between are allowed):

- ``<!-- snippet: not run (REASON) -->``: the block is reported as skipped with its file:line
  and REASON (apt or pip installs, the hour-long test script, rebuilding the release tree).
- ``<!-- snippet: name=NAME -->`` and ``<!-- snippet: needs=NAME -->``: a block that needs
  another's files (``zcast sample-eopf /tmp/s2.zarr``) or, for Python, its variables, names it;
  the named block is run first if it has not run yet, and a Python block that needs a Python
  block runs that block's code first in the same process. Several in one comment:
  ``<!-- snippet: name=chain needs=sample -->``; ``timeout=SECONDS`` (default 300) too.

The whole test takes about 1-2 minutes here (the EOPF sample and the CLI start-ups dominate).
"""

from __future__ import annotations

import ast
import dataclasses
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
READMES = ("README.md", "python/README.md")
RUN_LANGS = {"python": "python", "sh": "sh", "bash": "sh", "shell": "sh", "c": "c", "cpp": "cpp",
             "c++": "cpp"}
DIRECTIVE = re.compile(r"^<!--\s*snippet:\s*(.*?)\s*-->\s*$")


# ---- extracting the blocks ------------------------------------------------------------------

@dataclasses.dataclass
class Block:
    file: str          # as given in READMES
    line: int          # the line of the opening fence, 1-based
    lang: str          # "python", "sh", "c", "cpp"
    code: str
    skip: str | None = None     # the reason of "not run (...)"
    name: str | None = None
    needs: tuple[str, ...] = ()
    timeout: float = 300
    output: str | None = None   # the following ```output block
    output_line: int = 0

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def parse_directive(text: str, where: str) -> dict[str, Any]:
    """The options of a ``<!-- snippet: ... -->`` comment."""
    opts: dict[str, Any] = {"needs": []}
    m = re.match(r"not run\s*\((.+)\)\s*$", text)
    if m:
        opts["skip"] = m.group(1)
        return opts
    for word in text.split():
        key, eq, value = word.partition("=")
        if not eq or key not in ("name", "needs", "timeout"):
            raise ValueError(f"{where}: unknown snippet directive {word!r} (name=, needs=, "
                             "timeout=, or 'not run (reason)')")
        if key == "needs":
            opts["needs"].extend(v for v in value.split(",") if v)
        elif key == "timeout":
            opts["timeout"] = float(value)
        else:
            opts["name"] = value
    return opts


def extract(file: str, text: str | None = None) -> list[Block]:
    """The fenced blocks of a Markdown file that are run (python, sh, c, cpp), with their
    directives and following output blocks."""
    lines = (text if text is not None else (REPO / file).read_text()).splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```\s*([\w+-]*)", lines[i])
        if not m:
            i += 1
            continue
        indent, lang = m.group(1), m.group(2).lower()
        start = i
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith("```"):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        if i >= len(lines):
            raise ValueError(f"{file}:{start + 1}: code block never closed")
        i += 1
        code = "\n".join(body) + "\n"
        if lang == "output":
            if not blocks:
                raise ValueError(f"{file}:{start + 1}: an output block with no block above it")
            if blocks[-1].output is not None:
                raise ValueError(f"{file}:{start + 1}: a second output block for "
                                 f"{blocks[-1].where}")
            blocks[-1].output, blocks[-1].output_line = code, start + 1
            continue
        if lang not in RUN_LANGS:
            continue
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        opts: dict[str, Any] = {"needs": []}
        if j >= 0:
            d = DIRECTIVE.match(lines[j].strip())
            if d:
                opts = parse_directive(d.group(1), f"{file}:{j + 1}")
        blocks.append(Block(file, start + 1, RUN_LANGS[lang], code, skip=opts.get("skip"),
                            name=opts.get("name"), needs=tuple(opts["needs"]),
                            timeout=opts.get("timeout", 300)))
    names = [b.name for b in blocks if b.name]
    for b in blocks:
        for n in b.needs:
            if n not in names:
                raise ValueError(f"{b.where}: needs={n}, but no block of {file} has name={n}")
    return blocks


# ---- claims in Python blocks ----------------------------------------------------------------

@dataclasses.dataclass
class Claim:
    line: int      # line within the block, 1-based
    kind: str      # "value" or "raises"
    text: str
    alone: bool    # on a line without code


_LITERAL_NODES = (ast.Expression, ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set,
                  ast.UnaryOp, ast.USub, ast.UAdd, ast.Load)


def looks_like_value(text: str) -> bool:
    """A comment such as ``[2, 2, 255]`` or ``(0.5, inf)``: a literal, not words."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return False
    return all(isinstance(n, _LITERAL_NODES) or (isinstance(n, ast.Name) and n.id in
               ("inf", "nan")) for n in ast.walk(tree)) and not (
        isinstance(tree.body, ast.Constant) and isinstance(tree.body.value, str))


def claims_of(code: str) -> tuple[dict[int, Claim], list[tuple[int, str]]]:
    """The claims of a Python block by line, and the comments after code that look like
    unchecked values."""
    comments = []  # (row, col, text, alone on its line)
    code_rows = set()
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            comments.append((tok.start[0], tok.start[1], tok.string[1:].strip()))
        elif tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                              tokenize.ENDMARKER):
            code_rows.update(range(tok.start[0], tok.end[0] + 1))
    claims: dict[int, Claim] = {}
    bare: list[tuple[int, str]] = []
    k = 0
    while k < len(comments):
        row, col, text = comments[k]
        k += 1
        kind = ("value" if text.startswith("->") else
                "raises" if re.match(r"raises\s+[\w.]+", text) else None)
        if kind is None:
            if row in code_rows and looks_like_value(text):
                bare.append((row, text))
            continue
        body = text[2:].strip() if kind == "value" else text[len("raises"):].strip()
        # Continuation: comment-only lines right below, the '#' in the same column.
        while (k < len(comments) and comments[k][0] == comments[k - 1][0] + 1
               and comments[k][1] == col and comments[k][0] not in code_rows):
            body += " " + comments[k][2]
            k += 1
        claims[row] = Claim(row, kind, body, row not in code_rows)
    return claims, bare


def wildcard(pattern: str) -> re.Pattern[str]:
    """``...`` matches any text; the rest literally (runs of blanks as any blanks)."""
    parts = [r"\s+".join(map(re.escape, p.split())) if p.strip() else (r"\s*" if p else "")
             for p in pattern.strip().split("...")]
    return re.compile(r"\s*" + r".*?".join(parts) + r"\s*", re.S)


def plain(v: Any) -> Any:
    import numpy as np

    if isinstance(v, (np.ndarray, np.generic)):
        return v.tolist()
    if isinstance(v, (list, tuple)):
        return type(v)(plain(x) for x in v)
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def equal(got: Any, want: Any) -> bool:
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return (math.isnan(want) and math.isnan(got)) or got == want
    if isinstance(want, (list, tuple)) and isinstance(got, (list, tuple)):
        if want and want[-1] is Ellipsis:
            return len(got) >= len(want) - 1 and all(map(equal, got, want[:-1]))
        return len(got) == len(want) and all(map(equal, got, want))
    if isinstance(want, dict) and isinstance(got, dict):
        return want.keys() == got.keys() and all(equal(got[k], want[k]) for k in want)
    return type(got) is type(want) and got == want or (
        isinstance(got, (int, float)) and isinstance(want, (int, float))
        and not isinstance(got, bool) and not isinstance(want, bool) and got == want)


def value_matches(got: Any, text: str, ns: dict[str, Any]) -> bool:
    import numpy as np

    try:
        want = eval(text, {**ns, "inf": math.inf, "nan": math.nan, "np": np})  # noqa: S307
    except Exception:  # noqa: BLE001 - not an expression: compare as text below
        pass
    else:
        dtype_ok = (not isinstance(want, (np.ndarray, np.generic))
                    or getattr(got, "dtype", None) == want.dtype)
        if dtype_ok and equal(plain(got), plain(want)):
            return True
    return any(wildcard(text).fullmatch(s) for s in (repr(got), str(got), repr(plain(got))))


def run_python_block(code: str, filename: str, first_line: int, ns: dict[str, Any],
                     check: bool) -> None:
    """Runs a block statement by statement in ns, checking its claims when ``check``. Raises
    AssertionError naming the Markdown line on a failed claim."""
    claims, bare = claims_of(code)
    if check and bare:
        row, text = bare[0]
        raise AssertionError(f"{filename}:{first_line + row}: '# {text}' reads as a value but is "
                             "not checked: write '# -> {text}', or say it in words")
    tree = ast.parse(code, filename)
    ast.increment_lineno(tree, first_line)
    for stmt in tree.body:
        # The statement's lines, and the line right below it if a claim sits there alone.
        rows = range(stmt.lineno - first_line, stmt.end_lineno - first_line + 2)
        claim = next((claims[r] for r in rows if r in claims and (
            r <= stmt.end_lineno - first_line or claims[r].alone)), None) if check else None
        at = f"{filename}:{stmt.lineno}"
        if claim and claim.kind == "value":
            if not isinstance(stmt, ast.Expr):
                raise AssertionError(f"{at}: '# -> {claim.text}' follows a statement that is "
                                     "not an expression")
            got = eval(compile(ast.Expression(stmt.value), filename, "eval"), ns)  # noqa: S307
            if not value_matches(got, claim.text, ns):
                raise AssertionError(f"{at}: gives {got!r}; the README says -> {claim.text}")
            continue
        module = compile(ast.Module([stmt], type_ignores=[]), filename, "exec")
        if claim and claim.kind == "raises":
            name, _, message = claim.text.partition(":")
            expected = eval(name.strip(), ns)  # noqa: S307
            try:
                exec(module, ns)  # noqa: S102
            except expected as err:
                if message.strip() and not wildcard(message).fullmatch(str(err)):
                    raise AssertionError(f"{at}: raises {type(err).__name__}: {err}; the README "
                                         f"says {claim.text}") from None
                continue
            raise AssertionError(f"{at}: raises nothing; the README says raises {claim.text}")
        exec(module, ns)  # noqa: S102


def driver_main(spec_path: str) -> int:
    """The child process of a Python block: runs what it needs, then the block with its claims.
    Writes "ok" or the failure to the result file named in the spec."""
    import contextlib
    import traceback

    spec = json.loads(Path(spec_path).read_text())
    ns: dict[str, Any] = {"__name__": "__main__"}
    try:
        for part in spec["parts"]:
            quiet = part is not spec["parts"][-1]
            with contextlib.redirect_stdout(io.StringIO()) if quiet else contextlib.nullcontext():
                run_python_block(part["code"], part["file"], part["line"], ns, check=not quiet)
        result = "ok"
    except AssertionError as err:
        result = str(err)
    except BaseException:  # noqa: BLE001 - reported with its traceback
        result = traceback.format_exc()
    sys.stdout.flush()
    Path(spec["result"]).write_text(result)
    return 0


# ---- running ---------------------------------------------------------------------------------

def build_dir() -> Path:
    b = Path(os.environ.get("ZCAST_BUILD_DIR", "build/release"))
    return b if b.is_absolute() else REPO / b


def make_scratch(root: Path) -> Path:
    """A directory that looks like the repository root to a snippet (see the module doc)."""
    root.mkdir(parents=True, exist_ok=True)
    for entry in REPO.iterdir():
        if entry.name not in ("build", ".git"):
            (root / entry.name).symlink_to(entry)
    (root / "build").mkdir()
    (root / "build" / "release").symlink_to(build_dir())
    (root / "tmp").mkdir()
    return root


def redirect_tmp(code: str, scratch: Path) -> str:
    return re.sub(r"(?<![\w./-])/tmp/", f"{scratch}/tmp/", code)


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{REPO / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["ZCAST_BUILD_DIR"] = str(build_dir())
    env.pop("PYTHONPATH", None)
    return env


def python_program() -> str:
    venv = REPO / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def output_matches(expected: str, got: str) -> bool:
    lines = [ln.rstrip() for ln in expected.strip("\n").splitlines()]
    parts = []
    for ln in lines:
        parts.append(r"(?:[^\n]*\n)*?" if ln.strip() == "..." else
                     "[ \t]*" + r"[^\n]*?".join(
                         r"[ \t]+".join(map(re.escape, p.split())) for p in ln.split("..."))
                     + r"[ \t]*\n")
    return re.search(r"(?:^|\n)" + "".join(parts), "\n" + got.rstrip("\n") + "\n") is not None


def compile_c(block: Block, scratch: Path) -> tuple[list[str], str | None]:
    """The command that builds a complete C/C++ program, or the reason it cannot be built."""
    build = build_dir()
    libs = sorted(build.glob("libzcast.so*")) + sorted(build.glob("libzcast.a"))
    if not libs:
        return [], f"no libzcast in {build}"
    src = scratch / f"snippet_{block.line}.{'c' if block.lang == 'c' else 'cc'}"
    src.write_text(block.code)
    exe = scratch / f"snippet_{block.line}"
    compiler = "gcc" if block.lang == "c" else "g++"
    cmd = [compiler, "-I", str(REPO / "include"), str(src), "-o", str(exe), str(libs[0]),
           f"-Wl,-rpath,{build}", "-lhwy", "-lstdc++", "-lm", "-lpthread"]
    return cmd, None


def run_block(block: Block, scratch: Path, parts: list[Block]) -> str:
    """Runs one block (after the Python blocks it needs, for Python); returns what it printed.
    Raises AssertionError with the reason on failure."""
    env = environment()
    if block.lang == "python":
        spec = scratch / f"snippet_{block.line}.json"
        result = scratch / f"snippet_{block.line}.result"
        result.unlink(missing_ok=True)
        spec.write_text(json.dumps({"result": str(result), "parts": [
            {"code": redirect_tmp(p.code, scratch), "file": p.file, "line": p.line}
            for p in [*parts, block]]}))
        proc = subprocess.run([python_program(), __file__, "--run-block", str(spec)], cwd=scratch,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=block.timeout)
        outcome = result.read_text() if result.exists() else f"no result (exit {proc.returncode})"
        if outcome != "ok":
            raise AssertionError(f"{block.where}: {outcome}\n--- printed:\n{proc.stdout}")
        return proc.stdout
    if block.lang == "sh":
        cmd = ["bash", "-e", "-o", "pipefail", "-c", redirect_tmp(block.code, scratch)]
    else:
        if not re.search(r"\bint\s+main\s*\(", block.code):
            raise NotImplementedError("a fragment, not a complete program (no main)")
        cmd, why = compile_c(block, scratch)
        if why:
            raise AssertionError(f"{block.where}: cannot build the program: {why}")
        proc = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True,
                              timeout=block.timeout)
        if proc.returncode:
            raise AssertionError(f"{block.where}: does not compile:\n{proc.stderr}")
        cmd = [cmd[cmd.index("-o") + 1]]
    proc = subprocess.run(cmd, cwd=scratch, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=block.timeout)
    if proc.returncode:
        raise AssertionError(f"{block.where}: exit status {proc.returncode}\n--- printed:\n"
                             f"{proc.stdout}")
    return proc.stdout


def check_block(block: Block, scratch: Path, blocks: list[Block], done: dict[str, str]) -> None:
    """Runs the blocks ``block`` needs that have not run (done: name -> "ok" or the failure),
    then the block, and checks its output block."""
    by_name = {b.name: b for b in blocks if b.name}
    parts: list[Block] = []
    for n in block.needs:
        dep = by_name[n]
        if n not in done:
            try:
                check_block(dep, scratch, blocks, done)
            except BaseException as err:  # noqa: BLE001 - reported as the dependency's failure
                done[n] = str(err) or type(err).__name__
        if done[n] != "ok":
            raise AssertionError(f"{block.where} needs={n} ({dep.where}), which failed: {done[n]}")
        if dep.lang == "python" and block.lang == "python":
            parts.append(dep)
    try:
        printed = run_block(block, scratch, parts)
        if block.output is not None and not output_matches(block.output, printed):
            raise AssertionError(f"{block.where}: the output block at {block.file}:"
                                 f"{block.output_line} does not match what it printed:\n{printed}")
    except AssertionError as err:
        if block.name:
            done[block.name] = str(err)
        raise
    if block.name:
        done[block.name] = "ok"


if __name__ == "__main__" and sys.argv[1:2] == ["--run-block"]:
    sys.exit(driver_main(sys.argv[2]))

# ---- the tests -------------------------------------------------------------------------------

import pytest  # noqa: E402 - the driver above runs without pytest

ALL = [b for f in READMES for b in extract(f)]


@pytest.fixture(scope="module")
def scratch_dirs(tmp_path_factory):
    dirs = {f: make_scratch(tmp_path_factory.mktemp("readme") / "root") for f in READMES}
    yield dirs
    for d in dirs.values():
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def done() -> dict[str, dict[str, str]]:
    return {f: {} for f in READMES}


@pytest.mark.parametrize("block", ALL, ids=[f"{b.where}-{b.lang}" for b in ALL])
def test_snippet(block: Block, scratch_dirs, done) -> None:
    if block.skip:
        pytest.skip(f"{block.where}: not run ({block.skip})")
    try:
        check_block(block, scratch_dirs[block.file], [b for b in ALL if b.file == block.file],
                    done[block.file])
    except NotImplementedError as why:
        pytest.skip(f"{block.where}: {why}")
    except AssertionError as err:
        pytest.fail(str(err), pytrace=False)


def test_every_readme_has_blocks_that_run():
    for f in READMES:
        assert any(b.lang in ("python", "sh") and not b.skip for b in ALL if b.file == f), f


# ---- the runner itself: each check can fail ----------------------------------------------------

SAMPLE = """\
Intro.

```python
import numpy as np
x = 2
np.array([1, 2]) * x        # -> [2, 4]
np.float32(0.5)             # -> np.float32(0.5)
{"a": [1, 2, 3]}            # -> {'a': [1, ...]}
int("x")                    # raises ValueError: invalid literal ...
int("y")
                            # raises ValueError: invalid literal for int() with base 10: 'y'
```

<!-- snippet: not run (installs packages) -->
```sh
pip install something
```

<!-- snippet: name=first -->
```sh
echo hello > /tmp/greeting
```

```output
...
```

<!-- snippet: needs=first -->
```sh
cat /tmp/greeting
```

```output
hello
```

```c
zcast_codec* codec = NULL;
```
"""


def test_runner_extracts_directives_and_outputs():
    blocks = extract("SAMPLE.md", SAMPLE)
    assert [(b.lang, b.line) for b in blocks] == [("python", 3), ("sh", 15), ("sh", 20),
                                                    ("sh", 29), ("c", 37)]
    assert blocks[1].skip == "installs packages"
    assert blocks[2].name == "first" and blocks[3].needs == ("first",)
    assert blocks[3].output.strip() == "hello"


def test_runner_passes_true_claims_and_fails_false_ones(tmp_path):
    blocks = extract("SAMPLE.md", SAMPLE)
    scratch = make_scratch(tmp_path / "root")
    done: dict[str, str] = {}
    check_block(blocks[0], scratch, blocks, done)
    check_block(blocks[3], scratch, blocks, done)  # runs "first" on its own
    assert done == {"first": "ok"}
    assert (scratch / "tmp" / "greeting").read_text() == "hello\n"  # /tmp/ redirected
    with pytest.raises(NotImplementedError, match="fragment"):
        check_block(blocks[4], scratch, blocks, done)
    for old, wrong in (("np.array", "np.array([1, 2]) * x        # -> [2, 5]"),
                       ("np.float", "np.float32(0.5)             # -> np.float64(0.5)"),
                       ('{"a"', '{"a": [1, 2, 3]}            # -> {\'a\': [2, ...]}'),
                       ("int(", 'int("x")                    # raises TypeError: invalid ...'),
                       ("int(", 'int("x")                    # raises ValueError: no such'),
                       ("int(", 'int("1")                    # raises ValueError'),
                       ("int(\"y", 'int("z")'),
                       ("np.array", "np.array([1, 2]) * x        # [2, 4]")):
        line = next(ln for ln in blocks[0].code.splitlines() if ln.startswith(old))
        bad = Block("SAMPLE.md", 3, "python", blocks[0].code.replace(line, wrong))
        with pytest.raises(AssertionError, match=r"SAMPLE\.md:[0-9]+: "):
            check_block(bad, scratch, blocks, done)
    bad_output = dataclasses.replace(blocks[3], output="goodbye\n")
    with pytest.raises(AssertionError, match="does not match"):
        check_block(bad_output, scratch, blocks, done)
    failing = dataclasses.replace(blocks[2], code="false\n", name="broken")
    with pytest.raises(AssertionError, match="exit status 1"):
        check_block(failing, scratch, [failing, dataclasses.replace(blocks[3], needs=("broken",))],
                    {})
    with pytest.raises(AssertionError, match="needs=broken .* which failed"):
        check_block(dataclasses.replace(blocks[3], needs=("broken",)), scratch,
                    [failing, blocks[3]], {})


def test_runner_rejects_unknown_directives_and_dangling_needs():
    with pytest.raises(ValueError, match="unknown snippet directive"):
        extract("X.md", "<!-- snippet: skip -->\n```sh\ntrue\n```\n")
    with pytest.raises(ValueError, match="needs=nothing"):
        extract("X.md", "<!-- snippet: needs=nothing -->\n```sh\ntrue\n```\n")
