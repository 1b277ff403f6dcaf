#!/usr/bin/env python3
"""Leave-one-curve-out check of the fused-MoE lookup (src/hw/moetab.c), replicated
in Python: every measured curve with MoE TP x EP > 1 (power law 1.01, every
collection of H100/H200/B200 in data/mfu) is predicted from the others of its
collection by
  a: the nearest shape's efficiency (moetab_pick's shape distance), as before;
  b: a, capped by the same model's experts measured less sharded (TP' <= TP,
     EP' <= EP, fewer GPUs): moetab_bound_s, the lookup since issue 9 part 3;
  c: the same model's less-sharded curve's efficiency instead (rejected).
Prints per rule the median and 90th percentile |log(predicted / measured)| and
the share of rows off by more than 1.5x.

usage: python3 scripts/mfu/check_moe_cap.py   (from the repository root)
"""
import gzip, csv, math, glob, statistics as st, bisect
# dense bf16, fp8 peak and HBM bandwidth (data/gpus.json)
PEAK={'h100_sxm':(989.4e12,1978.9e12,3.35e12),'h200_sxm':(989.4e12,1978.9e12,4.8e12),'b200_sxm':(2250e12,4500e12,8e12)}
def fmt_rates(f,g):
    b,f8,bw=PEAK[g]
    if f in('fp8','fp8_block'): return f8,1.0
    if f in('fp4',): return 9000e12,0.5
    if f in('int4','mxfp4'): return b,0.5
    return b,2.0
def roof(s,tok,pk,bpp,bw):
    h,i,k,e,tp,ep=s
    el=e/ep; w=i/tp; assign=tok*k/ep
    touched=el*(1-(1-1/e)**(tok*k))
    fl=6*assign*h*w; by=touched*3*h*w*bpp+assign*(2*h+3*w)*2
    return max(fl/pk,by/bw)
def dist(a,b):
    wa=a[1]/a[4]; wb=b[1]/b[4]; va=wa*a[3]/a[5]; vb=wb*b[3]/b[5]
    return abs(math.log(a[0]/b[0]))+abs(math.log(va/vb))+0.3*abs(math.log(wa/wb))+0.5*abs(math.log(a[2]/b[2]))+0.25*abs(math.log(a[3]/b[3]))+0.1*abs(math.log(a[4]/b[4]))
def effat(c,x):
    xs,ls=c
    if x<=xs[0]: return math.exp(ls[0])
    if x>=xs[-1]: return math.exp(ls[-1])
    j=bisect.bisect_right(xs,x); lo=j-1; hi=j
    return math.exp(ls[lo]+(ls[hi]-ls[lo])*(x-xs[lo])/(xs[hi]-xs[lo]))
res={'a':[],'b':[],'c':[]}
for path in sorted(glob.glob('data/mfu/*_sxm/*/moe.csv.gz')):
    g=path.split('/')[-3]
    if g not in PEAK: continue
    curves={}
    with gzip.open(path,'rt') as f:
        for r in csv.DictReader(l for l in f if not l.startswith('#')):
            if r['distribution']!='power_law_1.01': continue
            s=tuple(float(r[k]) for k in ('hidden','inter','topk','experts','moe_tp','moe_ep'))
            if s[3]<s[5] or s[1]<s[4]: continue
            curves.setdefault((r['dtype'],s),[]).append((float(r['tokens']),float(r['latency_us'])*1e-6))
    C={}
    for (f,s),pts in curves.items():
        pk,bpp=fmt_rates(f,g); bw=PEAK[g][2]
        pts.sort(); xs=[math.log(t*s[2]/s[3]) for t,_ in pts]; ls=[math.log(roof(s,t,pk,bpp,bw)/l) for t,l in pts]
        C[(f,s)]=(xs,ls,pts)
    for (f,s),(xs,ls,pts) in C.items():
        if s[4]*s[5]<=1: continue
        pk,bpp=fmt_rates(f,g); bw=PEAK[g][2]
        others=[(dist(s,s2),(f2,s2)) for (f2,s2) in C if f2==f and s2!=s]
        if not others: continue
        d,kb=min(others)
        same=[(f2,s2) for (f2,s2) in C if f2==f and s2!=s and s2[:4]==s[:4] and s2[4]<=s[4] and s2[5]<=s[5] and s2[4]*s2[5]<s[4]*s[5]]
        cap=max(same,key=lambda k:k[1][4]*k[1][5]) if same else None
        for t,l in pts:
            x=math.log(t*s[2]/s[3])
            pa=roof(s,t,pk,bpp,bw)/effat(C[kb][:2],x)
            pb=pa; pc=pa
            if cap:
                tc=roof(cap[1],t,pk,bpp,bw)/effat(C[cap][:2],x)
                pb=min(pa,tc)
                pc=roof(s,t,pk,bpp,bw)/effat(C[cap][:2],x)
            for k,p in (('a',pa),('b',pb),('c',pc)):
                res[k].append(abs(math.log(p/l)))
for k,v in res.items():
    print(k, 'n', len(v), 'median |log|', round(st.median(v),3), 'p90', round(sorted(v)[int(.9*len(v))],3), '>1.5x', round(sum(x>math.log(1.5) for x in v)/len(v),3))
