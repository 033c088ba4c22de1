#!/usr/bin/env python3
"""Reads rendered Camouflage photos with `tablejudge camouflage read` and compares each with its
.truth.json: centres missed or extra, card squares read wrong or unknown, and whether each
reading that exits 0 (trusted) is right. Until `eval camouflage` exists. Usage: python3 tools/camouflage-read-check/check.py "DIR/*.jpg" (from the repo root)."""
import json, subprocess, sys, glob, os, time
def rot(pic):  # clockwise quarter turn
    rows=len(pic); cols=len(pic[0])
    return [''.join(pic[rows-1-r][c] for r in range(rows)) for c in range(cols)]
def cells(pic):
    return {(r,c):ch for r,row in enumerate(pic) for c,ch in enumerate(row) if ch!='.'}
tot=dict(frames=0,ok=0,cent_miss=0,cent_extra=0,sq_wrong=0,sq_unknown=0,sq=0,fail=0,exit0_right=0,exit0_wrong=0,undecided_right=0,undecided_wrong=0)
files=sorted(glob.glob(sys.argv[1]))
for f in files:
    truth=json.load(open(f.replace('.jpg','.truth.json')))
    t=time.time()
    p=subprocess.run([os.environ.get('TABLEJUDGE','target/release/tablejudge'),'camouflage','read',f,'--set',os.environ.get('SET','models/camouflage/reference.json'),'--json'],capture_output=True,text=True)
    dt=time.time()-t
    tot['frames']+=1
    try: r=json.loads(p.stdout)
    except Exception: print(f,'ERR',p.stderr[:300]); tot['fail']+=1; continue
    if 'picture' not in r: print(f,'FAIL',r.get('reason')); tot['fail']+=1; tot['undecided_wrong']+=1; continue
    T=cells(truth['picture'])
    best=None
    pic=r['picture']
    for k in range(4):
        R=cells(pic)
        tc=[p for p,ch in T.items() if ch=='*']; rc=[p for p,ch in R.items() if ch=='*']
        for a in tc[:1]:
            for b in rc:
                dr,dc=a[0]-b[0],a[1]-b[1]
                RR={(p[0]+dr,p[1]+dc):ch for p,ch in R.items()}
                score=sum(1 for p in tc if RR.get(p)=='*')*1000+sum(1 for p in T if RR.get(p)==T[p])
                if best is None or score>best[0]: best=(score,RR,k)
        pic=rot(pic)
    score,RR,k=best
    tcent={p for p,ch in T.items() if ch=='*'}; rcent={p for p,ch in RR.items() if ch=='*'}
    miss=len(tcent-rcent); extra=len(rcent-tcent)
    wrong=[(p,T[p],RR.get(p,'.')) for p in T if T[p]!='*' and RR.get(p,'.') not in (T[p],'?')]
    unk=[p for p in T if RR.get(p)=='?']
    hand = 'hand' if any(s['visible']<1 for s in truth['squares']) else ''
    tot['cent_miss']+=miss; tot['cent_extra']+=extra; tot['sq_wrong']+=len(wrong); tot['sq_unknown']+=len(unk); tot['sq']+=len(T)
    right=not(miss or extra or wrong or unk)
    tot[('exit0' if p.returncode==0 else 'undecided')+('_right' if right else '_wrong')]+=1
    if right: tot['ok']+=1
    else: print(os.path.basename(os.path.dirname(f))+'/'+os.path.basename(f), hand, 'miss',miss,'extra',extra,'wrong',wrong[:6],'unk',len(unk), 'groups', max([c['symbol_group'] for c in r['centres']])+1, '%.2fs'%dt)
print(tot)
