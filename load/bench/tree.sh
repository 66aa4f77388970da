# Sourced by the benchmark scripts: which code a run measures. `./updraft` and the scripts' Maven builds use the
# working tree, uncommitted changes included, so each run records the commit and says when the tree differs from it.
# measured_tree [dir]: logs "<commit>[+uncommitted]" to stderr (with a warning when uncommitted), and writes it to
# dir/tree.txt when a directory is given.
measured_tree() {
  local tree
  tree="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo +uncommitted)"
  [ -n "${1:-}" ] && echo "$tree" > "$1/tree.txt"
  echo "[$(date -u +%H:%M:%S)] measuring the tree at $tree" >&2
  if [ "${tree%+uncommitted}" != "$tree" ]; then
    echo "[$(date -u +%H:%M:%S)] warning: uncommitted changes are measured too; run from a clean checkout (git worktree add) to measure a commit" >&2
  fi
}
