#!/usr/bin/env python3
# The sector model's output (box-sectors-i8-2026-12-05.txt) against two suite runs of the same plans
# on two cards: Pearson r of each model column (and of log min(run_in, run_out)) with the first
# run's GB/s, the GB/s ratio of the two, and the second run's % of copy; then one row per case,
# slowest first. docs/performance.md, sixty-third session:
#   python3 box-sectors-corr-2026-12-05.py box-sectors-i8-2026-12-05.txt \
#     suite-i8-2026-12-05-h200-628413d.json suite-i8-2026-12-05-h100-1264b9c-b.json
import json, math, statistics as st, sys
def load(f): return {(','.join(map(str,r['extents'])),','.join(map(str,r['perm']))):r for r in json.load(open(f))['results']}
a=load(sys.argv[2]); b=load(sys.argv[3])
rows=[]
for l in open(sys.argv[1]):
    f=l.split()
    if f[2]=='none': continue
    kv=dict(x.split('=') for x in f[2:])
    k=(f[0],f[1])
    if k not in a or k not in b: continue
    ca=a[k]['gbps']/a[k]['pct_of_copy']; cb=b[k]['gbps']/b[k]['pct_of_copy']
    rows.append(dict(case=k,h200=a[k]['pct_of_copy'],gb=a[k]['gbps'],ratio=a[k]['gbps']/b[k]['gbps'],h100=b[k]['pct_of_copy'],
      rd=float(kv['rd']),wr=float(kv['wr']),wpart=float(kv['wpart']),amp=(float(kv['rd'])+float(kv['wr']))/2,
      minrun=min(int(kv['run_in']),int(kv['run_out'])),words=int(kv['words'])))
def r(x,y):
    mx,my=st.mean(x),st.mean(y); sx=sum((i-mx)**2 for i in x)**.5; sy=sum((j-my)**2 for j in y)**.5
    return sum((i-mx)*(j-my) for i,j in zip(x,y))/sx/sy
print(len(rows),'cases')
for key in ['rd','wr','wpart','amp','minrun']:
    xs=[q[key] for q in rows]
    if key=='minrun': xs=[math.log(v) for v in xs]
    print(f"{key:7s} r(H200 GB/s)={r(xs,[q['gb'] for q in rows]):+.2f} r(H200/H100)={r(xs,[q['ratio'] for q in rows]):+.2f} r(H100 %)={r(xs,[q['h100'] for q in rows]):+.2f}")
for q in sorted(rows,key=lambda q:q['gb']):
    print(f"{q['gb']:6.0f} {q['h200']:5.1f} {q['h100']:5.1f} {q['ratio']:.2f} amp={q['amp']:.3f} rd={q['rd']:.3f} wr={q['wr']:.3f} wpart={q['wpart']:.2f} minrun={q['minrun']} w={q['words']} {q['case'][0]} {q['case'][1]}")
