#!/usr/bin/env python3
"""Measures the front end on CUDA sources nobody here wrote (see scripts/real-world.sh).

For every `.cu` file under the given directories:
  1. plain nvcc compiles it for sm_90 (the reference; a file nvcc alone cannot compile is
     listed as such and not counted),
  2. `cuda-kernel-inspect fatbin --json` reads the reference cubin's own kernel records,
  3. `cuda-kernel-inspect build FILE --arch sm_90 --json` runs the whole pipeline,
  4. every kernel of the cubin must be in the built module with the same symbol and the
     same (offset, size) list: typed (declared by the front end, layouts predicted and
     equal) or by name only (untyped, with the image's layout); the table counts each,
  5. with --default-targets, the build is repeated for the default target list.

Prints a Markdown table per directory and a total; --json-out writes every result.
"""

import argparse
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s"


def first_error(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if "error" in l:
            return l[:240]
    return (lines[0] if lines else "no output")[:240]


# Symbols of internal-linkage entities carry a hash of the compilation
# (`_ZN44_INTERNAL_ce623e86_8_unary_cu_70e8be05_1...`) that differs between two nvcc
# command lines: compare them without it.
INTERNAL = re.compile(r"(\d+)_INTERNAL_")

# Kernels the toolkit's own libraries instantiate inside their headers (CUB, Thrust,
# libcu++): not the user's declarations, so not part of the module's API.
LIBRARY = ("_ZN3cub", "_ZN6thrust", "_ZN4cuda")


def canonical(symbol):
    # The length prefix says where the mangled identifier `_INTERNAL_<hash>...` ends.
    out, pos = [], 0
    for m in INTERNAL.finditer(symbol):
        if m.start() < pos:
            continue
        end = m.start(1) + len(m.group(1)) + int(m.group(1))
        out.append(symbol[pos:m.start()] + "_INTERNAL_")
        pos = end
    out.append(symbol[pos:])
    return "".join(out)


def cubin_kernels(inspect, fatbin):
    code, out, err = run([inspect, "fatbin", str(fatbin), "--json"], 300)
    if code != 0:
        return None, first_error(err)
    doc = json.loads(out)
    kernels = {}
    for e in doc.get("entries", []):
        img = e.get("image") or {}
        for k in img.get("kernels", []):
            slots = sorted(k["params"], key=lambda p: p["ordinal"])
            kernels[canonical(k["symbol"])] = [(p["offset"], p["size"]) for p in slots]
    return kernels, None


def measure(args, path, root):
    rel = os.path.relpath(path, root) if Path(root).is_dir() else Path(path).name
    inc = []
    for d in args.include:
        inc += ["-I", d]
    inc += ["-I", str(Path(path).parent)]
    row = {"file": rel, "cubin": 0, "declared": 0, "library": 0, "sm90": "", "default": "", "note": ""}
    with tempfile.TemporaryDirectory() as tmp:
        ref = Path(tmp) / "ref.fatbin"
        t0 = time.time()
        code, _, err = run(
            [args.nvcc, "-fatbin", "-gencode", f"arch=compute_{args.arch[3:]},code={args.arch}", f"-std={args.std}",
             *inc, *args.define_flags, *args.nvcc_flag, str(path), "-o", str(ref)], args.timeout)
        row["nvcc_s"] = round(time.time() - t0, 1)
        if code != 0:
            row["sm90"] = "n/a"
            row["note"] = "nvcc alone fails: " + first_error(err)
            return row
        kernels, why = cubin_kernels(args.inspect, ref)
        if kernels is None:
            row["note"] = "cannot read the reference: " + why
            return row
        library = [s for s in kernels if s.startswith(LIBRARY)]
        for s in library:
            del kernels[s]
        row["library"] = len(library)
        row["cubin"] = len(kernels)
        build = [args.inspect, "build", str(path), "--no-cache", "--json",
                 "--flag", f"-std={args.std}", *inc]
        for f in args.nvcc_flag:
            build += ["--flag", f]
        for d in args.define:
            build += ["-D", d]
        t0 = time.time()
        code, out, err = run(build + ["--arch", args.arch], args.timeout)
        row["build_s"] = round(time.time() - t0, 1)
        if code != 0 and not kernels and "declares no `__global__` kernel" in err:
            row["sm90"] = "no kernels"
            row["note"] = "no kernel of its own (host code only, or library kernels only)"
        elif code != 0:
            row["sm90"] = "fail"
            row["note"] = first_error(err)
        else:
            row["sm90"] = "ok"
            info = json.loads(out)["info"]
            declared = {
                canonical(k["symbol"]): [(p["layout"]["offset"], p["layout"]["size"]) for p in k["params"]]
                for k in info["kernels"]
            }
            equal = [s for s, slots in kernels.items() if declared.get(s) == slots]
            row["declared"] = len(equal)
            # Typed kernels with a parameter of an opaque type (measured by nvcc).
            opaque_types = {st["name"] for st in info.get("structs", []) if st.get("opaque")}

            def names_opaque(ty):
                if isinstance(ty, dict):
                    if "Struct" in ty:
                        return ty["Struct"] in opaque_types
                    inner = ty.get("Pointer", {}).get("pointee") or ty.get("Array", {}).get("elem")
                    return inner is not None and names_opaque(inner)
                return False

            with_opaque = {
                canonical(k["symbol"]) for k in info["kernels"]
                if any(names_opaque(p["ty"]) for p in k["params"])
            }
            row["opaque"] = len([s for s in equal if s in with_opaque])
            # Kernels without a typed declaration: in the module with the image's layout.
            untyped = {
                canonical(u["symbol"]): [(l["offset"], l["size"]) for l in u["params"]]
                for u in info.get("untyped", [])
            }
            by_name = [s for s, slots in kernels.items() if s not in equal and untyped.get(s) == slots]
            row["untyped"] = len(by_name)
            missing = [s for s in kernels if s not in equal and s not in by_name]
            if missing:
                row["note"] = f"{len(missing)} missing, e.g. {missing[0][:80]}"
            elif by_name:
                why = next(u["why"] for u in info["untyped"] if canonical(u["symbol"]) == by_name[0])
                row["note"] = f"by name only, e.g. {by_name[0][:60]}: {why[:100]}"
            if info.get("skipped"):
                row["skipped"] = len(info["skipped"])
        if args.default_targets:
            code, _, err = run(build, args.timeout * 4)
            row["default"] = "ok" if code == 0 else "fail: " + first_error(err)
    return row


def report(results, dirs):
    """Prints a Markdown table per directory and the total."""
    grand = [0, 0, 0, 0, 0]
    for d in dirs:
        rows = sorted(results.get(d, []), key=lambda r: r["file"])
        print(f"\n### `{d}`\n")
        print("| file | cubin kernels | typed, equal layouts | of which opaque parameters | by name only | library kernels | sm_90 build | default targets | note |")
        print("|---|---:|---:|---:|---:|---:|---|---|---|")
        for r in rows:
            note = r["note"].replace("|", "\\|")
            if r.get("skipped"):
                note = (note + "; " if note else "") + f"{r['skipped']} declaration(s) skipped"
            print(f"| {r['file']} | {r['cubin']} | {r['declared']} | {r.get('opaque', 0)} | {r.get('untyped', 0)} | {r.get('library', 0)} | {r['sm90']} | {r['default'] or '-'} | {note} |")
        counted = [r for r in rows if r["sm90"] != "n/a"]
        cubin = sum(r["cubin"] for r in counted)
        declared = sum(r["declared"] for r in counted)
        untyped = sum(r.get("untyped", 0) for r in counted)
        opaque = sum(r.get("opaque", 0) for r in counted)
        ok = sum(1 for r in counted if r["sm90"] in ("ok", "no kernels"))
        library = sum(r.get("library", 0) for r in counted)
        pct = 100.0 * (declared + untyped) / cubin if cubin else 100.0
        typed_pct = 100.0 * declared / cubin if cubin else 100.0
        # Build time against plain nvcc, summed over the files both compiled.
        timed = [r for r in counted if r.get("build_s") is not None]
        nvcc_s = sum(r.get("nvcc_s", 0) for r in timed)
        build_s = sum(r["build_s"] for r in timed)
        ratio = f"{build_s / nvcc_s:.2f}x" if nvcc_s else "-"
        print(f"\n**{d}**: {len(rows)} files, {len(rows) - len(counted)} not compilable by nvcc alone; "
              f"{ok}/{len(counted)} build (or have no kernel of their own); {declared + untyped}/{cubin} cubin kernels "
              f"in the module with equal layouts ({pct:.2f}%), {declared} typed ({typed_pct:.2f}%; {opaque} of them with opaque parameters), {untyped} by name only; "
              f"{library} toolkit-library kernels not counted; build {build_s:.1f} s against plain nvcc's {nvcc_s:.1f} s ({ratio})")
        grand = [grand[0] + len(counted), grand[1] + ok, grand[2] + declared, grand[3] + cubin, grand[4] + untyped]
    pct = 100.0 * (grand[2] + grand[4]) / grand[3] if grand[3] else 100.0
    typed_pct = 100.0 * grand[2] / grand[3] if grand[3] else 100.0
    print(f"\n**total**: {grand[1]}/{grand[0]} files build; {grand[2] + grand[4]}/{grand[3]} cubin kernels in the module "
          f"with equal layouts ({pct:.2f}%), {grand[2]} typed ({typed_pct:.2f}%)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="*", help="directories (or single files) of third-party CUDA sources")
    ap.add_argument("-I", "--include", action="append", default=[], help="include directory for every file")
    ap.add_argument("-D", "--define", action="append", default=[], help="NAME[=VALUE] for every file")
    ap.add_argument("--nvcc-flag", action="append", default=[], help="an nvcc flag for every file (both compiles)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--default-targets", action="store_true", help="also build for the default targets")
    ap.add_argument("--arch", default="sm_90", help="the one target of both compiles (sm_90, sm_90a)")
    ap.add_argument("--std", default="c++17", help="the C++ standard of both compiles (c++17, c++20)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per compile")
    ap.add_argument("--inspect", help="the cuda-kernel-inspect binary")
    ap.add_argument("--nvcc", help="the nvcc for the reference compile")
    ap.add_argument("--json-out", help="write every result here")
    ap.add_argument("--from-json", help="print the tables of a result written by --json-out, and stop")
    args = ap.parse_args()
    if args.from_json:
        results = json.loads(Path(args.from_json).read_text())
        report(results, list(results))
        return
    if not args.dirs or not args.inspect or not args.nvcc:
        ap.error("directories, --inspect and --nvcc are needed to measure")
    args.define_flags = ["-D" + d for d in args.define]
    jobs = []
    for d in args.dirs:
        files = [Path(d)] if Path(d).is_file() else sorted(Path(d).rglob("*.cu"))
        jobs += [(d, f) for f in files]
    results = {}
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futs = {pool.submit(measure, args, f, d): (d, f) for d, f in jobs}
        for fut in cf.as_completed(futs):
            d, f = futs[fut]
            results.setdefault(d, []).append(fut.result())
            print(f"  done {f}", file=sys.stderr)
    report(results, args.dirs)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
