#!/usr/bin/env python3
"""Per-step critical-path breakdown of a two-node run traced with -Dparreg.step-trace=PREFIX.

usage: scripts/bench/step-trace.py PREFIX [FROM_STEP [TO_STEP]]   (default: steps after 200, warm-up excluded)
Reads PREFIX0 and PREFIX1 (written by each node at its target step; see actors/.../StepTrace.java).
"""
import statistics as st
import sys


def load(f):
    d, cpu = {}, None
    for line in open(f):
        if line.startswith('#'):
            cpu = line.split()[-1]
            continue
        p = list(map(int, line.split()))
        d[p[0]] = p[1:]
    return d, cpu


prefix = sys.argv[1]
lo = int(sys.argv[2]) if len(sys.argv) > 2 else 200
hi = int(sys.argv[3]) if len(sys.argv) > 3 else 10**9
a, cpu_a = load(prefix + '0')
b, cpu_b = load(prefix + '1')
steps = [s for s in sorted(set(a) & set(b)) if lo < s <= hi and all(a[s]) and all(b[s])]
names = ['step start -> GPU actor', 'GPU launch + fence', 'GPU actor -> training', 'training -> peer (publish, send)',
         'publish -> full set (waits for peer)', 'peer -> training (StepReady)', 'StepReady -> committed']


def intervals(t):
    return [t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3], t[6] - t[4], t[7] - t[6], t[8] - t[7]]


for name, d, other, cpu in (('node 0', a, b, cpu_a), ('node 1', b, a, cpu_b)):
    rows = [intervals(d[s]) for s in steps]
    print('%s: %d steps (%d..%d), process CPU per step %s us' % (name, len(rows), steps[0], steps[-1], cpu))
    for i, n in enumerate(names):
        col = sorted(r[i] / 1000 for r in rows)
        print('  %-38s median %6.0f us  mean %6.0f  p90 %6.0f' % (n, col[len(col) // 2], st.mean(col), col[int(.9 * len(col))]))
    col = sorted((d[s][5] - other[s][4]) / 1000 for s in steps)
    print('  %-38s median %6.0f us  mean %6.0f  p90 %6.0f' % ("peer's send -> received here", col[len(col) // 2], st.mean(col), col[int(.9 * len(col))]))
    col = sorted((d[s][8] - d[s][0]) / 1000 for s in steps)
    print('  %-38s median %6.0f us  mean %6.0f' % ('whole step', col[len(col) // 2], st.mean(col)))
rate = (len(steps) - 1) * 1e9 / (a[steps[-1]][8] - a[steps[0]][8])
print('steps/s over these steps (node 0): %.0f' % rate)
