import csv, collections, sys
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[1]; ix={h:i for i,h in enumerate(hdr)}
data=[r for r in rows[2:] if len(r)>=len(hdr)]
stalls=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
grp=collections.defaultdict(lambda:[0,0,collections.Counter()])
tot=0
for r in data:
    n=int(r[ix['Instructions Executed']] or 0); s=int(r[ix['Warp Stall Sampling (All Samples)']] or 0)
    tot+=s
    g=grp[n]
    g[0]+=1; g[1]+=s
    for h in stalls: g[2][h]+=int(r[ix[h]] or 0)
print('total samples',tot)
for n,(cnt,s,st) in sorted(grp.items(), key=lambda kv:-kv[1][1])[:12]:
    print(f'exec={n:9d} instrs={cnt:5d} samples={s:6d} ({s/tot*100:4.1f}%)', ' '.join(f'{h[6:]}={v*100//max(s,1)}%' for h,v in st.most_common(4)))
