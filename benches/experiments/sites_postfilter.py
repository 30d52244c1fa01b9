"""Issue 46's upper bound, before sites are built: aws-amplify's page
nDCG@10 per question set with and without the reader's site, the site
applied as a filter over the top 400 sections of `build-index search`
(restricting before ranking finds these pages or better). Sites: gen2
(pages not under pages/gen1/), gen1, and one per `meta.platforms` value;
labels in tests/golden/sites/.

    BUILD_INDEX=path/to/build-index python3 benches/experiments/sites_postfilter.py MODEL_DIR INDEX
"""
import json,subprocess,sys,math,re,os
M=sys.argv[1]; idx=sys.argv[2]  # the model's folder; an aws-amplify index built with it
root=os.environ.get('ASK_CORPORA','../shared/corpora')+'/aws-amplify'
# page -> platforms
plat={}
for dp,dn,fn in os.walk(root+'/pages'):
    for f in fn:
        if not f.endswith('.mdx'): continue
        p=os.path.join(dp,f); rel=os.path.relpath(p,root)
        t=open(p,encoding='utf-8',errors='replace').read()
        m=re.search(r'platforms\s*:\s*\[([^\]]*)\]', t, re.S)
        plat[rel]=set(re.findall(r"['\"]([a-z-]+)['\"]", m.group(1))) if m else set()
def in_sites(page, sites):
    for s in sites:
        if s=='gen1':
            if not page.startswith('pages/gen1/'): return False
        elif s=='gen2':
            if page.startswith('pages/gen1/'): return False
        else:
            if s not in plat.get(page,set()): return False
    return True
def load(path): return [json.loads(l) for l in open(path)]
labels=load('tests/golden/sites/aws-amplify-labels.jsonl')
sets={'golden':load('tests/golden/aws-amplify.jsonl'),'paraphrase':load('tests/golden/paraphrase/aws-amplify.jsonl'),'fresh':load('tests/golden/fresh/aws-amplify.jsonl')}
lab={}
for l in labels: lab[(l['set'],l['q'])]=l['sites']
new=load('tests/golden/sites/aws-amplify-new.jsonl')
sets['new']=new
for q in new: lab[('new',q['q'])]=q['sites']
def run(qs, retr):
    inp='\n'.join(q['q'] for q in qs)+'\n'
    out=subprocess.run([os.environ.get('BUILD_INDEX','build-index'),'search','--index',idx,'--retriever',retr,'--model',M,'--top-k','400'],input=inp,capture_output=True,text=True).stdout
    return [json.loads(l) for l in out.strip().split('\n')]
def pages(r):
    out=[]
    for h in r['hits']:
        if h['id'] not in out: out.append(h['id'])
    return out
def ndcg(q, ps):
    g={p:2 for p in q.get('expected',[])}; g.update({p:1 for p in q.get('partial',[]) if p not in g})
    if not g: return None
    dcg=sum((2**g.get(p,0)-1)/math.log2(i+2) for i,p in enumerate(ps[:10]))
    ideal=sorted(g.values(),reverse=True)
    idcg=sum((2**v-1)/math.log2(i+2) for i,v in enumerate(ideal[:10]))
    return dcg/idcg
print('| set | questions | retriever | without site | site given (post-filter of top 400) | other-site pages in top 10 without |')
print('|---|---|---|---|---|---|')
for name,qs in sets.items():
    for retr in ['bm25','hybrid']:
        R=run(qs,retr)
        a=[];b=[];other=0;n=0
        for q,r in zip(qs,R):
            ps=pages(r); s=lab[(name,q['q'])]
            x=ndcg(q,ps); 
            if x is None: continue
            y=ndcg(q,[p for p in ps if in_sites(p,s)])
            a.append(x); b.append(y); n+=1
            other+=sum(1 for p in ps[:10] if not in_sites(p,s))
        print(f'| {name} | {n} | {retr} | {sum(a)/n:.3f} | {sum(b)/n:.3f} | {other/n:.1f} |')
