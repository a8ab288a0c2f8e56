"""The ranked table and the size-against-error plot of a zcast.advise result."""

from __future__ import annotations

from typing import Any

from zcast._cli_common import _human, _table


def _err(x: float | None) -> str:
    if x is None:
        return "inf"
    return "0" if x == 0 else f"{x:.3g}"


def _specials(c: dict[str, Any]) -> str:
    flags = [v for v in (c["nan_preserved"], c["inf_preserved"]) if v is not None]
    if not flags:
        return "-"
    if all(flags) and not c["sentinel_collisions"]:
        return "kept"
    if c["sentinel_collisions"]:
        return f"{c['sentinel_collisions']} collide"
    return "lost"


def _meets(c: dict[str, Any]) -> str:
    if c["meets"]:
        return "yes"
    if c["failure"]:
        return "no (fails)"
    if c["lost"]:
        return f"no ({c['lost']} lost)"
    return "no"


def basis_line(advice: Any) -> str:
    b = advice.basis
    if not b["sampled"]:
        return (f"measured on the whole array: {b['chunks']} chunks, {b['elements']} elements "
                f"(every figure exact)")
    return (f"measured on a random sample of {b['chunks_measured']} of {b['chunks']} chunks "
            f"({b['fraction']:.1%} requested, seed {b['seed']}; {b['elements_measured']} of "
            f"{b['elements']} elements): errors are those of the sampled chunks, stored bytes "
            f"the sampled chunks' x {b['chunks'] / b['chunks_measured']:.2f} (+ shard indexes); "
            f"the range and NaN/Inf the encodings are derived from cover the whole array")


def table(advice: Any) -> str:
    """The ranked candidates, the reference and the ruled-out types, as text."""
    src = advice.source
    rows = []
    for i, c in enumerate(advice.candidates, 1):
        stored = "-" if c["stored_bytes"] is None else _human(c["stored_bytes"])
        ratio = "-" if c["ratio"] is None else f"{c['ratio']:.2f}"
        enc = "-" if c["encode_mb_s"] is None else f"{c['encode_mb_s']:.0f}"
        dec = "-" if c["decode_mb_s"] is None else f"{c['decode_mb_s']:.0f}"
        label = c["label"] + ("" if not c["sentinels"] else " " + ", ".join(
            f"{s}->{_num(v)}" for s, v in c["sentinels"]))
        rows.append([str(i), label, stored, ratio, _err(c["max_abs_error"]),
                     _err(c["rms_abs_error"]), _err(c["max_rel_error"]), _specials(c), enc, dec,
                     _meets(c)])
    ref = advice.reference
    rows.append(["", ref["label"], _human(ref["stored_bytes"]),
                 "-" if ref["ratio"] is None else f"{ref['ratio']:.2f}", "0", "0", "0",
                 "kept" if (src["nan"] or src["posinf"] or src["neginf"]) else "-", "-", "-",
                 "(reference)"])
    head = ["#", "encoding", "stored", "ratio", "max abs err", "RMS abs err", "max rel err",
            "NaN/Inf", "enc MB/s", "dec MB/s", "meets"]
    lines = [
        f"{src['name']}: {' x '.join(map(str, src['shape']))} {src['data_type']}, chunks "
        f"{' x '.join(map(str, src['chunks']))}"
        + (f" in shards {' x '.join(map(str, src['shards']))}" if src["shards"] else "")
        + f", {src['valid']} valid, {src['nan']} NaN, {src['posinf'] + src['neginf']} +-Inf; "
        f"range {_num(src['min'])} .. {_num(src['max'])}",
        f"bound: {advice.bound.option()}; compressor kept: "
        + " + ".join(c["name"] for c in src["compressors"]),
        basis_line(advice), "",
        _table(head, rows, left=(1, -1)), "",
        "ratio: the array's raw bytes / stored bytes; errors over the valid (finite) elements, "
        "computed exactly in float64; MB/s: the array's bytes through zcast's encode / decode "
        "per thread (the machine's load counts).",
    ]
    failed = [c for c in advice.candidates if c["failure"]]
    for c in failed:
        lines.append(f"  {c['label']} fails: {c['failure']}")
    if advice.ruled_out:
        lines += ["", "ruled out before measuring:"]
        lines += [f"  {r['label']}: {r['reason']}" for r in advice.ruled_out]
    return "\n".join(lines)


def _num(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.7g}" if isinstance(v, float) else str(v)


def plot(advice: Any, path: str) -> None:
    """Stored bytes against max error (the bound's kind) for every candidate, the bound marked.
    Raises ImportError with a clear message when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("--plot needs matplotlib: pip install matplotlib "
                          "(or pip install 'zcast[advise]')") from None
    kind = advice.bound.kind
    key = f"max_{kind}_error"
    pts = [c for c in advice.candidates if c["stored_bytes"] is not None]
    finite = [c[key] for c in pts if c[key] is not None and c[key] > 0]
    floor = min(finite + [advice.bound.value or 1.0]) / 30 if finite or advice.bound.value else 1e-9
    ceiling = max(finite + [advice.bound.value or floor]) * 30
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    for c in pts:
        e = c[key]
        x = floor if e == 0 else ceiling if e is None else e
        rec = advice.recommended is not None and c["label"] == advice.recommended["label"]
        ax.scatter([x], [c["stored_bytes"] / 2**20], s=90 if rec else 30,
                   marker="*" if rec else ("D" if e == 0 else "x" if e is None else "o"),
                   color="tab:green" if c["meets"] else "tab:red", zorder=3)
        ax.annotate(c["data_type"] + (" so" if c["family"] != "float" else ""), (x, c["stored_bytes"] / 2**20),
                    textcoords="offset points", xytext=(4, 3), fontsize=7)
    ax.axvline(advice.bound.value if advice.bound.value > 0 else floor, color="tab:blue",
               linestyle="--", label=f"bound: {advice.bound.option()}")
    ref = advice.reference["stored_bytes"] / 2**20
    ax.axhline(ref, color="grey", linestyle=":", label=f"{advice.reference['label']}")
    ax.set_xscale("log")
    ax.set_xlabel(f"max {'absolute' if kind == 'abs' else 'relative'} error "
                  f"(exact at the left edge, failed at the right)")
    ax.set_ylabel("stored MiB" + (" (estimated from a sample)" if advice.basis["sampled"] else ""))
    ax.set_title(f"zcast advise: {advice.source['name']}", fontsize=9)
    ax.scatter([], [], color="tab:green", label="meets the bound")
    ax.scatter([], [], color="tab:red", label="does not")
    ax.scatter([], [], marker="*", s=90, color="tab:green", label="recommended")
    ax.legend(fontsize=7, loc="best")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
