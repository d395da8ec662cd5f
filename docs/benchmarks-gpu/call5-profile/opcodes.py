import csv, sys, collections
f=sys.argv[1]
rows=list(csv.reader(open(f)))
hdr=rows[1]; data=rows[2:]
ix={h:i for i,h in enumerate(hdr)}
stalls=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
byop=collections.Counter(); samp=collections.Counter(); st=collections.Counter()
tot=0; totsamp=0
for r in data:
    if len(r)<len(hdr): continue
    src=r[ix['Source']].strip()
    op=src.split()[0] if src else '?'
    if op.startswith('@'): op=src.split()[1]
    op=op.split('.')[0]
    n=int(r[ix['Instructions Executed']] or 0)
    s=int(r[ix['Warp Stall Sampling (All Samples)']] or 0)
    byop[op]+=n; samp[op]+=s; tot+=n; totsamp+=s
    for h in stalls: st[h]+=int(r[ix[h]] or 0)
print('total warp instr',tot,'samples',totsamp)
for op,n in byop.most_common(25): print(f'{op:10s} {n:12d} {n/tot*100:5.1f}%  samples {samp[op]/totsamp*100:5.1f}%')
print('stalls:')
for h,n in st.most_common(12): print(f'  {h:25s} {n/totsamp*100:5.1f}%')
