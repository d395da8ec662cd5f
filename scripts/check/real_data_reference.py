#!/usr/bin/env python3
"""Least-squares references of the real datasets in src/test/resources/realdata (RealDataTest).

For each dataset (file, label; the features are every other column, an intercept is fitted) it
computes, from the CSV text parsed to binary64 (Python's float: correctly rounded):
  - numpy.linalg.lstsq of [X, 1] (LAPACK gelsd, binary64): the reference the test compares with;
  - the exact least-squares solution of the same binary64 values (rational arithmetic, fractions),
    rounded once to binary64, to show how far numpy's own rounding is from it;
  - the 2-norm condition number of [X, 1] and of its column-scaled form.
It writes reference.csv next to the data (committed). Run: python3 scripts/check/real_data_reference.py
"""
import csv
import os
from fractions import Fraction

import numpy as np

HERE = os.path.join(os.path.dirname(__file__), "..", "..", "src", "test", "resources", "realdata")
DATASETS = [
    ("longley.csv", "Employed"),
    ("diabetes.csv", "target"),
    ("mtcars.csv", "mpg"),
    ("swiss.csv", "Fertility"),
    ("stackloss.csv", "stack.loss"),
    ("LifeCycleSavings.csv", "sr"),
]


def read(path, label):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    li = head.index(label)
    feats = [c for c in range(len(head)) if c != li]
    x = [[float(r[c]) for c in feats] for r in body]
    y = [float(r[li]) for r in body]
    return [head[c] for c in feats], x, y


def exact(x, y):
    """The exact least-squares parameters of [x, 1] (normal equations in rationals)."""
    a = [[Fraction(v) for v in row] + [Fraction(1)] for row in x]
    b = [Fraction(v) for v in y]
    p = len(a[0])
    g = [[sum(r[i] * r[j] for r in a) for j in range(p)] for i in range(p)]
    h = [sum(r[i] * bv for r, bv in zip(a, b)) for i in range(p)]
    for k in range(p):  # Gauss-Jordan, exact
        piv = next(i for i in range(k, p) if g[i][k] != 0)
        g[k], g[piv] = g[piv], g[k]
        h[k], h[piv] = h[piv], h[k]
        for i in range(p):
            if i != k and g[i][k] != 0:
                f = g[i][k] / g[k][k]
                g[i] = [gi - f * gk for gi, gk in zip(g[i], g[k])]
                h[i] -= f * h[k]
    return [float(h[i] / g[i][i]) for i in range(p)]


def main():
    out = [["dataset", "label", "parameter", "numpy_lstsq", "exact_binary64", "cond", "cond_scaled"]]
    for name, label in DATASETS:
        names, x, y = read(os.path.join(HERE, name), label)
        a = np.hstack([np.array(x), np.ones((len(x), 1))])
        w = np.linalg.lstsq(a, np.array(y), rcond=None)[0]
        e = exact(x, y)
        cond = np.linalg.cond(a)
        cond_s = np.linalg.cond(a / np.linalg.norm(a, axis=0))
        worst = max(abs(wi - ei) / abs(ei) for wi, ei in zip(w, e))
        print(f"{name:22s} n={len(x):4d} d={len(names):2d} cond={cond:9.3g} scaled={cond_s:9.3g}"
              f" numpy vs exact: {worst:.2e}")
        for k, n in enumerate(names + ["(intercept)"]):
            out.append([name, label, n, repr(float(w[k])), repr(e[k]), f"{cond:.6g}", f"{cond_s:.6g}"])
    with open(os.path.join(HERE, "reference.csv"), "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(out)


if __name__ == "__main__":
    main()
