# Shared by benches/compare.sh and benches/compare_index.sh.

# The executable of bench target $2 of package $1, built in the current
# directory (a revision's worktree).
bench_exe() {
  cargo bench --locked -p "$1" --bench "$2" --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json,sys; print([j["executable"] for j in map(json.loads, sys.stdin) if j.get("reason") == "compiler-artifact" and j.get("executable") and j["target"]["name"] == sys.argv[1]][-1])' "$2"
}
