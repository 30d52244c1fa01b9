# Shared by benches/compare.sh and benches/compare_index.sh.

# Removes this workspace's own crates' artifacts of profiles "$@": the
# target directory is shared by the worktrees of the revisions compared,
# and cargo can take another worktree's artifacts of the same crates for
# this one's (two revisions then build the same binary).
fresh_crates() {
  local profile p
  for profile in "$@"; do
    for p in nlweb-ask build-index ask-index ask-settings ask-store ask-embed; do
      cargo clean --quiet --profile "$profile" -p "$p"
    done
  done
}

# The executable of bench target $2 of package $1, built in the current
# directory (a revision's worktree).
bench_exe() {
  cargo bench --locked -p "$1" --bench "$2" --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json,sys; print([j["executable"] for j in map(json.loads, sys.stdin) if j.get("reason") == "compiler-artifact" and j.get("executable") and j["target"]["name"] == sys.argv[1]][-1])' "$2"
}

# One run of the handler bench's list-mode requests over prefect for
# revision $1 (its worktree $2, its bench executable $3), criterion writing
# under $4 when given: a JSON line with its p50 and p99.
handler_list() {
  local p
  p="$(cd "$2" && if [ -n "${4:-}" ]; then export CRITERION_HOME="$4"; fi \
    && "$3" --bench handler/prefect/list --warm-up-time 1 --measurement-time 2 2>/dev/null \
    | grep -o 'p50 [0-9.]* µs, p99 [0-9.]* µs')"
  echo "{\"rev\": \"$1\", \"handler_list\": \"$p\"}"
}
