import json, glob, statistics, sys, re
d = sys.argv[1]
rows = {}
for f in sorted(glob.glob(f"{d}/*.json")):
    v, i = re.match(r".*/(\w+)-(\d+)\.json", f).groups()
    j = json.load(open(f)); p = j["run"]["probe"]["stages"]; s = p["stages"]; bk = p["by_kind"]
    rows.setdefault(v, []).append((int(i), j["load_average"]["start"][0], j["load_average"]["end"][0],
        s["retrieval_no_embed"]["p50"], s["retrieval_no_embed"]["p95"],
        bk["no_problem"]["retrieval_no_embed"]["p50"], bk["no_problem"]["retrieval_no_embed"]["p95"],
        s["dense_global"]["p50"], s["bm25"]["p50"], s["lexical"]["p50"], j["run"]["probe"]["stages"].get("major_faults")))
for v, rs in rows.items():
    rs.sort()
    print(v)
    for r in rs: print("  run %d load %.2f→%.2f all p50/p95 %.1f / %.1f  none p50/p95 %.1f / %.1f  dense_g %.1f bm25 %.1f lex %.1f faults %s" % r)
    med = lambda k: statistics.median(r[k] for r in rs)
    print("  MEDIAN all p50/p95 %.1f / %.1f none %.1f / %.1f; runs with p95<=30: %d/%d" % (med(3), med(4), med(5), med(6), sum(r[4] <= 30 for r in rs), len(rs)))
